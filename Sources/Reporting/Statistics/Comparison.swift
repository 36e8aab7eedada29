import Bench

/// Two runs compared point by point: for every point of the first, the headline medians, their ratio, the U test's
/// p-value, and whether the second run is worse beyond a threshold. `arena compare` prints it and gates on it.
/// Points are matched by benchmark name; a point only the second run has is new, not a change, and is not listed.
public struct Comparison: Sendable {
    /// What became of one point.
    public enum Verdict: String, Sendable {
        /// Within the threshold (or not significant, when a significance level is asked for).
        case same
        /// Better beyond the threshold.
        case improved
        /// Worse beyond the threshold: the gate fails.
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
        /// candidate / baseline, when both were measured.
        public let ratio: Double?
        /// The two-sided Mann–Whitney p-value of the headline repetitions, when each side has at least
        /// `Comparison.minimumRepetitions`.
        public let pValue: Double?
        public let verdict: Verdict
    }

    /// Fewer repetitions than this a side give no p-value: with two a side the smallest possible two-sided p is 1/3,
    /// so the test could never say anything.
    public static let minimumRepetitions = 3

    public let threshold: Double
    public let rows: [Row]

    /// Compares `candidate` against `baseline`. A point is `regressed` when its headline is worse by more than
    /// `threshold` (a fraction: 0.1 is 10%), in the headline's direction, and, when `significance` is given and a
    /// p-value exists, that p-value is below it.
    public init(baseline: ResultsFolder, candidate: ResultsFolder, threshold: Double, significance: Double? = nil) {
        self.threshold = threshold
        var rows: [Row] = []
        for entry in baseline.workloads {
            let headline = entry.workload.headline
            let others = candidate.workloads.first { $0.workload.name == entry.workload.name }?.results ?? []
            for before in entry.results {
                let after = others.first { $0.name == before.name }
                let old = PointStatistics(before, headline: headline)
                let new = after.map { PointStatistics($0, headline: headline) }
                let oldMedian = old.headlineSummary?.median
                let newMedian = new?.headlineSummary?.median
                var ratio: Double?
                var pValue: Double?
                let verdict: Verdict
                switch (oldMedian, newMedian) {
                case (_, _) where after == nil: verdict = .missing
                case (nil, nil): verdict = .bothFailed
                case (nil, _?): verdict = .fixed
                case (_?, nil): verdict = .failed
                case (let a?, let b?):
                    ratio = a == 0 ? nil : b / a
                    let oldValues = old.headlineValues, newValues = new!.headlineValues
                    if oldValues.count >= Self.minimumRepetitions && newValues.count >= Self.minimumRepetitions {
                        pValue = MannWhitney.pValue(oldValues, newValues)
                    }
                    // Signed so that a positive change is always for the better.
                    let change = headline.higherIsBetter ? b - a : a - b
                    let beyond = abs(change) > threshold * abs(a)
                    let significant = significance.map { level in pValue.map { $0 < level } ?? true } ?? true
                    verdict = !(beyond && significant) ? .same : change < 0 ? .regressed : .improved
                }
                rows.append(
                    Row(
                        workload: entry.workload.name, name: before.name, unit: headline.title,
                        baseline: oldMedian, candidate: newMedian, ratio: ratio, pValue: pValue, verdict: verdict))
            }
        }
        self.rows = rows
    }

    /// The rows that fail the gate: regressed beyond the threshold, or failed where they had a number before.
    public var regressions: [Row] { rows.filter { $0.verdict == .regressed || $0.verdict == .failed } }
}
