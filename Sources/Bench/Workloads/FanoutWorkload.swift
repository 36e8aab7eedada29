import ArenaContract
import Harness
import Synchronization

/// `fanout`: a round submits M empty blocks to a concurrent queue in one group, then a `notify` block, then waits for
/// the group: the fork-join pattern of GCD code, and the cost of groups on top of `async`.
///
/// An operation is one round; the headline is blocks per second (M per round). The answer checked: when a round's
/// `wait` returns, exactly M more blocks ran (no more, none missing); every notify block ran once, and only after
/// the blocks of its round (counted when it runs); and the last notify ran before the trial's deadline.
public struct FanoutWorkload: Workload {
    public let name = "fanout"
    public let summary = "M blocks in a group on a concurrent queue, then notify and wait, per round"
    public let headline = Headline.throughput(unit: "blocks/s")
    public let figure = PlotFigure.bundled("fanout.gp")

    public init() {}

    /// blocks: M ∈ {100, 10,000} (quick: 100 and 1,000).
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.integer("blocks", Self.blockCounts(settings))]
    }

    /// M ∈ {100, 10,000}: a round dominated by the group's fixed costs, and one dominated by the blocks.
    public func points(_ settings: BenchSettings) -> [Point] {
        Self.blockCounts(settings).map { blocks in
            Point(workload: name, parameters: [Parameter("blocks", blocks)])
        }
    }

    /// The blocks per round under `settings`.
    static func blockCounts(_ settings: BenchSettings) -> [Int] { settings.quick ? [100, 1_000] : [100, 10_000] }

    /// About 2,000 blocks in all, at least one round: 1–10 ms at 1–6 µs a block (group included).
    public func initialOperations(_ point: Point) -> Int { max(1, 2_000 / point.integer("blocks")) }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let blocks = point.integer("blocks")
        let queue = engine.makeQueue(label: "fanout", kind: .concurrent)
        let group = engine.makeGroup(label: "fanout")
        let tally = FanoutTally(blocks: blocks, rounds: operations)
        // Both blocks are made once, before the clock starts, and submitted again and again.
        let block: @Sendable () -> Void = { tally.blockRan() }
        let notify: @Sendable () -> Void = { tally.notifyRan() }
        let watch = Stopwatch()
        for round in 0..<operations {
            for _ in 0..<blocks { group.async(on: queue, block) }
            group.notify(queue: queue, notify)
            try WorkloadError.check(group.wait(until: context.deadline), waitingFor: "the blocks of round \(round)")
            // The group is empty and the next round not submitted: the count is exact here.
            try WorkloadError.check(
                "the blocks run after round \(round)", tally.blocksRun,
                expected: (round + 1) * blocks)
        }
        // A notify runs after the wait may return, so the last one is waited for on its own.
        guard tally.allNotified.wait(until: context.deadline) else {
            throw WorkloadError(
                "timed out waiting for the notify blocks: \(tally.notifiesRun) of \(operations) ran",
                timedOut: true)
        }
        let elapsed = watch.read()
        try WorkloadError.check("the notify blocks run", tally.notifiesRun, expected: operations)
        try WorkloadError.check("notify blocks that ran before their round's blocks finished", tally.early, expected: 0)
        return Trial(operations: operations, items: operations * blocks, elapsed: elapsed)
    }
}

/// Counts of a fanout trial. The block counter and the notify counters sit on separate 128-byte spans, so blocks
/// incrementing one do not invalidate the line a notify reads.
@usableFromInline final class FanoutTally: @unchecked Sendable {
    @usableFromInline let blocks: Int
    @usableFromInline let rounds: Int
    /// Opens when the last notify ran.
    @usableFromInline let allNotified = Latch()
    @usableFromInline let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Slots of the three counters: blocks run in the first 128 bytes, notifies run and early notifies in the next.
    @usableFromInline let blockCounter = 0, notifyCounter = 16, earlyCounter = 17

    @inlinable init(blocks: Int, rounds: Int) {
        self.blocks = blocks
        self.rounds = rounds
        counters = .allocate(capacity: 32)
        for index in [blockCounter, notifyCounter, earlyCounter] { (counters + index).initialize(to: Atomic(0)) }
    }

    deinit {
        for index in [blockCounter, notifyCounter, earlyCounter] { (counters + index).deinitialize(count: 1) }
        counters.deallocate()
    }

    @inline(__always)
    @inlinable func blockRan() { counters[blockCounter].wrappingAdd(1, ordering: .relaxed) }

    /// The k-th notify to run (from 0) follows k + 1 finished rounds whichever rounds they were, since each round
    /// has one notify; so at least (k + 1) × M blocks ran, or this notify came too early. The group's hand-off orders
    /// a round's increments before its notify, and the acquire-release count orders every earlier notify before this
    /// one, so the load sees all those increments on any memory model.
    @inlinable func notifyRan() {
        let k = counters[notifyCounter].wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        if counters[blockCounter].load(ordering: .relaxed) < (k + 1) * blocks {
            counters[earlyCounter].wrappingAdd(1, ordering: .relaxed)
        }
        if k + 1 == rounds { allNotified.countDown() }
    }

    @inlinable var blocksRun: Int { counters[blockCounter].load(ordering: .relaxed) }
    @inlinable var notifiesRun: Int { counters[notifyCounter].load(ordering: .relaxed) }
    @inlinable var early: Int { counters[earlyCounter].load(ordering: .relaxed) }
}
