import ArenaContract

/// `contention`: T threads each run critical sections through one serial queue, the isolation-queue pattern of the
/// seeds (a serial queue instead of a lock around shared state).
///
/// Two modes: `sync` (every section is a `sync`), and `async-write` (writes are `async`, every second operation is
/// a `sync` read). The threads start together; the headline is critical sections per second over all threads. The
/// answer checked: the shared counter equals the writes made, and a thread's sync read sees at least its own earlier
/// writes (serial FIFO order).
public struct ContentionWorkload: Workload {
    public let name = "contention"
    public let summary = "T threads through one serial queue: sync critical sections, or async writes with sync reads"
    public let headline = Headline.throughput(unit: "ops/s")
    public let figure = PlotFigure.bundled("contention.gp")

    /// How the threads enter the queue: every section a `sync`, or `async` writes with every second operation a
    /// `sync` read.
    public enum Mode: String, ParameterChoice {
        /// Every critical section a `sync`.
        case sync
        /// Writes `async`, every second operation a `sync` read.
        case asyncWrite = "async-write"
        public static let parameterName = "mode"
    }

    public init() {}

    /// mode × threads: each mode at every thread count of the run.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.choice(Mode.self), .integer("threads", settings.threads)]
    }

    public func points(_ settings: BenchSettings) -> [Point] {
        Mode.allCases.flatMap { mode in
            settings.threads.map { threads in
                Point(workload: name, parameters: [Parameter(mode), Parameter("threads", threads)], threads: threads)
            }
        }
    }

    public func initialOperations(_ point: Point) -> Int { 1000 * point.threads }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let threads = point.threads
        let perThread = max(2, (operations + threads - 1) / threads) & ~1  // even, so async-write halves exactly
        let queue = engine.makeQueue(label: "contention", kind: .serial)
        let state = SharedCounter()
        let violations = SharedCounter()
        let elapsed: Stopwatch.Reading
        switch point.choice(Mode.self) {
        case .sync:
            elapsed = try Crew.run(threads, until: context.deadline) { _ in
                for _ in 0..<perThread { queue.sync { state.value &+= 1 } }
            }
            try WorkloadError.check("the counter", queue.sync { state.value }, expected: perThread * threads)
        case .asyncWrite:
            // The drain of the last async writes is part of the measured work.
            elapsed = try Crew.run(threads, until: context.deadline, finish: { queue.sync {} }) { _ in
                var written = 0
                for step in 0..<perThread {
                    if step & 1 == 0 {
                        queue.async { state.value &+= 1 }
                        written += 1
                    } else {
                        let seen = queue.sync { state.value }
                        if seen < written { queue.async { violations.value &+= 1 } }
                    }
                }
            }
            let (total, bad) = queue.sync { (state.value, violations.value) }
            try WorkloadError.check("the counter", total, expected: perThread / 2 * threads)
            try WorkloadError.check("sync reads that missed the reader's own earlier writes", bad, expected: 0)
        }
        return Trial(operations: perThread * threads, elapsed: elapsed)
    }
}

/// A counter that only ever changes inside blocks of one serial queue, which is what makes it safe: the queue is
/// the lock. (A broken engine that overlaps blocks loses increments, and the check sees it.)
public final class SharedCounter: @unchecked Sendable {
    /// The count; read and written only inside blocks of the queue that guards it (or after it drained).
    public var value = 0

    @inlinable public init() {}
}
