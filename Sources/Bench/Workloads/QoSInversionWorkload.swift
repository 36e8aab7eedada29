import ArenaContract
import Harness
import Synchronization

/// `qos-inversion`: priority inversion, as the objc.io seed warns of it. A block on the user-initiated global queue
/// calls `sync` onto a background serial queue that has a backlog of background blocks to drain first; the pool is
/// idle (`pool:idle`) or flooded with background blocks submitted before the backlog (`pool:saturated`).
///
/// The headline is the caller's wait (from the call to the return) in µs, median over the syncs of a trial
/// (`wait_p50_us`, `wait_p99_us` beside it); the waits also go to the latency percentiles. The backlog alone is
/// `backlog` blocks of `blockMicroseconds` each, so a wait near that (400 µs) means the queue's drain ran ahead of the
/// flood: an engine that boosts a queue a higher class waits on shows it in the saturated point, one that runs the
/// pool in order makes the caller wait for the flood too. The caller starts first and holds its worker until the
/// stage is set, so its own start is not measured; and the backlog's first block holds until the caller is about to
/// call, so a caller preempted before its call still meets the whole backlog (without that, a caller that lost its
/// core for the backlog's 400 µs saw it drained, and its wait of 0.1 µs made the point flip between rounds). The
/// answer checked: the sync's block ran after every backlog block (it reads their count), and every flood block ran.
public struct QoSInversionWorkload: Workload {
    public let name = "qos-inversion"
    public let summary = "a user-initiated sync onto a background serial queue with a backlog, pool idle or flooded; the caller's wait"
    public let headline = Headline.counter(name: "wait_p50_us", unit: "µs", lowerIsBetter: true)
    public let figure = PlotFigure.bundled("qos-inversion.gp")

    /// Backlog blocks on the background queue per sync, and flood blocks per core, each of `blockMicroseconds`.
    @usableFromInline static let backlog = 4
    @usableFromInline static let floodPerCore = 8
    @usableFromInline static let blockMicroseconds = 100

    public init() {}

    /// The pool the sync waits in.
    public enum Pool: String, ParameterChoice {
        /// Nothing else submitted.
        case idle
        /// Flooded with `floodPerCore` background blocks per core, submitted before the backlog.
        case saturated
        public static let parameterName = "pool"
    }

    /// pool: idle or saturated.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.choice(Pool.self)] }

    public func points(_ settings: BenchSettings) -> [Point] {
        Pool.allCases.map { Point(workload: name, parameters: [Parameter($0)]) }
    }

    /// A sync costs 0.4 ms (idle) to a few ms (saturated): 10 make a first trial of 4 to 40 ms.
    public func initialOperations(_ point: Point) -> Int { 10 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let steps = context.spinner.steps(forNanoseconds: Self.blockMicroseconds * 1000)
        let flood =
            switch point.choice(Pool.self) {
            case .idle: 0
            case .saturated: StressLoad.cores * Self.floodPerCore
            }
        let low = engine.makeQueue(label: "qos-inversion.low", kind: .serial, qos: .background, startsInactive: false, target: nil)
        let floodQueue = engine.globalQueue(qos: .background)
        let high = engine.globalQueue(qos: .userInitiated)
        let log = InversionLog()
        var latencies = LatencyRecorder()

        let watch = Stopwatch()
        for round in 0..<operations {
            let started = Latch(), returned = Latch(), flooded = Latch(flood)
            let go = Atomic<Bool>(false), calling = Atomic<Bool>(false)
            let deadline = context.deadline
            high.async {
                started.countDown()
                while !go.load(ordering: .acquiring) && Deadline.now() < deadline {}
                calling.store(true, ordering: .releasing)
                let start = Deadline.now()
                let seen = low.sync { log.backlogRan }
                log.finish(wait: Deadline.now().nanoseconds - start.nanoseconds, seen: seen)
                returned.countDown()
            }
            try WorkloadError.check(started.wait(until: deadline) ? .success : .timedOut, waitingFor: "the user-initiated caller to start")
            for _ in 0..<flood {
                floodQueue.async {
                    context.spinner.work(steps: steps)
                    flooded.countDown()
                }
            }
            for index in 0..<Self.backlog {
                low.async {
                    if index == 0 { while !calling.load(ordering: .acquiring) && Deadline.now() < deadline {} }
                    context.spinner.work(steps: steps)
                    log.backlogRan += 1  // the low queue's blocks only: serial, ordered by the queue
                }
            }
            go.store(true, ordering: .releasing)
            try WorkloadError.check(returned.wait(until: deadline) ? .success : .timedOut, waitingFor: "the caller's sync to return")
            try WorkloadError.check(flooded.wait(until: deadline) ? .success : .timedOut, waitingFor: "\(flood) flood blocks")
            let (wait, seen) = log.last
            try WorkloadError.check(
                "backlog blocks run before the sync's block (round \(round))", seen, expected: Self.backlog * (round + 1))
            latencies.record(nanoseconds: wait)
        }
        let elapsed = watch.read()
        let percentiles = latencies.percentiles
        return Trial(
            operations: operations, elapsed: elapsed, latencies: latencies,
            counters: [
                "wait_p50_us": (percentiles?.p50 ?? 0) / 1000,
                "wait_p99_us": (percentiles?.p99 ?? 0) / 1000,
            ])
    }
}

/// What the rounds of a trial share: the backlog count (written by the low queue's blocks and read by the sync's
/// block on that serial queue, so the queue orders it) and the caller's last wait with the count it saw (written by
/// the caller before its latch opens, read by the trial after, so the latch orders it).
@usableFromInline final class InversionLog: @unchecked Sendable {
    @usableFromInline var backlogRan = 0
    @usableFromInline var last: (wait: UInt64, seen: Int) = (0, 0)

    @inlinable init() {}

    @inlinable func finish(wait: UInt64, seen: Int) { last = (wait, seen) }
}
