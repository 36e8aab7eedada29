/// The figures reports show for one point, derived from its raw `PointResult` under the workload's `Headline`.
///
/// A pure function of its inputs: the same result and headline always give the same statistics, so the JSON, the
/// CSV and any table agree, and a result read back from a file yields what was shown when it was measured.
public struct PointStatistics: Sendable, Equatable {
    /// The headline the figures were derived under.
    public let headline: Headline
    /// The headline value of each repetition, in order; a repetition without the headline counter is left out.
    public let headlineValues: [Double]
    /// The statistics of `headlineValues`; `nil` when the point failed or no repetition had the headline counter.
    public let headlineSummary: Summary?
    /// Wall nanoseconds per operation over the repetitions (Google Benchmark's `real_time`).
    public let realNanosecondsPerOperation: Summary?
    /// CPU nanoseconds (all threads of the process) per operation over the repetitions (`cpu_time`).
    public let cpuNanosecondsPerOperation: Summary?
    /// Items per wall second over the repetitions (`items_per_second`).
    public let itemsPerSecond: Summary?
    /// Every counter any repetition reported, over the repetitions that reported it.
    public let counters: [String: Summary]
    /// What a reader should know before trusting the numbers, one short phrase each: "error: …", "stopped: …",
    /// "cv 14.2% > 10%" (the headline is noisy), a missing headline counter. Empty for a clean point.
    public var flags: [String] { problems + (noiseFlag.map { [$0] } ?? []) }
    /// The flags but the CV's: a failure, no repetitions, a missing headline counter (a report that marks noise by a
    /// rule of its own adds that itself).
    public let problems: [String]
    /// "cv 14.2% > 10%" when the headline's CV is above `Summary.cvThreshold`.
    public let noiseFlag: String?

    /// Derives the figures of `result` under `headline`.
    public init(_ result: PointResult, headline: Headline) {
        self.headline = headline
        // A failed point keeps no repetitions (the runner drops them), but a hand-made or partial record might:
        // figures of a point that failed are never shown, so they are not computed.
        let repetitions = result.failure == nil ? result.repetitions : []
        headlineValues = repetitions.compactMap { Self.headlineValue(of: $0, under: headline) }
        headlineSummary = Summary(headlineValues)
        realNanosecondsPerOperation = Summary(repetitions.map(\.nanosecondsPerOperation))
        cpuNanosecondsPerOperation = Summary(repetitions.map(\.cpuNanosecondsPerOperation))
        itemsPerSecond = Summary(repetitions.map(\.itemsPerSecond))
        var counters: [String: Summary] = [:]
        for name in Set(repetitions.flatMap(\.counters.keys)) {
            counters[name] = Summary(repetitions.compactMap { $0.counters[name] })
        }
        self.counters = counters

        var problems: [String] = []
        var noiseFlag: String?
        if let failure = result.failure {
            problems.append("\(failure.kind.rawValue): \(failure.message)")
        } else if repetitions.isEmpty {
            problems.append("error: no repetitions")
        } else {
            if case .counter(let name, _, _) = headline, headlineValues.count < repetitions.count {
                problems.append(
                    "counter '\(name)' missing in \(repetitions.count - headlineValues.count) of \(repetitions.count) repetitions")
            }
            if let summary = headlineSummary, summary.isNoisy {
                noiseFlag =
                    "cv \(Figures.fixed(summary.coefficientOfVariation * 100, 1))% > \(Figures.fixed(Summary.cvThreshold * 100, 0))%"
            }
        }
        self.problems = problems
        self.noiseFlag = noiseFlag
    }

    /// The counter names, sorted, so columns and fields come out in the same order every time.
    public var counterNames: [String] { counters.keys.sorted() }

    /// Whether the headline's repetitions disagree by more than `Summary.cvThreshold`.
    public var isNoisy: Bool { headlineSummary?.isNoisy ?? false }

    /// The headline value of one repetition: items/s for throughput, wall ns/op for time per operation, the named
    /// counter (or `nil` when the repetition lacks it) for a counter headline.
    public static func headlineValue(of repetition: Repetition, under headline: Headline) -> Double? {
        switch headline {
        case .throughput: repetition.itemsPerSecond
        case .timePerOperation: repetition.nanosecondsPerOperation
        case .counter(let name, _, _): repetition.counters[name]
        }
    }

    /// The headline of each of `result`'s repetitions by round (a repetition without a round counts as its position);
    /// empty for a failed result. What paired ratios are taken over.
    public static func headlineValuesByRound(of result: PointResult, under headline: Headline) -> [Int: Double] {
        guard result.failure == nil else { return [:] }
        var values: [Int: Double] = [:]
        for (index, repetition) in result.repetitions.enumerated() {
            if let value = headlineValue(of: repetition, under: headline) { values[repetition.round ?? index] = value }
        }
        return values
    }
}
