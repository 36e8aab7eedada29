import ArenaContract
import Harness
import Synchronization

/// `async-drain`: producers submit empty blocks with `async` and wait for the queue to drain, the cost of `async`
/// itself: one producer on a serial queue, and P producers on a concurrent queue.
///
/// The producers start together; the timed region runs from their release until a final drain block (a barrier on
/// the concurrent queue), submitted after every producer returned, ran: the drain is measured too. The headline is
/// blocks per second. The answer checked: every block ran exactly once, all of them before the drain block (counted
/// when it runs); on the serial queue no two blocks overlapped; and the drain finished before the trial's deadline.
public struct AsyncDrainWorkload: Workload {
    public let name = "async-drain"
    public let summary = "producers async empty blocks to a serial or concurrent queue and wait for the drain"
    public let headline = Headline.throughput(unit: "blocks/s")
    public let figure = PlotFigure.bundled("async-drain.gp")

    /// The queue the producers submit to.
    public enum Queue: String, ParameterChoice {
        /// A serial queue, with one producer.
        case serial
        /// A concurrent queue, with a producer per thread count of the run.
        case concurrent
        public static let parameterName = "queue"
    }

    public init() {}

    /// queue, and producers: 1 and the run's thread counts.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.choice(Queue.self), .integer("producers", [1] + settings.threads)]
    }

    /// `queue:serial/producers:1`, then `queue:concurrent/producers:P` for every thread count. The concurrent queue
    /// keeps P = 1 too: next to the serial point it shows what the queue kind alone costs.
    public func points(_ settings: BenchSettings) -> [Point] {
        [Point(workload: name, parameters: [Parameter(Queue.serial), Parameter("producers", 1)], threads: 1)]
            + settings.threads.map { producers in
                Point(
                    workload: name, parameters: [Parameter(Queue.concurrent), Parameter("producers", producers)],
                    threads: producers)
            }
    }

    /// 2,000 blocks: an empty `async` and its run cost 0.5–5 µs here, so the first trial lasts 1–10 ms.
    public func initialOperations(_ point: Point) -> Int { 2_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let producers = point.integer("producers")
        let perProducer = max(1, (operations + producers - 1) / producers)
        let total = perProducer * producers
        let serial =
            switch point.choice(Queue.self) {
            case .serial: true
            case .concurrent: false
            }
        let queue = engine.makeQueue(label: "async-drain", kind: serial ? .serial : .concurrent)
        let counters = DrainCounters(producers)
        let drained = Latch()
        // Every producer submits one closure, made before the clock starts, `perProducer` times: no allocation of the
        // workload's own per block.
        let blocks = (0..<producers).map { producer -> @Sendable () -> Void in
            if serial { return { counters.countExclusive(producer) } }
            return { counters.add(producer) }
        }
        var finished = false
        let elapsed = try Crew.run(
            producers, until: context.deadline,
            finish: {
                // On the concurrent queue a barrier starts only after every earlier block finished; on the serial queue
                // any block does. Either way, when it runs the queue has drained.
                let drain: @Sendable () -> Void = {
                    counters.recordDrain()
                    drained.countDown()
                }
                if serial { queue.async(drain) } else { queue.barrierAsync(drain) }
                finished = drained.wait(until: context.deadline)
            }
        ) { producer in
            let block = blocks[producer]
            for _ in 0..<perProducer { queue.async(block) }
        }
        if !finished {
            throw WorkloadError(
                "timed out waiting for the \(serial ? "serial" : "concurrent") queue to drain",
                timedOut: true)
        }
        for producer in 0..<producers {
            try WorkloadError.check(
                "the blocks run of producer \(producer)", counters.value(producer),
                expected: perProducer)
        }
        try WorkloadError.check("the blocks run before the drain block", counters.atDrain, expected: total)
        try WorkloadError.check("blocks of the serial queue that overlapped another", counters.overlaps, expected: 0)
        return Trial(operations: total, elapsed: elapsed)
    }
}

/// One padded counter per producer (see `PaddedCounters`), and the total the drain block saw.
@usableFromInline final class DrainCounters: PaddedCounters, @unchecked Sendable {
    /// The sum of the counts when the drain block ran; written by that block, read after the drain latch opened.
    @usableFromInline var atDrain = -1

    /// A block of the serial queue, bracketed so an overlap shows.
    @inline(__always)
    @inlinable func countExclusive(_ producer: Int) {
        enterExclusive(producer)
        leaveExclusive(producer)
    }

    /// The drain block: the queue orders every earlier block before it, so the counts are final here.
    @inlinable func recordDrain() { atDrain = total }
}
