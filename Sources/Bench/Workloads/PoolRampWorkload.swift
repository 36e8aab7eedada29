import ArenaContract
import Harness
import Synchronization

/// `pool-ramp`: does the pool add threads when its workers block? K blocks (`blocks`: 4, 16, 64) that each sleep
/// `blockingMilliseconds` are submitted at once to the engine's default global queue, then one trivial block.
///
/// The sleep is a timed wait the engine cannot see (a plain `nanosleep`, as blocking I/O or a foreign lock would
/// be), never a spin: a pool that keeps `cores` workers runnable finds them all asleep and must notice by itself.
/// libdispatch on Linux does so with a monitor that polls once a second and adds one thread per poll; a pool that
/// never grows (Swift's cooperative pool under `actor`) runs the blocks `cores` at a time.
///
/// A trial is one round, and every repetition meets the engine as a fresh process starts it (`needsFreshEngine`):
/// pools keep the threads a round grew (libdispatch's idle workers for 5 s, the home engines' for 1 s), and later
/// rounds in one process met them instead of ramping (measured, 64 blocks, four rounds: `mutex` 264 ms, then 150;
/// `lockfree` 264, then 151 and 104; `system` 1,400, then 950, 800 and 650). One consequence for `system`: in a fresh
/// process the monitor's timer starts with the first worker and polls at once, so when that poll finds the workers
/// asleep a third worker comes at the start of the round (64 blocks: 1,050 ms), and when it comes before they sleep
/// the third waits a second (1,400 ms; 2 of 10 repetitions here). A burst later in a process's life meets the poll
/// anywhere in its second.
///
/// Figures of a round (counters; with more rounds per trial, the mean, and the most threads of any round):
/// - `finish_ms`, the headline: from the first submission until the last of the K blocks finished its sleep (read in
///   the blocks, so the trial's own wake-up is not in it). A pool that starts a thread per block at once takes about
///   the blocking time; one that never grows, ⌈K / cores⌉ blocking times.
/// - `first_start_ms`: from the trivial block's submission until it started. The queue starts blocks in submission
///   order, so this is how long the pool took to reach the end of the backlog.
/// - `peak_engine_threads`: the engine's threads at their most. A thread of the trial reads `/proc/self/status` every
///   1 ms while the round runs; the count just before the first submission is subtracted. In `arena bench`'s child
///   that count is 3, measured: the calling thread, `PointRunner`'s resource sampler and this sampler; the engines
///   start no thread before their first block. So it counts every thread the engine started for the round: workers,
///   and helpers such as libdispatch's manager or a home engine's watch thread.
/// - For the report, from the measuring machine: `target_ms` and `target_threads`, the bounds the home engines aim at
///   (twice the blocking time plus 50 ms; K + cores + 2 threads: a thread per block, the pool's width and two helpers),
///   and `fixed_pool_ms`, what a pool of `cores` threads that never grows takes (⌈K / cores⌉ blocking times).
///
/// 50 ms of blocking: five ticks of the home engines' 10 ms starvation watch, so a pool that ramps can do so within
/// one blocking time; a twentieth of libdispatch's 1 s poll, so its ramp shows; and short enough that the engine that
/// never grows (`actor`: 64 blocks 2 at a time, 1.6 s a round) keeps the quick report within its time.
///
/// The answer checked: every one of the K blocks ran exactly once and the trivial block ran once. Every wait ends at
/// the point's deadline. An engine that never grows still finishes (the blocks wait for time, not for each other), so
/// it gets a number, ⌈K / cores⌉ blocking times, and the report calls it starving: a measured starvation says more
/// than a timeout would, and a timeout is kept for an engine that loses a block or stops running them.
public struct PoolRampWorkload: Workload {
    public let name = "pool-ramp"
    public let summary =
        "K blocks that each sleep 50 ms, submitted at once to the default global queue: when all have "
        + "finished, the engine's peak threads, and when a trivial block submitted after them starts"
    public let headline = Headline.counter(name: "finish_ms", unit: "ms", lowerIsBetter: true)
    public let figure = PlotFigure.bundled("pool-ramp.gp")

    /// How long each of the K blocks blocks.
    public static let blockingMilliseconds = 50
    /// How often the round's sampler reads the thread count.
    @usableFromInline static let sampleInterval = Duration.milliseconds(1)

    public init() {}

    /// The blocks K a round submits.
    static let blockCounts = [4, 16, 64]

    /// blocks: K ∈ {4, 16, 64}.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.integer("blocks", Self.blockCounts)] }

    public func points(_ settings: BenchSettings) -> [Point] {
        Self.blockCounts.map { Point(workload: name, parameters: [Parameter("blocks", $0)]) }
    }

    /// A trial is one round: with a fresh engine there is no warm-up to grow it, and one round is what is measured.
    public func initialOperations(_ point: Point) -> Int { 1 }

    /// A pool keeps the threads a round grew (libdispatch for 5 s, the home engines for 1 s), so a second round in
    /// the same process would meet them instead of ramping: every repetition meets the engine as a process starts it.
    public var needsFreshEngine: Bool { true }
    public var blocksInBlocks: Bool { true }

    /// The bound the home engines aim at for `finish_ms`: twice the blocking time plus 50 ms.
    public static var targetMilliseconds: Int { 2 * blockingMilliseconds + 50 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let blocks = point.integer("blocks")
        let queue = engine.globalQueue
        let blocking = Duration.milliseconds(Self.blockingMilliseconds)
        var finishTotal = 0.0, firstStartTotal = 0.0, peakThreads = 0

        let watch = Stopwatch()
        for _ in 0..<operations {
            let log = RampLog(blocks: blocks)
            let finished = Latch(blocks), trivialRan = Latch()
            let sampler = ResourceSampler(every: Self.sampleInterval)
            let threadsBefore = ResourceSampler.threadCount()
            let start = Deadline.now()
            for index in 0..<blocks {
                queue.async {
                    log.run(index)
                    Threads.sleep(blocking)
                    log.end(index)
                    finished.countDown()
                }
            }
            let trivialSubmitted = Deadline.now()
            queue.async {
                log.runTrivial()
                trivialRan.countDown()
            }
            let allFinished = finished.wait(until: context.deadline)
            let trivialStarted = trivialRan.wait(until: context.deadline)
            let peak = sampler.stop().all
            try WorkloadError.check(
                allFinished ? .success : .timedOut,
                waitingFor: "\(finished.remainingCount) of \(blocks) blocking blocks")
            try WorkloadError.check(trivialStarted ? .success : .timedOut, waitingFor: "the trivial block")
            try log.check()
            finishTotal += Double(log.lastEnd - start.nanoseconds) / 1e6
            firstStartTotal += Double(log.trivialStart - trivialSubmitted.nanoseconds) / 1e6
            // Never below 0: in a process that ran rounds before (the tests), idle threads may retire during this one.
            peakThreads = max(peakThreads, peak - threadsBefore, 0)
        }
        let elapsed = watch.read()
        let rounds = Double(operations)
        return Trial(
            operations: operations, items: operations * blocks, elapsed: elapsed,
            counters: [
                "finish_ms": finishTotal / rounds,
                "first_start_ms": firstStartTotal / rounds,
                "peak_engine_threads": Double(peakThreads),
                "target_ms": Double(Self.targetMilliseconds),
                "target_threads": Double(blocks + StressLoad.cores + 2),
                "fixed_pool_ms": Double((blocks + StressLoad.cores - 1) / StressLoad.cores * Self.blockingMilliseconds),
            ])
    }
}

/// What the blocks of one round record: per block, how often it ran and when its sleep ended; for the trivial block,
/// how often it ran and when it started. Each block writes its own slots (relaxed atomics, so a broken engine that
/// runs a block twice at once is counted, not a data race); the round reads them after the latches opened, which
/// orders the writes before the reads. A class, so blocks still queued after a timed-out round keep it alive.
@usableFromInline final class RampLog: @unchecked Sendable {
    @usableFromInline let blocks: Int
    @usableFromInline let runs: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline let ends: UnsafeMutablePointer<Atomic<UInt64>>
    @usableFromInline let trivialRuns = Atomic<Int>(0)
    @usableFromInline let trivialStartNanoseconds = Atomic<UInt64>(0)

    @inlinable init(blocks: Int) {
        self.blocks = blocks
        runs = .allocate(capacity: blocks)
        ends = .allocate(capacity: blocks)
        for index in 0..<blocks {
            (runs + index).initialize(to: Atomic(0))
            (ends + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        runs.deinitialize(count: blocks)
        runs.deallocate()
        ends.deinitialize(count: blocks)
        ends.deallocate()
    }

    /// Counts a run of block `index`.
    @inlinable func run(_ index: Int) { runs[index].wrappingAdd(1, ordering: .relaxed) }

    /// Notes that block `index` finished its sleep now.
    @inlinable func end(_ index: Int) { ends[index].store(Deadline.now().nanoseconds, ordering: .relaxed) }

    /// Counts a run of the trivial block and notes when it started (the first run's time).
    @inlinable func runTrivial() {
        let now = Deadline.now().nanoseconds
        if trivialRuns.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
            trivialStartNanoseconds.store(now, ordering: .relaxed)
        }
    }

    /// When the last block finished its sleep, in `Deadline` nanoseconds.
    @inlinable var lastEnd: UInt64 { (0..<blocks).reduce(0) { max($0, ends[$1].load(ordering: .relaxed)) } }

    /// When the trivial block started, in `Deadline` nanoseconds.
    @inlinable var trivialStart: UInt64 { trivialStartNanoseconds.load(ordering: .relaxed) }

    /// Throws unless every block and the trivial block ran exactly once.
    @inlinable func check() throws(WorkloadError) {
        for index in 0..<blocks {
            try WorkloadError.check("runs of blocking block \(index)", runs[index].load(ordering: .relaxed), expected: 1)
        }
        try WorkloadError.check("runs of the trivial block", trivialRuns.load(ordering: .relaxed), expected: 1)
    }
}
