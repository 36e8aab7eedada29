import ArenaContract
import Harness

/// `source-merge`: P threads merge the value 1 into one add source whose event handler runs on a serial queue, the
/// GCD way to coalesce many signals into a few handler calls.
///
/// The threads start together; the headline is merges per second over all threads, and the timed region ends when the
/// handler has seen the whole sum. The `handler_calls_per_merge` counter is the coalescing ratio (1: no coalescing;
/// near 0: many merges per call). The answer checked: the data over all handler calls adds up to the merges made,
/// waited for until the deadline; the source then cancels and its cancel handler runs.
public struct SourceMergeWorkload: Workload {
    public let name = "source-merge"
    public let summary = "P threads merge 1 into one add source with its handler on a serial queue; the coalescing ratio"
    public let headline = Headline.throughput(unit: "merges/s")
    public let figure = PlotFigure.bundled("source-merge.gp")

    public init() {}

    /// threads: the run's thread counts.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.integer("threads", settings.threads)] }

    public func points(_ settings: BenchSettings) -> [Point] {
        settings.threads.map { threads in
            Point(workload: name, parameters: [Parameter("threads", threads)], threads: threads)
        }
    }

    /// Not scaled by the thread count: the merges share one source, so wall time per merge stays about flat as threads
    /// are added (0.3 to 1 µs on libdispatch, some µs where a merge wakes an actor).
    public func initialOperations(_ point: Point) -> Int { 5_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let threads = point.threads
        let perThread = max(1, (operations + threads - 1) / threads)
        let merges = perThread * threads
        let queue = engine.makeQueue(label: "source-merge", kind: .serial)
        let source = engine.makeUserDataSource(label: "source-merge", merge: .add, queue: queue)
        let tally = MergeTally(expected: merges)
        let cancelled = Latch()
        // Weak: the source keeps its handler, so a strong capture would keep the source alive forever.
        source.setEventHandler { [weak source] in
            if let source { tally.deliver(source.data) }
        }
        source.setCancelHandler { cancelled.countDown() }
        source.activate()
        var arrived = false
        let elapsed: Stopwatch.Reading
        do {
            // The handler calls after the last merge are part of the work: the clock stops when the sum arrived.
            elapsed = try Crew.run(
                threads, until: context.deadline,
                finish: {
                    arrived = tally.arrived.wait(until: context.deadline)
                }
            ) { _ in
                for _ in 0..<perThread { source.merge(1) }
            }
        } catch {
            source.cancel()
            throw error
        }
        source.cancel()
        try WorkloadError.check(arrived ? .success : .timedOut, waitingFor: "the handler to see all \(merges) merges")
        try WorkloadError.check(
            cancelled.wait(until: context.deadline) ? .success : .timedOut,
            waitingFor: "the cancel handler")
        // The cancel handler runs after the last event handler call, and the latch orders these reads after it.
        try WorkloadError.check("the data summed over handler calls", tally.sum, expected: merges)
        return Trial(
            operations: merges, elapsed: elapsed,
            counters: ["handler_calls_per_merge": Double(tally.calls) / Double(merges)])
    }
}

/// What the handler saw: the sum of `data` and the number of calls. Only the handler touches it, and handler calls of
/// one source never overlap (they also run on a serial queue), so plain fields suffice; an engine that overlapped
/// them would lose additions, which the sum check sees.
@usableFromInline final class MergeTally: @unchecked Sendable {
    @usableFromInline let expected: Int
    /// Opens once the sum reached `expected`.
    @usableFromInline let arrived = Latch()
    @usableFromInline var sum = 0
    @usableFromInline var calls = 0
    @usableFromInline var signalled = false

    @inlinable init(expected: Int) { self.expected = expected }

    @inlinable func deliver(_ data: UInt) {
        sum &+= Int(data)
        calls &+= 1
        // Opens at the first call that reaches the total; a later surplus still shows in the final sum check.
        if !signalled && sum >= expected {
            signalled = true
            arrived.countDown()
        }
    }
}
