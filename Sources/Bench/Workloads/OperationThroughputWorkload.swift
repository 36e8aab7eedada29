import ArenaContract
import Glibc
import Harness
import Synchronization

/// `op-throughput`: N independent block operations added to one operation queue of the contender's operation layer
/// (`Engine.operations`) at `maxConcurrentOperationCount` 1, the core count, and unlimited: what an operation costs
/// over a plain block, and what the width costs.
///
/// An operation is one block operation; the headline is operations per second, from the first addition until
/// `waitUntilAllOperationsAreFinished` returned (called on a plain thread, so the trial waits for it with a
/// deadline). The answer checked: when that wait returned every operation had run (counted by the waiting thread as it
/// returns, so a wait that returns early cannot hide behind the trial thread's wake-up), once, and at width 1 and at the
/// core count no more ran at a time than the width allows (each body counts itself in and out).
public struct OperationThroughputWorkload: Workload {
    public let name = "op-throughput"
    public let summary = "independent block operations on one operation queue at width 1, cores and unlimited"
    public let headline = Headline.throughput(unit: "operations/s")
    public let figure = PlotFigure.bundled("op-throughput.gp")
    public var requirements: Set<Capability> { [.operationQueues] }

    /// The queue's `maxConcurrentOperationCount`.
    public enum Width: String, ParameterChoice {
        /// One operation at a time.
        case one = "1"
        /// The core count, read when the trial starts.
        case cores
        /// The queue's unlimited width.
        case unlimited
        public static let parameterName = "width"
    }

    public init() {}

    /// width: 1, cores, unlimited.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.choice(Width.self)] }

    /// width: 1, cores, unlimited.
    public func points(_ settings: BenchSettings) -> [Point] {
        Width.allCases.map { Point(workload: name, parameters: [Parameter($0)]) }
    }

    public func initialOperations(_ point: Point) -> Int { 1_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let layer = engine.operations
        let queue = layer.makeQueue(label: "op-throughput")
        let width: Int? =
            switch point.choice(Width.self) {
            case .one: 1
            case .cores: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
            case .unlimited: nil
            }
        queue.maxConcurrentOperationCount = width ?? E.Operations.Queue.unlimited
        let tally = ThroughputTally()
        let block: @Sendable () -> Void = { tally.run() }
        let watch = Stopwatch()
        for _ in 0..<operations { queue.addOperation(block) }
        let finished = Latch()
        Threads.detach {
            queue.waitUntilAllOperationsAreFinished()
            tally.waitReturned()  // counted by the waiting thread itself, before the trial's thread can wake
            finished.countDown()
        }
        guard finished.wait(until: context.deadline) else {
            throw WorkloadError("timed out waiting for the operations: \(tally.ran) of \(operations) ran", timedOut: true)
        }
        let elapsed = watch.read()
        try WorkloadError.check("the operations run when the wait returned", tally.ranWhenWaitReturned, expected: operations)
        try WorkloadError.check("the operations run", tally.ran, expected: operations)
        if let width, tally.widest > width {
            throw WorkloadError("\(tally.widest) operations ran at once on a queue of width \(width)")
        }
        return Trial(operations: operations, elapsed: elapsed, counters: ["widest": Double(tally.widest)])
    }
}

/// Counts of an op-throughput trial: operations run, running now, and the most seen running at once.
@usableFromInline final class ThroughputTally: @unchecked Sendable {
    @usableFromInline let ranCount = Atomic<Int>(0)
    @usableFromInline let running = Atomic<Int>(0)
    @usableFromInline let widestSeen = Atomic<Int>(0)

    @inlinable init() {}

    @inlinable func run() {
        let now = running.wrappingAdd(1, ordering: .relaxed).newValue
        var widest = widestSeen.load(ordering: .relaxed)
        while now > widest {
            let (exchanged, original) = widestSeen.compareExchange(expected: widest, desired: now, ordering: .relaxed)
            if exchanged { break }
            widest = original
        }
        running.wrappingSubtract(1, ordering: .relaxed)
        ranCount.wrappingAdd(1, ordering: .relaxed)
    }

    /// Operations run when `waitUntilAllOperationsAreFinished` returned, as the waiting thread counted them.
    @usableFromInline let ranAtWaitReturn = Atomic<Int>(-1)

    /// Notes, on the thread the wait returned on, how many operations had run.
    @inlinable func waitReturned() { ranAtWaitReturn.store(ranCount.load(ordering: .acquiring), ordering: .releasing) }

    @inlinable var ranWhenWaitReturned: Int { ranAtWaitReturn.load(ordering: .acquiring) }

    @inlinable var ran: Int { ranCount.load(ordering: .relaxed) }
    @inlinable var widest: Int { widestSeen.load(ordering: .relaxed) }
}
