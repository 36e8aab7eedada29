// The native C floor of DispatchArena: the workloads of `arena bench`, written in C++ on Google Benchmark against
// libdispatch's C API (the toolchain's own libdispatch, which the `system` engine wraps) and a plain pthread mutex.
// What the Swift engines cost above these numbers is their own overhead; what libdispatch costs above the mutex is
// the price of a queue over a lock.
//
// Benchmark names are the Swift points' names with two more engines, `c-dispatch` and `c-mutex`; Google Benchmark
// appends `/real_time` to all of them and `/threads:T` to the threaded ones, and the Swift reader
// (Sources/Bench/Results/GoogleBenchmarkReader.swift) strips that suffix:
//
//   contention/c-dispatch/mode:sync/threads:T          contention, mode sync: T threads dispatch_sync_f one queue
//   contention/c-dispatch/mode:async-write/threads:T   contention, mode async-write: async write + sync read
//   contention/c-mutex/mode:sync/threads:T             contention, mode sync, with pthread_mutex instead of a queue
//   async-drain/c-dispatch/queue:serial/producers:1    async-drain: empty blocks onto a serial queue, then a drain
//   async-drain/c-dispatch/queue:concurrent/producers:P   ... onto a private concurrent queue, drained by a barrier
//   apply/c-dispatch/n:N/work:W                        apply: dispatch_apply_f over N iterations of W busy work
//   pingpong/c-dispatch                                pingpong: one token bounced between two serial queues
//
// `items_per_second` is the headline throughput, per second of wall time and over all threads: critical sections
// (two per iteration in async-write), blocks, apply iterations (N per call), round trips. `iterations` counts
// iterations (summed over threads, as Google Benchmark 1.7.1 reports them): a critical section (async-write: a write
// and a read), a block, an apply call, a round trip; `real_time` is the run's time divided by it. For the threaded
// ones that time is Google Benchmark's mean of the threads' own times, which lines inside the timed region make
// the wall time of the run (see Line). Every benchmark checks its own answer and reports a wrong one with
// SkipWithError, so a broken run gets no number.
//
// Own flags, removed before Google Benchmark sees the rest: --threads=1,2,4,8,16 (the T and P lists) and --quick
// (threads 1,2,4,8 unless --threads is given, the smaller apply point set `arena bench --quick` uses, and a fixed
// count for the contention points: see kQuickContentionSections).

#include <benchmark/benchmark.h>
#include <dispatch/dispatch.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

uint64_t nowNanoseconds() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}

// Error messages outlive the benchmark function (the reporter prints them later), so they are kept here rather
// than in a local string, whatever Google Benchmark does with the pointer.
std::mutex messagesLock;
std::list<std::string> messages;

void fail(benchmark::State& state, const std::string& message) {
    std::lock_guard<std::mutex> guard(messagesLock);
    messages.push_back(message);
    state.SkipWithError(messages.back().c_str());
}

// Checks `actual == expected`, reporting "<what> is X, expected Y" otherwise; true when right.
bool check(benchmark::State& state, const std::string& what, uint64_t actual, uint64_t expected) {
    if (actual == expected) return true;
    fail(state, what + " is " + std::to_string(actual) + ", expected " + std::to_string(expected));
    return false;
}

// ---------------------------------------------------------------------------------------------------------------
// contention

// Lines inside the timed region of the threaded benchmarks. Google Benchmark 1.7.1 times each thread on its own
// (from its own start after the start barrier to the end of its own loop) and reports the mean of those times. When
// the threads do not start and finish together, that mean is shorter than the wall time of the run, and
// `items_per_second` higher than what the threads achieved together. Measured here: 2 threads through
// dispatch_sync_f sometimes ran one after the other and reported twice the throughput, and 8 threads on 2 cores
// started milliseconds apart (a thread released by the barrier waits for a core) and reported more critical sections
// per second than one thread alone can run. The Swift Crew times the release until the last thread finished. So each
// thread's first iteration waits at a start line for all the others, and its last one at a finish line: every
// thread's time then covers all the work of all threads, and the mean lies between the span of the work and the
// wall time including the release (they differ by the threads' start skew, which the Swift clock includes).
struct Line {
    std::mutex lock;
    std::condition_variable allIn;
    int expected = 0;
    int arrived = 0;

    void reset(int threads) {
        std::lock_guard<std::mutex> guard(lock);
        expected = threads;
        arrived = 0;
    }

    void arrive() {
        std::unique_lock<std::mutex> guard(lock);
        if (++arrived == expected) allIn.notify_all();
        else allIn.wait(guard, [&] { return arrived == expected; });
    }
};
Line startLine;
Line finishLine;

// Thread 0 resets the lines before the loop (other threads touch them only after the start barrier).
void resetLines(const benchmark::State& state) {
    startLine.reset(state.threads());
    finishLine.reset(state.threads());
}

// One thread's place between the lines. Every thread runs exactly max_iterations iterations of a
// `for (auto _ : state)` loop (Google Benchmark gives all threads one count), so a countdown finds the first and the
// last iteration without reading the clock.
struct Lines {
    const benchmark::IterationCount total;
    benchmark::IterationCount left;
    explicit Lines(const benchmark::State& state) : total(state.max_iterations), left(state.max_iterations) {}
    void begin() {
        if (left == total) startLine.arrive();
    }
    void end() {
        if (--left == 0) finishLine.arrive();
    }
};

// One serial queue and the state it guards, set up by thread 0 before the loop (whose start is a barrier across
// the threads) and checked by it after the loop (whose end is one too). Each field on its own 128-byte span, so
// threads reading the queue pointer do not share a line with the counter the blocks write.
struct ContentionShared {
    alignas(128) dispatch_queue_t queue = nullptr;
    alignas(128) uint64_t counter = 0;  // plain: only blocks of the serial queue touch it, the queue is the lock
    alignas(128) std::atomic<uint64_t> violations{0};
};
ContentionShared contention;

void contentionWrite(void* context) { static_cast<ContentionShared*>(context)->counter += 1; }

// A thread's sync read: its own context (made before the loop), so a read allocates nothing.
struct ContentionRead {
    ContentionShared* shared;
    uint64_t seen;
};

void contentionRead(void* context) {
    auto* read = static_cast<ContentionRead*>(context);
    read->seen = read->shared->counter;
}

void setUpContention(benchmark::State& state) {
    // Every run starts afresh: Google Benchmark calls the function several times (iteration estimate, repetitions).
    if (state.thread_index() != 0) return;
    resetLines(state);
    contention.queue = dispatch_queue_create("contention", DISPATCH_QUEUE_SERIAL);
    contention.counter = 0;
    contention.violations.store(0, std::memory_order_relaxed);
}

void tearDownContention(benchmark::State& state) {
    if (state.thread_index() != 0) return;
    dispatch_release(contention.queue);
    contention.queue = nullptr;
}

// Google Benchmark runs every thread for the same iteration count (RunInThread gets one `iters` for all), so the
// expected total is iterations × threads; the end-of-loop barrier orders every thread's last write before this read.
void BM_ContentionDispatchSync(benchmark::State& state) {
    setUpContention(state);
    Lines lines(state);
    for (auto _ : state) {
        lines.begin();
        dispatch_sync_f(contention.queue, &contention, contentionWrite);
        lines.end();
    }
    if (state.thread_index() == 0) {
        check(state, "the counter", contention.counter, uint64_t(state.iterations()) * uint64_t(state.threads()));
        tearDownContention(state);
    }
    state.SetItemsProcessed(state.iterations());
}

// Two critical sections per iteration: an async write, then a sync read that must see at least this thread's own
// writes (the queue is FIFO). The last operation of every thread is a sync, so its writes have drained when its
// loop ends and the counter is final after the end barrier.
void BM_ContentionDispatchAsyncWrite(benchmark::State& state) {
    setUpContention(state);
    ContentionRead read{&contention, 0};
    uint64_t written = 0;
    Lines lines(state);
    for (auto _ : state) {
        lines.begin();
        dispatch_queue_t queue = contention.queue;
        dispatch_async_f(queue, &contention, contentionWrite);
        written += 1;
        dispatch_sync_f(queue, &read, contentionRead);
        // Counted inside the loop, so the count is complete at the end barrier.
        if (read.seen < written) contention.violations.fetch_add(1, std::memory_order_relaxed);
        lines.end();
    }
    if (state.thread_index() == 0) {
        if (check(state, "the counter", contention.counter, uint64_t(state.iterations()) * uint64_t(state.threads())))
            check(state, "sync reads that missed the reader's own earlier writes",
                  contention.violations.load(std::memory_order_relaxed), 0);
        tearDownContention(state);
    }
    state.SetItemsProcessed(2 * state.iterations());
}

// The lock and the counter it guards side by side, as one writes it; the line is shared by design.
struct alignas(128) MutexShared {
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;  // a default mutex: no attributes
    uint64_t counter = 0;
};
MutexShared mutexShared;

void BM_ContentionMutex(benchmark::State& state) {
    if (state.thread_index() == 0) {
        resetLines(state);
        mutexShared.counter = 0;
    }
    Lines lines(state);
    for (auto _ : state) {
        lines.begin();
        pthread_mutex_lock(&mutexShared.mutex);
        mutexShared.counter += 1;
        pthread_mutex_unlock(&mutexShared.mutex);
        lines.end();
    }
    if (state.thread_index() == 0)
        check(state, "the counter", mutexShared.counter, uint64_t(state.iterations()) * uint64_t(state.threads()));
    state.SetItemsProcessed(state.iterations());
}

// ---------------------------------------------------------------------------------------------------------------
// async-drain

constexpr uint64_t drainBatch = 10000;  // blocks per batch, over all producers

struct DrainShared;

// One producer's counter and in-flight flag, 128 bytes from the next producer's, so blocks of two producers running
// on two workers share no cache line (adjacent-line prefetch included).
struct alignas(128) DrainSlot {
    std::atomic<uint64_t> count{0};
    std::atomic<uint32_t> inFlight{0};
    DrainShared* shared = nullptr;
};

struct DrainShared {
    dispatch_queue_t queue = nullptr;
    std::vector<DrainSlot> slots;
    std::vector<uint64_t> share;  // blocks per batch of each producer, summing to drainBatch
    std::atomic<uint64_t> overlaps{0};
    uint64_t atDrain = 0;  // written by the drain block, read after the semaphore
    dispatch_semaphore_t drained = nullptr;
    // The gate that releases the producers for a batch, and the count of those done submitting.
    std::mutex lock;
    std::condition_variable go;
    std::condition_variable done;
    uint64_t generation = 0;
    int submitted = 0;
    bool stop = false;
};

// A block of the serial queue: the queue makes it exclusive, so relaxed loads and stores suffice (no locked
// instruction); if two blocks overlapped anyway, the count loses increments and the flag is seen set.
void drainSerialBlock(void* context) {
    auto* slot = static_cast<DrainSlot*>(context);
    if (slot->inFlight.load(std::memory_order_relaxed) != 0)
        slot->shared->overlaps.fetch_add(1, std::memory_order_relaxed);
    slot->inFlight.store(1, std::memory_order_relaxed);
    slot->count.store(slot->count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    slot->inFlight.store(0, std::memory_order_relaxed);
}

// A block of the concurrent queue: blocks of one producer may run at once, so the count is atomic.
void drainConcurrentBlock(void* context) {
    static_cast<DrainSlot*>(context)->count.fetch_add(1, std::memory_order_relaxed);
}

// The drain: the last block of the serial queue, or a barrier on the concurrent one; either way every earlier
// block has finished when it runs, so the sum it records must be everything submitted.
void drainBlock(void* context) {
    auto* shared = static_cast<DrainShared*>(context);
    uint64_t total = 0;
    for (auto& slot : shared->slots) total += slot.count.load(std::memory_order_relaxed);
    shared->atDrain = total;
    dispatch_semaphore_signal(shared->drained);
}

void drainProducer(DrainShared* shared, int index, bool serial) {
    dispatch_function_t block = serial ? drainSerialBlock : drainConcurrentBlock;
    DrainSlot* slot = &shared->slots[index];
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> guard(shared->lock);
            shared->go.wait(guard, [&] { return shared->stop || shared->generation != seen; });
            if (shared->stop) return;
            seen = shared->generation;
        }
        const uint64_t count = shared->share[index];
        for (uint64_t k = 0; k < count; ++k) dispatch_async_f(shared->queue, slot, block);
        std::lock_guard<std::mutex> guard(shared->lock);
        if (++shared->submitted == int(shared->slots.size())) shared->done.notify_one();
    }
}

// One Google Benchmark thread drives P producer threads, made once per run (outside the timed region) and released
// per batch; the timed region covers the release, the submissions and the drain, as the Swift trial does.
void BM_AsyncDrain(benchmark::State& state, bool serial, int producers) {
    DrainShared shared;
    shared.queue = dispatch_queue_create("async-drain", serial ? DISPATCH_QUEUE_SERIAL : DISPATCH_QUEUE_CONCURRENT);
    shared.drained = dispatch_semaphore_create(0);
    shared.slots = std::vector<DrainSlot>(size_t(producers));
    for (auto& slot : shared.slots) slot.shared = &shared;
    for (int p = 0; p < producers; ++p)
        shared.share.push_back(drainBatch / producers + (uint64_t(p) < drainBatch % producers ? 1 : 0));
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) threads.emplace_back(drainProducer, &shared, p, serial);

    uint64_t batches = 0;
    while (state.KeepRunningBatch(drainBatch)) {
        {
            std::lock_guard<std::mutex> guard(shared.lock);
            shared.submitted = 0;
            shared.generation += 1;
        }
        shared.go.notify_all();
        {
            std::unique_lock<std::mutex> guard(shared.lock);
            shared.done.wait(guard, [&] { return shared.submitted == producers; });
        }
        if (serial) dispatch_async_f(shared.queue, &shared, drainBlock);
        else dispatch_barrier_async_f(shared.queue, &shared, drainBlock);
        dispatch_semaphore_wait(shared.drained, DISPATCH_TIME_FOREVER);
        batches += 1;
        // Counts are cumulative over the run: every batch must add exactly its share.
        bool right = true;
        for (int p = 0; p < producers && right; ++p)
            right = check(state, "the blocks run of producer " + std::to_string(p),
                          shared.slots[size_t(p)].count.load(std::memory_order_relaxed),
                          batches * shared.share[size_t(p)]);
        right = right && check(state, "the blocks run before the drain block", shared.atDrain, batches * drainBatch);
        right = right && check(state, "blocks of the serial queue that overlapped another",
                               shared.overlaps.load(std::memory_order_relaxed), 0);
        // On a wrong answer SkipWithError ended the run: the next KeepRunningBatch returns false (and passes the end
        // barrier, which a `break` would skip). The queue is idle, so tearing down is safe.
        if (!right) continue;
    }

    {
        std::lock_guard<std::mutex> guard(shared.lock);
        shared.stop = true;
    }
    shared.go.notify_all();
    for (auto& thread : threads) thread.join();
    dispatch_release(shared.drained);
    dispatch_release(shared.queue);
    state.SetItemsProcessed(state.iterations());  // blocks: KeepRunningBatch counts B per batch
}

// ---------------------------------------------------------------------------------------------------------------
// apply

// The Swift Spinner's loop, step for step: a dependent xor-shift-multiply chain that the optimiser can neither fold
// (the step is not linear) nor shorten (the count is hidden behind an asm barrier, and the function is not inlined).
__attribute__((noinline)) uint64_t spin(uint64_t steps) {
    asm volatile("" : "+r"(steps));
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < steps; ++i) x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull;
    return x;
}

// Loop steps per microsecond, measured once per process as the Swift side does: the fastest of five runs of 200,000
// steps, so a preemption during calibration cannot slow the spin.
double stepsPerMicrosecond() {
    static const double value = [] {
        const uint64_t steps = 200000;
        uint64_t best = UINT64_MAX;
        for (int run = 0; run < 5; ++run) {
            uint64_t start = nowNanoseconds();
            uint64_t x = spin(steps);
            benchmark::DoNotOptimize(x);
            best = std::min(best, nowNanoseconds() - start);
        }
        return double(steps) * 1000.0 / double(std::max<uint64_t>(best, 1));
    }();
    return value;
}

uint64_t stepsFor(int nanoseconds) { return uint64_t(std::llround(nanoseconds * stepsPerMicrosecond() / 1000.0)); }

struct ApplyContext {
    uint32_t* hits;  // one count per index: distinct indices touch distinct counts, so no race
    uint64_t steps;
};

void applyBody(void* context, size_t index) {
    auto* apply = static_cast<ApplyContext*>(context);
    if (apply->steps > 0) {
        uint64_t x = spin(apply->steps);
        benchmark::DoNotOptimize(x);
    }
    apply->hits[index] += 1;
}

// Every index ran exactly `calls` times: an index run twice shows a count too high, a skipped one too low.
bool checkHits(benchmark::State& state, const std::vector<uint32_t>& hits, uint64_t calls, const char* who) {
    for (size_t index = 0; index < hits.size(); ++index)
        if (hits[index] != calls)
            return check(state, std::string("the runs of index ") + std::to_string(index) + who, hits[index], calls);
    return true;
}

// The plain single-threaded loop over the same work, ns per call: measured once per point per process (at least
// 50 ms or one call, whichever is longer) and kept, as the Swift runner measures its baseline once per point.
std::map<std::pair<size_t, int>, double> baselines;

bool baseline(benchmark::State& state, size_t n, int workNanoseconds, double& nanosecondsPerCall) {
    auto key = std::make_pair(n, workNanoseconds);
    auto found = baselines.find(key);
    if (found != baselines.end()) {
        nanosecondsPerCall = found->second;
        return true;
    }
    std::vector<uint32_t> hits(n, 0);
    ApplyContext context{hits.data(), stepsFor(workNanoseconds)};
    uint64_t calls = 0;
    const uint64_t start = nowNanoseconds();
    uint64_t elapsed = 0;
    do {
        for (size_t index = 0; index < n; ++index) applyBody(&context, index);
        calls += 1;
        elapsed = nowNanoseconds() - start;
    } while (elapsed < 50000000);
    if (!checkHits(state, hits, calls, " in the plain loop")) return false;
    nanosecondsPerCall = double(elapsed) / double(calls);
    baselines[key] = nanosecondsPerCall;
    return true;
}

void BM_Apply(benchmark::State& state, size_t n, int workNanoseconds) {
    double baselineNanoseconds = 0;
    const bool haveBaseline = baseline(state, n, workNanoseconds, baselineNanoseconds);
    std::vector<uint32_t> hits(n, 0);
    ApplyContext context{hits.data(), stepsFor(workNanoseconds)};
    const auto start = Clock::now();
    for (auto _ : state) dispatch_apply_f(n, DISPATCH_APPLY_AUTO, &context, applyBody);
    const double elapsed = double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    if (!haveBaseline) return;  // the error is reported; the empty loop above only let Google Benchmark finish
    if (!checkHits(state, hits, uint64_t(state.iterations()), "")) return;
    state.SetItemsProcessed(state.iterations() * int64_t(n));
    state.counters["baseline_ns_per_op"] = baselineNanoseconds;
    state.counters["speedup"] = baselineNanoseconds / (elapsed / double(state.iterations()));
}

// ---------------------------------------------------------------------------------------------------------------
// pingpong

constexpr uint64_t rallyRoundTrips = 1000;  // per batch

// The token's state. Each field is written by blocks of one queue only (hitsA, last and the latencies on A, hitsB
// on B), and only one block exists at a time, so plain fields are safe: the queues' hand-offs order them.
struct Rally {
    dispatch_queue_t a = nullptr;
    dispatch_queue_t b = nullptr;
    dispatch_semaphore_t finished = nullptr;
    uint64_t hitsA = 0;
    uint64_t hitsB = 0;
    uint64_t last = 0;  // when A last sent the token
    std::vector<uint64_t> latencies;  // preallocated for the whole run; `recorded` of them used
    size_t recorded = 0;
};

void rallyB(void* context);

void rallyA(void* context) {
    auto* rally = static_cast<Rally*>(context);
    const uint64_t now = nowNanoseconds();
    if (rally->hitsA > 0 && rally->recorded < rally->latencies.size())
        rally->latencies[rally->recorded++] = now - rally->last;
    rally->hitsA += 1;
    if (rally->hitsA > rallyRoundTrips) {
        // The last thing this block does: the benchmark thread may start the next batch at once.
        dispatch_semaphore_signal(rally->finished);
        return;
    }
    rally->last = now;
    dispatch_async_f(rally->b, rally, rallyB);
}

void rallyB(void* context) {
    auto* rally = static_cast<Rally*>(context);
    rally->hitsB += 1;
    dispatch_async_f(rally->a, rally, rallyA);
}

double percentile(const std::vector<uint64_t>& sorted, double p) {
    if (sorted.empty()) return 0;
    size_t rank = size_t(std::ceil(p / 100.0 * double(sorted.size())));  // nearest rank
    return double(sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1]);
}

void BM_PingPong(benchmark::State& state) {
    Rally rally;
    rally.a = dispatch_queue_create("pingpong.a", DISPATCH_QUEUE_SERIAL);
    rally.b = dispatch_queue_create("pingpong.b", DISPATCH_QUEUE_SERIAL);
    rally.finished = dispatch_semaphore_create(0);
    // KeepRunningBatch runs whole batches, so the run is max_iterations rounded up to a batch (capped at 16M round
    // trips, 128 MiB, which a run reaches only at a few ns per round trip; later ones go unrecorded).
    const uint64_t batches = (uint64_t(state.max_iterations) + rallyRoundTrips - 1) / rallyRoundTrips;
    rally.latencies.assign(size_t(std::min<uint64_t>(batches * rallyRoundTrips, uint64_t(1) << 24)), 0);
    while (state.KeepRunningBatch(rallyRoundTrips)) {
        rally.hitsA = 0;
        rally.hitsB = 0;
        dispatch_async_f(rally.a, &rally, rallyA);
        dispatch_semaphore_wait(rally.finished, DISPATCH_TIME_FOREVER);
        if (!check(state, "the blocks run on A", rally.hitsA, rallyRoundTrips + 1) ||
            !check(state, "the blocks run on B", rally.hitsB, rallyRoundTrips))
            continue;  // SkipWithError ended the run, so KeepRunningBatch returns false; the token is home
    }
    dispatch_release(rally.finished);
    dispatch_release(rally.a);
    dispatch_release(rally.b);
    if (state.error_occurred()) return;
    state.SetItemsProcessed(state.iterations());  // round trips
    std::vector<uint64_t> sorted(rally.latencies.begin(), rally.latencies.begin() + long(rally.recorded));
    std::sort(sorted.begin(), sorted.end());
    state.counters["p50_ns"] = percentile(sorted, 50);
    state.counters["p90_ns"] = percentile(sorted, 90);
    state.counters["p99_ns"] = percentile(sorted, 99);
    state.counters["max_ns"] = sorted.empty() ? 0 : double(sorted.back());
}

// ---------------------------------------------------------------------------------------------------------------
// registration

[[noreturn]] void usage(const std::string& message) {
    std::fprintf(stderr, "c-floor: %s (usage: c-floor [--threads=1,2,4,8,16] [--quick] [benchmark flags])\n",
                 message.c_str());
    std::exit(64);
}

std::vector<int> parseThreads(const std::string& list) {
    std::vector<int> threads;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        const std::string item = list.substr(start, end - start);
        char* rest = nullptr;
        long value = std::strtol(item.c_str(), &rest, 10);
        if (item.empty() || *rest != '\0' || value < 1 || value > 1024)
            usage("bad thread count '" + item + "' in --threads=" + list);
        threads.push_back(int(value));
        start = end + 1;
    }
    return threads;
}

struct Work {
    const char* label;
    int nanoseconds;
};

// The contention points' iterations in a quick run, summed over the threads. Google Benchmark sizes a run from the
// shorter runs before it, and contended dispatch_sync_f changes speed with the run's length: with 8 threads on 2 cores
// the short runs took 12 ns a critical section and the sized run 4 to 6 µs (the waiters convoy through the kernel),
// so a 0.05 s quick point ran 4 million iterations, 20 s a repetition, and the quick sweep took 2 minutes of its 2 min
// 10 s there. A fixed count keeps a quick repetition under half a second whatever the mode (async-write's
// iterations took 16 to 22 µs at 100,000), about what `arena bench --quick`'s 0.05 s trials run at those speeds.
// Google Benchmark then names the point with `/iterations:N`, which the arena's reader drops.
constexpr benchmark::IterationCount kQuickContentionSections = 20000;

// A contention benchmark with T threads: in a quick run, kQuickContentionSections split among them.
benchmark::internal::Benchmark* contentionPoint(benchmark::internal::Benchmark* point, int threads, bool quick) {
    point->Threads(threads)->UseRealTime();
    if (quick) point->Iterations(std::max<benchmark::IterationCount>(1, kQuickContentionSections / threads));
    return point;
}

void registerAll(const std::vector<int>& threads, bool quick) {
    for (int t : threads)
        contentionPoint(benchmark::RegisterBenchmark(("contention/c-dispatch/mode:sync/threads:" + std::to_string(t)).c_str(),
                                                     BM_ContentionDispatchSync), t, quick);
    for (int t : threads)
        contentionPoint(
            benchmark::RegisterBenchmark(("contention/c-dispatch/mode:async-write/threads:" + std::to_string(t)).c_str(),
                                         BM_ContentionDispatchAsyncWrite), t, quick);
    for (int t : threads)
        contentionPoint(benchmark::RegisterBenchmark(("contention/c-mutex/mode:sync/threads:" + std::to_string(t)).c_str(),
                                                     BM_ContentionMutex), t, quick);

    benchmark::RegisterBenchmark("async-drain/c-dispatch/queue:serial/producers:1", BM_AsyncDrain, true, 1)
        ->UseRealTime();
    for (int p : threads)
        benchmark::RegisterBenchmark(("async-drain/c-dispatch/queue:concurrent/producers:" + std::to_string(p)).c_str(),
                                     BM_AsyncDrain, false, p)->UseRealTime();

    // The points of ApplyWorkload.points: a quick run drops 100ns and the sizes 10k and 1M, and any point whose
    // plain loop would take more than 100 ms per call.
    const std::vector<Work> works = {{"0ns", 0}, {"100ns", 100}, {"1us", 1000}, {"10us", 10000}};
    const std::vector<size_t> sizes = quick ? std::vector<size_t>{1000, 100000}
                                            : std::vector<size_t>{1000, 10000, 100000, 1000000};
    for (size_t n : sizes)
        for (const Work& work : works) {
            if (quick && (work.nanoseconds == 100 || double(n) * work.nanoseconds > 100000000.0)) continue;
            benchmark::RegisterBenchmark(
                ("apply/c-dispatch/n:" + std::to_string(n) + "/work:" + work.label).c_str(), BM_Apply, n,
                work.nanoseconds)->UseRealTime();
        }

    benchmark::RegisterBenchmark("pingpong/c-dispatch", BM_PingPong)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> threads;
    bool quick = false;
    bool threadsGiven = false;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg.rfind("--threads=", 0) == 0) {
            threads = parseThreads(arg.substr(std::strlen("--threads=")));
            threadsGiven = true;
        } else if (arg == "--threads") {
            usage("write --threads=LIST");
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = nullptr;
    if (!threadsGiven) threads = quick ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1, 2, 4, 8, 16};

    registerAll(threads, quick);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 64;
    stepsPerMicrosecond();  // calibrate before any benchmark runs, on an idle machine
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
