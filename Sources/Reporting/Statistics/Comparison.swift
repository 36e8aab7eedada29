import Bench

/// Two runs compared: point by point, and answer by answer.
///
/// Point by point: for every point of the first run, the headline medians, the ratio of the second run's headline to
/// the first's with its 95% interval (`RatioEstimate.unpaired`: Welch on the logarithms of the repetitions, the same
/// machinery as a run's own ratios: a ratio of geometric means, not of the medians), the U test's p-value, and
/// whether the second run is worse beyond a threshold. `arena compare` prints it and gates on it. Points are matched
/// by benchmark name; a point only the second run has is new, not a change, and is not listed.
///
/// Answer by answer (`Stability`): whether each run's ratios to its references, and each workload's verdict, survive
/// the other run: what two runs of one commit say about how far a report can be trusted.
public struct Comparison: Sendable {
    /// What became of one point.
    public enum Verdict: String, Sendable {
        /// Within the threshold, or not beyond the noise (the ratio's interval includes 1).
        case same
        /// Better beyond the threshold and beyond the noise.
        case improved
        /// Worse beyond the threshold and beyond the noise: the gate fails.
        case regressed
        /// Measured before, failed now: the gate fails.
        case failed
        /// Failed before, measured now.
        case fixed
        /// Failed in both runs.
        case bothFailed = "both failed"
        /// In the first run only.
        case missing
    }

    /// One point of the first run.
    public struct Row: Sendable {
        public let workload: String
        /// The benchmark name (`contention/system/mode:sync/threads:4`).
        public let name: String
        /// The headline's unit, as tables title it.
        public let unit: String
        public let baseline: Double?
        public let candidate: Double?
        /// candidate / baseline with its 95% interval, when both were measured.
        public let ratio: RatioEstimate?
        /// The two-sided Mann–Whitney p-value of the headline repetitions, when each side has at least
        /// `Comparison.minimumRepetitions`.
        public let pValue: Double?
        public let verdict: Verdict
        /// Why the figures may seem to disagree, when they do: the medians moved one way and the ratio of geometric
        /// means the other (repetitions spread over modes), or a change beyond the threshold that no test could
        /// tell from the noise.
        public let note: String?
    }

    /// Fewer repetitions than this a side give no p-value: with two a side the smallest possible two-sided p is 1/3,
    /// so the test could never say anything.
    public static let minimumRepetitions = 3

    public let threshold: Double
    /// The level a p-value must be below for a change to count (`--significance`), when one was given.
    public let significance: Double?
    public let rows: [Row]
    /// How the two runs' answers agree.
    public let stability: Stability

    /// The p-value below which the U test tells a change from the noise where the ratio has no interval (a value not
    /// positive), unless `significance` sets another.
    public static let defaultSignificance = 0.05

    /// Compares `candidate` against `baseline`. A point is `regressed` (or `improved`) when its headline moved by
    /// more than `threshold` (a fraction: 0.1 is 10%) of the baseline's median against (or in) the headline's
    /// direction, and beyond the noise: the ratio's 95% interval excludes 1, or, where the ratio has no interval
    /// (a value not positive), the U test's p-value is below `significance` (0.05 by default); a point with neither
    /// cannot be told from the noise and is `same`, with a note. When `significance` is given, a p-value that exists
    /// must be below it too.
    public init(baseline: RunAnalysis, candidate: RunAnalysis, threshold: Double, significance: Double? = nil) {
        self.threshold = threshold
        self.significance = significance
        var rows: [Row] = []
        for workload in baseline.workloads {
            let headline = workload.headline
            let other = candidate.workloads.first { $0.name == workload.name }
            for before in workload.results {
                let after = other?.results.first { $0.name == before.name }
                let old = PointStatistics(before, headline: headline)
                let new = after.map { PointStatistics($0, headline: headline) }
                let oldMedian = old.headlineSummary?.median
                let newMedian = new?.headlineSummary?.median
                var ratio: RatioEstimate?
                var pValue: Double?
                var note: String?
                let verdict: Verdict
                switch (oldMedian, newMedian) {
                case (_, _) where after == nil: verdict = .missing
                case (nil, nil): verdict = .bothFailed
                case (nil, _?): verdict = .fixed
                case (_?, nil): verdict = .failed
                case (let a?, let b?):
                    let oldValues = old.headlineValues, newValues = new!.headlineValues
                    ratio = RatioEstimate.unpaired(newValues, oldValues)
                    if oldValues.count >= Self.minimumRepetitions && newValues.count >= Self.minimumRepetitions {
                        pValue = MannWhitney.pValue(oldValues, newValues)
                    }
                    // Signed so that a positive change is always for the better.
                    let change = headline.higherIsBetter ? b - a : a - b
                    let beyond = abs(change) > threshold * abs(a)
                    let level = significance ?? Self.defaultSignificance
                    let tested: Bool
                    if let ratio, ratio.low != nil {
                        tested = ratio.separatesFromOne && (significance == nil || pValue.map { $0 < level } ?? true)
                    } else if let pValue {
                        tested = pValue < level
                    } else {
                        tested = false
                        if beyond { note = "no test: a single repetition or a value not positive; beyond the threshold, untested" }
                    }
                    verdict = !(beyond && tested) ? .same : change < 0 ? .regressed : .improved
                    if let ratio, a > 0, b > 0, (b / a - 1) * (ratio.value - 1) < 0 {
                        note =
                            "the medians moved one way, the geometric means the other: the repetitions spread (see their CV)"
                    }
                }
                rows.append(
                    Row(
                        workload: workload.name, name: before.name, unit: headline.title,
                        baseline: oldMedian, candidate: newMedian, ratio: ratio, pValue: pValue, verdict: verdict, note: note))
            }
        }
        self.rows = rows
        stability = Stability(baseline, candidate)
    }

    /// The rows that fail the gate: regressed beyond the threshold, or failed where they had a number before.
    public var regressions: [Row] { rows.filter { $0.verdict == .regressed || $0.verdict == .failed } }
}

/// Whether two runs give the same answers: each contender's ratio to its workload's reference at each point, and
/// each workload's verdict. Two runs of one commit on one machine measure how far a report's answers can be trusted.
public struct Stability: Sendable {
    /// Two runs agree on a ratio when the larger of the two is at most this factor above the smaller (×1.15: 15%):
    /// what a run's shared rounds aim at (`RoundAllocation.agreement`).
    public static let agreement = RoundAllocation.agreement

    /// One contender's ratio to the reference at one point, in both runs.
    public struct Pair: Sendable {
        public let workload: String
        public let engine: String
        public let path: String
        public let reference: String
        public let first: RatioEstimate
        public let second: RatioEstimate
        /// Whether either run marks the point unstable (and gives no ratio for it).
        public let unstable: Bool
        /// Whether the engine holds no reference role (a home engine, not another layer's reference).
        public let plain: Bool

        /// Whether the two estimates are within `Stability.agreement` of each other.
        public var agrees: Bool { max(first.value, second.value) / min(first.value, second.value) <= Stability.agreement }
        /// Whether the two 95% intervals overlap.
        public var overlaps: Bool { first.overlaps(second) }
    }

    /// One workload's verdict in both runs.
    public struct Verdicts: Sendable {
        public let workload: String
        public let first: WorkloadAnalysis.Verdict
        public let second: WorkloadAnalysis.Verdict
        /// Whether neither run's verdict is near the edge (`WorkloadAnalysis.nearEdge`).
        public let firm: Bool

        /// The same leader, or a tie in both (`Verdict.agrees(with:)`).
        public var agree: Bool { first.agrees(with: second) }

        /// One leader in one run and another leader in the other.
        public var flipped: Bool {
            guard let a = first.leader, let b = second.leader else { return false }
            return a != b
        }
    }

    public let pairs: [Pair]
    public let verdicts: [Verdicts]

    /// The pairs and verdicts of the workloads both runs measured with the same reference.
    public init(_ first: RunAnalysis, _ second: RunAnalysis) {
        var pairs: [Pair] = []
        var verdicts: [Verdicts] = []
        for a in first.workloads {
            guard let b = second.workloads.first(where: { $0.name == a.name }), let reference = a.reference,
                b.reference == reference
            else { continue }
            let (x, y) = (a.judgement, b.judgement)
            verdicts.append(
                Verdicts(workload: a.name, first: x.verdict, second: y.verdict, firm: x.nearEdge == nil && y.nearEdge == nil))
            let roles = Set(first.record.contenders.filter { !$0.roles.isEmpty }.map(\.name))
            for path in a.paths {
                for engine in a.engines where engine != reference && !a.isFloor(engine) {
                    guard let x = a.ratioToReference(engine, at: path), let y = b.ratioToReference(engine, at: path) else {
                        continue
                    }
                    let unstable = x.isUnstable || y.isUnstable
                    pairs.append(
                        Pair(
                            workload: a.name, engine: engine, path: path, reference: reference, first: x, second: y,
                            unstable: unstable, plain: !roles.contains(engine)))
                }
            }
        }
        self.pairs = pairs
        self.verdicts = verdicts
    }

    /// The summary in a few lines: ratios that agree and whose intervals overlap, over every contender and over the
    /// contenders holding no reference role, with and without the unstable points; verdicts that agree or flip.
    public var summary: String {
        func line(_ label: String, _ chosen: [Pair]) -> String {
            guard !chosen.isEmpty else { return "\(label): none\n" }
            let agree = chosen.filter(\.agrees).count
            let overlap = chosen.filter(\.overlaps).count
            let withInterval = chosen.filter { $0.first.low != nil && $0.second.low != nil }.count
            return
                "\(label): \(agree) of \(chosen.count) agree within \(Figures.fixed((Self.agreement - 1) * 100, 0))% "
                + "(\(Figures.percent(Double(agree) / Double(chosen.count)))); the 95% intervals overlap for \(overlap) of "
                + "\(withInterval) (\(Figures.percent(withInterval > 0 ? Double(overlap) / Double(withInterval) : 0)))\n"
        }
        let plain = pairs.filter(\.plain)
        var text = "Ratios to the reference, run A against run B:\n"
        text += line("  every contender", pairs)
        text += line("  contenders holding no reference role", plain)
        text += line("  the same, stable points only (a ratio is given)", plain.filter { !$0.unstable })
        let agree = verdicts.filter(\.agree).count
        let flipped = verdicts.filter(\.flipped)
        text +=
            "Verdicts: \(agree) of \(verdicts.count) workloads agree (the same leader, or a tie in both); "
            + "\(flipped.count) name one leader in A and another in B"
            + (flipped.isEmpty ? "" : " (" + flipped.map(\.workload).joined(separator: ", ") + ")") + "\n"
        let (firm, edge) = (verdicts.filter(\.firm), verdicts.filter { !$0.firm })
        text +=
            "  of the \(firm.count) neither run calls near the edge, \(firm.filter(\.agree).count) agree; "
            + "of the \(edge.count) near the edge in either, \(edge.filter { !$0.agree }.count) do not\n"
        for verdict in verdicts where !verdict.agree {
            text +=
                "  \(verdict.workload): A \(Self.describe(verdict.first)); B \(Self.describe(verdict.second))"
                + (verdict.firm ? "" : " (near the edge)") + "\n"
        }
        return text
    }

    static func describe(_ verdict: WorkloadAnalysis.Verdict) -> String {
        switch verdict {
        case .leader(let leader, let runnerUp, let margin): "\(leader) leads \(runnerUp) \(ConsoleReport.summaryText(margin))"
        case .tie(let a, let b, let margin): "tie \(a), \(b)" + (margin.map { " " + ConsoleReport.summaryText($0) } ?? "")
        case .alone(let engine): "\(engine) alone"
        case .noReference: "no reference"
        }
    }
}
