import ArenaContract
import Harness

/// `pingpong`: two serial queues bounce one token back and forth (libdispatch's pingpong test): a block on A asyncs a
/// block to B, which asyncs one back to A, and so on for N round trips.
///
/// Only one block exists at a time, so this measures the latency of an `async` that wakes another queue, not
/// throughput. The headline is time per round trip; each round trip is also timed on its own (the clock read on A
/// at every return), for the latency percentiles. The answer checked: A ran exactly N + 1 blocks and B exactly N,
/// and the final return arrived before the trial's deadline.
public struct PingPongWorkload: Workload {
    public let name = "pingpong"
    public let summary = "two serial queues async one token back and forth; time per round trip"
    public let headline = Headline.timePerOperation
    public let figure = PlotFigure.bundled("pingpong.gp")

    public init() {}

    /// No parameters.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [] }

    /// One point: the pattern has no size but the round-trip count, which the runner chooses.
    public func points(_ settings: BenchSettings) -> [Point] {
        [Point(workload: name, parameters: [])]
    }

    /// 500 round trips: a round trip costs 2–15 µs (two cross-queue hand-offs), so the first trial lasts 1–10 ms.
    public func initialOperations(_ point: Point) -> Int { 500 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let rally = Rally(
            a: engine.makeQueue(label: "pingpong.a", kind: .serial),
            b: engine.makeQueue(label: "pingpong.b", kind: .serial), roundTrips: operations)
        let watch = Stopwatch()
        rally.serve()
        guard rally.finished.wait(until: context.deadline) else {
            // Blocks may still be in flight: the rally stays alive (its closures hold it) and is leaked.
            throw WorkloadError("timed out waiting for the token's last return to A", timedOut: true)
        }
        let elapsed = watch.read()
        rally.release()
        try WorkloadError.check("the blocks run on A", rally.hitsA, expected: operations + 1)
        try WorkloadError.check("the blocks run on B", rally.hitsB, expected: operations)
        return Trial(operations: operations, elapsed: elapsed, latencies: rally.latencies)
    }
}

/// The token's state and its two blocks. Each field is written by blocks of one serial queue only (`hitsA`, `last`
/// and `latencies` on A, `hitsB` on B), and only one block exists at a time, so plain fields are safe; the queues'
/// hand-offs order them. The blocks are made once, before the clock starts, so a hop allocates nothing of the
/// workload's own.
@usableFromInline final class Rally<Queue: EngineQueue>: @unchecked Sendable {
    @usableFromInline let a: Queue
    @usableFromInline let b: Queue
    @usableFromInline let roundTrips: Int
    /// Opens when A ran the token's last return.
    @usableFromInline let finished = Latch()
    @usableFromInline var hitsA = 0
    @usableFromInline var hitsB = 0
    @usableFromInline var latencies = LatencyRecorder()
    /// When A last sent the token, in monotonic nanoseconds.
    @usableFromInline var last: UInt64 = 0
    // The blocks capture the rally strongly, a cycle that `release()` breaks after the last hop; a timed-out trial
    // leaks it rather than free memory a late block may still touch.
    @usableFromInline var onA: (@Sendable () -> Void)?
    @usableFromInline var onB: (@Sendable () -> Void)?

    @inlinable init(a: Queue, b: Queue, roundTrips: Int) {
        self.a = a
        self.b = b
        self.roundTrips = roundTrips
        onA = { self.hitA() }
        onB = { self.hitB() }
    }

    /// Sends the token to A for the first time.
    @inlinable func serve() { a.async(onA!) }

    @inlinable func hitA() {
        let now = Deadline.now().nanoseconds
        if hitsA > 0 { latencies.record(nanoseconds: now &- last) }
        hitsA += 1
        if hitsA > roundTrips {
            // Counting down is the last thing the block does: `release()` may run as soon as it happened.
            finished.countDown()
            return
        }
        last = now
        b.async(onB!)
    }

    @inlinable func hitB() {
        hitsB += 1
        a.async(onA!)
    }

    /// Breaks the blocks' cycle; only after `finished` opened, when no block reads them any more.
    @inlinable func release() {
        onA = nil
        onB = nil
    }
}
