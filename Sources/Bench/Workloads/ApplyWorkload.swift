import ArenaContract

/// `apply`: `apply` over n iterations, each doing w of calibrated busy work (never a sleep), against a plain loop
/// doing the same work on one thread.
///
/// The headline is iterations per second; the `speedup` counter divides the plain loop's time by apply's, both
/// measured in the same child process (the ideal is the core count). The answer checked: after a trial, every index
/// ran exactly once per apply call.
public struct ApplyWorkload: Workload {
    public let name = "apply"
    public let summary = "apply over n iterations of w busy work each, with the speedup over a plain loop"
    public let headline = Headline.throughput(unit: "iterations/s")
    public let figure = PlotFigure.bundled("apply.gp")

    /// Work per iteration (names and CSV cells write it `0ns`, `100ns`, `1us`, `10us`).
    static let works: [Duration] = [.zero, .nanoseconds(100), .microseconds(1), .microseconds(10)]

    public init() {}

    /// n × work: iteration counts and work per iteration (a quick run measures fewer of each).
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.integer("n", Self.sizes(settings)), .duration("work", Self.works(settings))]
    }

    public func points(_ settings: BenchSettings) -> [Point] {
        Self.sizes(settings).flatMap { n in
            Self.works(settings).compactMap { work in
                // A quick run skips the one point that would take seconds per call.
                settings.quick && Int64(n) * work.nanosecondsClamped > 100_000_000
                    ? nil
                    : Point(workload: name, parameters: [Parameter("n", n), Parameter("work", work)])
            }
        }
    }

    /// The iteration counts under `settings`.
    static func sizes(_ settings: BenchSettings) -> [Int] {
        settings.quick ? [1_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000]
    }

    /// The work per iteration under `settings`: a quick run leaves out 100 ns.
    static func works(_ settings: BenchSettings) -> [Duration] {
        settings.quick ? works.filter { $0 != .nanoseconds(100) } : works
    }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let (n, steps) = size(of: point, context)
        let hits = HitCounts(n)
        defer { hits.deallocate() }
        let spinner = context.spinner
        let watch = Stopwatch()
        for _ in 0..<operations {
            engine.apply(iterations: n) { index in
                spinner.work(steps: steps)
                hits.record(index)
            }
            if Deadline.now() >= context.deadline { throw WorkloadError("apply calls did not finish in the time budget", timedOut: true) }
        }
        let elapsed = watch.read()
        try hits.check(eachSeen: operations)
        return Trial(operations: operations, items: operations * n, elapsed: elapsed)
    }

    public func baseline(_ point: Point, operations: Int, context: TrialContext) throws(WorkloadError) -> Double? {
        let (n, steps) = size(of: point, context)
        let hits = HitCounts(n)
        defer { hits.deallocate() }
        let watch = Stopwatch()
        for _ in 0..<operations {
            for index in 0..<n {
                context.spinner.work(steps: steps)
                hits.record(index)
            }
        }
        let elapsed = watch.read()
        try hits.check(eachSeen: operations)
        return Double(elapsed.wallNanoseconds) / Double(operations)
    }

    /// The point's iteration count, and its work per iteration in spinner steps: read once, before the timed loop.
    @inlinable func size(of point: Point, _ context: TrialContext) -> (n: Int, steps: Int) {
        let nanoseconds = Int(point.duration("work").nanosecondsClamped)
        return (point.integer("n"), context.spinner.steps(forNanoseconds: nanoseconds))
    }
}

/// How often each index ran: one 32-bit count per index. Distinct indices touch distinct counts, so a correct apply
/// writes them without a race; an index run twice shows up as a count too high, a skipped one as too low.
@usableFromInline struct HitCounts: @unchecked Sendable {
    @usableFromInline let counts: UnsafeMutableBufferPointer<UInt32>

    @inlinable init(_ n: Int) {
        counts = .allocate(capacity: n)
        counts.initialize(repeating: 0)
    }

    @inline(__always)
    @inlinable func record(_ index: Int) { counts[index] &+= 1 }

    /// Throws naming the first index not seen exactly `expected` times.
    @inlinable func check(eachSeen expected: Int) throws(WorkloadError) {
        if let index = counts.firstIndex(where: { Int($0) != expected }) {
            throw WorkloadError("index \(index) ran \(counts[index]) times in \(expected) apply calls")
        }
    }

    @inlinable func deallocate() { counts.deallocate() }
}
