import ArenaContract
import Harness
import Synchronization

/// `starfish`: Q serial queues pass messages all-to-all (libdispatch's starfish test, smaller): a message is a block
/// that runs on one queue and asyncs itself to another, until it has made its hop budget.
///
/// Q messages travel at once, one starting on each queue, so every queue has work and many queues wake each other;
/// a message's next queue is `(i + k) % Q` with a step k that cycles through 1…Q − 1, and the messages start at
/// different steps, so together they go from each queue to every other. An operation is one hop (a message
/// delivered); the headline is messages per second. The answer checked: every message made exactly its budget of
/// hops, the deliveries counted per queue add up to the same total, no two blocks of a queue overlapped, and the last
/// message arrived before the trial's deadline.
public struct StarfishWorkload: Workload {
    public let name = "starfish"
    public let summary = "Q serial queues async messages all-to-all, each message a fixed number of hops"
    public let headline = Headline.throughput(unit: "messages/s")
    public let figure = PlotFigure.bundled("starfish.gp")

    public init() {}

    /// queues: 16, 8 in a quick run.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.integer("queues", [Self.queueCount(settings)])]
    }

    /// One point: 16 queues, 8 in a quick run.
    public func points(_ settings: BenchSettings) -> [Point] {
        [Point(workload: name, parameters: [Parameter("queues", Self.queueCount(settings))])]
    }

    /// The queues under `settings`.
    static func queueCount(_ settings: BenchSettings) -> Int { settings.quick ? 8 : 16 }

    /// 2,000 hops: a hop costs 0.3–4 µs, so the first trial lasts 1–10 ms.
    public func initialOperations(_ point: Point) -> Int { 2_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let queueCount = point.integer("queues")
        let budget = max(1, (operations + queueCount - 1) / queueCount)
        let queues = (0..<queueCount).map { engine.makeQueue(label: "starfish.\($0)", kind: .serial) }
        let arrived = Latch(queueCount)
        let deliveries = PaddedCounters(queueCount)
        let messages = (0..<queueCount).map { start in
            Message(queues: queues, start: start, budget: budget, deliveries: deliveries, arrived: arrived)
        }
        let watch = Stopwatch()
        for message in messages { message.send() }
        guard arrived.wait(until: context.deadline) else {
            // Blocks may still be in flight: the messages stay alive (their closures hold them) and are leaked.
            throw WorkloadError(
                "timed out: \(arrived.remainingCount) of \(queueCount) messages never made their "
                    + "\(budget) hops", timedOut: true)
        }
        let elapsed = watch.read()
        for message in messages { message.release() }
        for (index, message) in messages.enumerated() {
            try WorkloadError.check("the hops of message \(index)", message.hops, expected: budget)
        }
        try WorkloadError.check("the deliveries counted on the queues", deliveries.total, expected: budget * queueCount)
        try WorkloadError.check(
            "blocks that overlapped another block of their serial queue", deliveries.overlaps,
            expected: 0)
        return Trial(operations: budget * queueCount, elapsed: elapsed)
    }
}

/// One travelling message: its position and hop count, and the block that delivers it. A message is on one queue at
/// a time and each hop is submitted by the one before, so its plain fields are ordered by the queues' hand-offs.
/// The block is made once, before the clock starts, so a hop allocates nothing of the workload's own.
@usableFromInline final class Message<Queue: EngineQueue>: @unchecked Sendable {
    @usableFromInline let queues: [Queue]
    @usableFromInline let budget: Int
    @usableFromInline let deliveries: PaddedCounters
    @usableFromInline let arrived: Latch
    @usableFromInline var position: Int
    @usableFromInline var step: Int
    /// Hops made so far (deliveries, the first included).
    @usableFromInline var hops = 0
    // The block captures the message strongly, a cycle that `release()` breaks after the last hop; a timed-out trial
    // leaks it rather than free memory a late block may still touch.
    @usableFromInline var deliver: (@Sendable () -> Void)?

    @inlinable init(queues: [Queue], start: Int, budget: Int, deliveries: PaddedCounters, arrived: Latch) {
        self.queues = queues
        self.budget = budget
        self.deliveries = deliveries
        self.arrived = arrived
        position = start
        // Messages start at different steps, so at any moment the queues send along different strides.
        step = queues.count > 1 ? 1 + start % (queues.count - 1) : 0
        deliver = { self.hop() }
    }

    /// Submits the first delivery, to the message's starting queue.
    @inlinable func send() { queues[position].async(deliver!) }

    @inlinable func hop() {
        let here = position
        deliveries.enterExclusive(here)
        hops += 1
        if hops == budget {
            deliveries.leaveExclusive(here)
            // Counting down is the last thing the block does: `release()` may run as soon as every message did.
            arrived.countDown()
            return
        }
        let count = queues.count
        position = (position + step) % count
        step = step + 1 < count ? step + 1 : 1
        queues[position].async(deliver!)
        deliveries.leaveExclusive(here)
    }

    /// Breaks the block's cycle; only after the last hop, when no block reads it any more.
    @inlinable func release() { deliver = nil }
}
