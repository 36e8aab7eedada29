import ArenaContract
import CLinux
import DequeModule
import Glibc
import Synchronization

/// Work the pool runs: a queue targeting the pool itself (drain it, or serve one request of a concurrent queue),
/// or a plain task (apply's helpers).
enum MutexPoolItem {
    case drain(MutexQueue, generation: UInt64)
    case task(@Sendable () -> Void)
}

/// The threads that run everything. Ready items wait under one mutex in a FIFO per quality-of-service class, and a
/// worker takes the oldest of the most urgent class (`MutexReadyList`); idle workers sleep on a condition. A drain
/// reads `mostUrgentReady` between two blocks and gives its thread back when a more urgent class waits, so a
/// flooded pool turns to urgent work within one block, not one batch.
///
/// Width is the number of active CPUs: the pool keeps that many workers *runnable*. When a worker blocks inside the
/// engine (a sync waiting its turn, a group, semaphore, work item or once wait, apply waiting for helpers) it says so,
/// and if work is waiting the pool starts another thread at once. Blocking the engine cannot see (sleep, I/O, a
/// foreign lock) is caught by a starvation watch, as libdispatch's Linux monitor does: while ready work waits and no
/// worker is idle, every 10 ms it reads the workers' kernel states and run times (/proc/self/task/TID) and adds a
/// thread when fewer than `width` progress (`WorkerProgress`: runnable, on a CPU for a tenth of the tick, or having
/// taken an item since the last look; a worker waiting for a contended lock sleeps in bursts of microseconds and is
/// not blocked; when one lags while another works, two ticks in a row). Workers that are busy computing are
/// runnable, so CPU-bound blocks never grow the pool. Threads beyond the width retire after 1 s idle. The total never
/// exceeds `maxThreads` (128, as MADispatchQueue); past it, work waits for a worker to free up.
final class MutexWorkerPool: @unchecked Sendable {
    /// The number of workers kept runnable: the active CPUs.
    let width: Int
    /// The most threads the pool will ever run at once.
    let maxThreads = 128

    private let lock = PthreadMutex()
    private let workAvailable = PthreadCondition()
    private let watchWake = PthreadCondition()
    private var ready = MutexReadyList()
    /// `ready.mostUrgent`, published for drains to read without the lock (a hint: a stale value costs one block).
    private let mostUrgentReady = Atomic<Int>(-1)
    private var published = -1
    private var threadCount = 0
    private var idle = 0
    private var blocked = 0
    private var watching = false
    /// The live workers by kernel thread id, with the items each took from `ready`, for the starvation watch.
    private var workerTurns: [Int32: Turns] = [:]

    /// Items one worker took from `ready`, counted under `lock` (a box, so that a pop costs no dictionary lookup).
    private final class Turns {
        var count = 0
    }
    private var stopping = false
    /// Every worker running; `shutdown` joins them. A worker that retires detaches itself and leaves the list.
    private var threads: [pthread_t] = []
    private var watch: pthread_t?

    init() {
        width = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Threads running now (for tests and reports).
    var liveThreads: Int { lock.withLock { threadCount } }

    /// Queues `item` in the FIFO of class `qos` and wakes or starts a worker for it.
    func push(_ item: MutexPoolItem, qos: QoSClass = .default) {
        lock.lock()
        precondition(!stopping, "mutex engine: work submitted after shutdown")
        ready.append(item, rank: qos.rank)
        publishMostUrgent()
        if idle > 0 {
            workAvailable.signal()
        } else if threadCount - blocked < width && threadCount < maxThreads {
            startWorker()
        } else {
            startWatching()
        }
        lock.unlock()
    }

    /// A worker is about to wait inside the engine.
    func workerWillBlock() {
        lock.lock()
        blocked += 1
        if !ready.isEmpty && idle == 0 && threadCount - blocked < width && threadCount < maxThreads { startWorker() }
        lock.unlock()
    }

    /// A worker's wait ended.
    /// Copies `ready.mostUrgent` to `mostUrgentReady` when it changed (lock held): most pushes and pops leave it as
    /// it was, and then the word drains read is not written.
    @inline(__always)
    private func publishMostUrgent() {
        if ready.mostUrgent != published {
            published = ready.mostUrgent
            mostUrgentReady.store(published, ordering: .relaxed)
        }
    }

    /// Whether a class more urgent than `rank` has ready items (read without the lock).
    @inline(__always)
    func hasReadyMoreUrgent(than rank: Int) -> Bool { mostUrgentReady.load(ordering: .relaxed) > rank }

    func workerDidUnblock() {
        lock.withLock { blocked -= 1 }
    }

    /// Stops every thread after the ready work ran, and joins them. Nothing may be submitted afterwards.
    func shutdown() {
        lock.lock()
        stopping = true
        workAvailable.broadcast()
        watchWake.broadcast()
        let all = threads + (watch.map { [$0] } ?? [])
        threads = []
        watch = nil
        lock.unlock()
        for thread in all { pthread_join(thread, nil) }
    }

    // MARK: Workers (called with `lock` held)

    private func startWorker() {
        threadCount += 1
        threads.append(startEngineThread("mutex.worker") { [self] in work() })
    }

    private func work() {
        let context = MutexThreadContext.current
        context.pool = self
        let id = clinux_thread_id()
        lock.lock()
        let turns = Turns()
        workerTurns[id] = turns
        while true {
            while ready.isEmpty && !stopping {
                idle += 1
                let extra = threadCount > width
                let woken = workAvailable.wait(lock, until: extra ? .now() + .seconds(1) : .distantFuture)
                idle -= 1
                if !woken && ready.isEmpty && threadCount > width && !stopping {
                    return leave(id, retiring: true)
                }
            }
            let rank = ready.mostUrgent
            guard let item = ready.popFirst() else {  // stopping, nothing left
                return leave(id, retiring: false)
            }
            turns.count &+= 1
            publishMostUrgent()
            // Work left behind with no idle worker to take it: the item just taken may block where the engine cannot
            // see, so another worker starts, or the starvation watch looks after it (as `push` does). Without this,
            // two pushes woke one idle worker twice; it took the first, blocked in it, and the second waited for good
            // (`arena explore`, seed op:257: an operation's body waiting on the script, beside another added with it).
            if !ready.isEmpty && idle == 0 {
                if threadCount - blocked < width && threadCount < maxThreads { startWorker() } else { startWatching() }
            }
            lock.unlock()
            context.turnRank = rank
            run(consume item)
            lock.lock()
        }
    }

    /// Runs `item` and releases it before returning: the release may free a queue, whose finalizer submission takes
    /// this pool's lock, so it must not wait until the loop has locked again.
    private func run(_ item: consuming MutexPoolItem) {
        switch consume item {
        case .drain(let queue, let generation): queue.drain(generation: generation)
        case .task(let task): task()
        }
    }

    /// A worker's way out, called with `lock` held; unlocks. A worker retiring while the pool runs on detaches
    /// itself (nobody will join it); at shutdown, `shutdown` joins it.
    private func leave(_ id: Int32, retiring: Bool) {
        threadCount -= 1
        workerTurns[id] = nil
        if retiring {
            let me = pthread_self()
            threads.removeAll { pthread_equal($0, me) != 0 }
            pthread_detach(me)
        }
        lock.unlock()
    }

    // MARK: Starvation watch

    private func startWatching() {
        guard !watching else { return }
        watching = true
        if watch == nil {
            watch = startEngineThread("mutex.watch") { [self] in watchLoop() }
        } else {
            watchWake.signal()
        }
    }

    private func watchLoop() {
        var progress = WorkerProgress(tick: .milliseconds(10))
        lock.lock()
        while !stopping {
            if !watching || ready.isEmpty {
                watching = false
                progress.pause()
                watchWake.wait(lock)
                continue
            }
            watchWake.wait(lock, until: .now() + .milliseconds(10))
            guard !ready.isEmpty && idle == 0 && threadCount < maxThreads else {
                progress.pause()
                continue
            }
            let workers = workerTurns.map { (id: $0.key, turns: $0.value.count) }
            lock.unlock()
            let missing = progress.missing(workers, width: width)
            lock.lock()
            if missing > 0 && !ready.isEmpty && idle == 0 && threadCount < maxThreads { startWorker() }
        }
        lock.unlock()
    }
}
