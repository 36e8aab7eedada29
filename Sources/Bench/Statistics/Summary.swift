/// Descriptive statistics of a sample of measurements (the repetitions of a point, usually 3 to 10 values).
///
/// A value type with no opinions about units: the caller decides what the values are (ns/op, items/s, a counter).
/// Values are taken as given; a non-finite value makes the figures non-finite, and reporters write those as empty
/// cells or 0 rather than `nan`.
public struct Summary: Sendable, Codable, Equatable {
    /// How many values the sample has (at least one).
    public let count: Int
    /// The middle value; the mean of the two middle values for an even count.
    public let median: Double
    /// The arithmetic mean.
    public let mean: Double
    /// The sample standard deviation (divided by n − 1, as Google Benchmark's `_stddev` is); 0 for one value.
    public let standardDeviation: Double
    /// `standardDeviation / |mean|`, as a fraction (0.05 is 5%); 0 when the mean is 0, where it means nothing. The
    /// absolute value keeps it a non-negative measure of spread for counters that can be negative.
    public let coefficientOfVariation: Double
    /// The smallest value.
    public let min: Double
    /// The largest value.
    public let max: Double
    /// The lower end of the 95% confidence interval of the mean (Student's t; the mean itself for one value).
    public let confidenceLow: Double
    /// The upper end of the 95% confidence interval of the mean.
    public let confidenceHigh: Double

    /// A CV above this (10%) marks a point as noisy: its repetitions disagree too much for its median to be trusted
    /// to the precision a table shows, usually because something else ran on the machine.
    public static let cvThreshold = 0.10

    /// Whether the sample is noisier than `cvThreshold`.
    public var isNoisy: Bool { coefficientOfVariation > Self.cvThreshold }

    /// Half the width of the 95% confidence interval (the "±" figure).
    public var confidenceHalfWidth: Double { (confidenceHigh - confidenceLow) / 2 }

    /// The statistics of `values`, or `nil` for an empty sample, which has none.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let count = sorted.count
        let middle = count / 2
        self.count = count
        median = count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        mean = sorted.reduce(0, +) / Double(count)
        min = sorted[0]
        max = sorted[count - 1]
        if count > 1 {
            // Two passes (mean first, then squared deviations) rather than sum-of-squares minus square-of-sum, which
            // cancels catastrophically for values like ns/op that are large and close together.
            let mean = self.mean
            let squares = sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
            standardDeviation = (squares / Double(count - 1)).squareRoot()
        } else {
            standardDeviation = 0
        }
        coefficientOfVariation = mean == 0 ? 0 : standardDeviation / abs(mean)
        let halfWidth = count > 1 ? Self.tCritical(degreesOfFreedom: count - 1) * standardDeviation / Double(count).squareRoot() : 0
        confidenceLow = mean - halfWidth
        confidenceHigh = mean + halfWidth
    }

    /// t_{0.975, df}: the two-sided 95% critical value of Student's t for `df` = 1…30, and the normal 1.96 beyond
    /// (where the table's values are within 4% of it). Benchmarks have few repetitions, so the normal value alone
    /// would make the interval far too narrow: with 5 repetitions t is 2.776, not 1.96.
    public static func tCritical(degreesOfFreedom df: Int) -> Double {
        guard df >= 1 else { return .infinity }
        return df <= tTable.count ? tTable[df - 1] : 1.96
    }

    /// t_{0.975, df} for df = 1…30, to three decimals (scipy.stats.t.ppf(0.975, df)).
    private static let tTable: [Double] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ]
}
