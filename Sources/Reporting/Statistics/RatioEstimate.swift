import Bench
import Glibc

/// The ratio of two contenders' headlines with its 95% confidence interval.
///
/// The method: ratios are taken on logarithms, where a ratio is a difference and ×2 and ×0.5 are equally far from 1
/// (Fleming and Wallace, "How not to lie with statistics: the correct way to summarize benchmark results", CACM 29(3),
/// 1986, for the geometric mean). Paired: each round r where both contenders measured gives d_r = ln(a_r / b_r); the
/// estimate is exp(mean d), the geometric mean of the per-round ratios, and the interval exp(mean d ± t · s / √n) with
/// Student's t at n − 1 degrees of freedom, the paired t-interval. Since `arena bench` starts a fresh process per
/// contender and round by default, the rounds vary in everything a second run would vary in (the process, its memory
/// layout, its pool's state, the machine's load at the time), which is the level Kalibera and Jones ("Rigorous
/// benchmarking in reasonable time", ISMM 2013) show an interval must be built at. Unpaired (the C floor, measured by
/// another program; two runs compared): Welch's t-interval on the difference of the mean logarithms. Over several
/// points: the mean of the points' mean logarithms, its variance the sum of theirs over the count squared, and
/// Welch–Satterthwaite's degrees of freedom. Fractional degrees of freedom round down, which widens the interval.
public struct RatioEstimate: Sendable, Equatable, Codable {
    /// The estimate: a geometric mean of ratios.
    public var value: Double
    /// The 95% interval's ends; `nil` with fewer than two samples, where there is no spread to build one from.
    public var low: Double?
    public var high: Double?
    /// How many paired rounds (or, unpaired, the smaller sample) the estimate rests on; over points, how many points.
    public var samples: Int

    public init(value: Double, low: Double?, high: Double?, samples: Int) {
        self.value = value
        self.low = low
        self.high = high
        self.samples = samples
    }

    /// An estimate whose interval spans more than this factor (high over low) is unstable: the rounds disagree so
    /// much (a contender flipping between modes, a round gone wrong) that a second run would give another number.
    public static let unstableWidth = 2.0

    /// Whether the interval spans more than `unstableWidth`: reports say "unstable" and give the interval, not the
    /// estimate. An estimate without an interval is not called unstable.
    public var isUnstable: Bool {
        guard let low, let high, low > 0 else { return false }
        return high / low > Self.unstableWidth
    }

    /// Whether the interval lies wholly above 1 or wholly below it: the two differ beyond what the rounds vary by.
    public var separatesFromOne: Bool {
        guard let low, let high else { return false }
        return low > 1 || high < 1
    }

    /// Whether the interval includes `other`'s (both have intervals and they overlap).
    public func overlaps(_ other: RatioEstimate) -> Bool {
        guard let low, let high, let otherLow = other.low, let otherHigh = other.high else { return false }
        return low <= otherHigh && otherLow <= high
    }

    /// The same ratio the other way round (b / a).
    public var inverted: RatioEstimate {
        RatioEstimate(value: 1 / value, low: high.map { 1 / $0 }, high: low.map { 1 / $0 }, samples: samples)
    }

    // MARK: Making one

    /// The paired estimate of a / b over the rounds both have (keys: round numbers); `nil` without a shared round or
    /// with a value that is not positive (a logarithm needs one).
    public static func paired(_ a: [Int: Double], _ b: [Int: Double]) -> RatioEstimate? {
        pairedLogs(a, b)?.estimate
    }

    /// The unpaired estimate of a / b (Welch, on logarithms); `nil` for an empty sample or a value not positive. With
    /// a single value on either side there is no interval.
    public static func unpaired(_ a: [Double], _ b: [Double]) -> RatioEstimate? {
        let samples = min(a.count, b.count)
        if let logs = unpairedLogs(a, b) { return logs.estimate(samples: samples) }
        guard samples > 0, (a + b).allSatisfy({ $0 > 0 }) else { return nil }
        let mean = a.map { log($0) }.reduce(0, +) / Double(a.count) - b.map { log($0) }.reduce(0, +) / Double(b.count)
        return RatioEstimate(value: exp(mean), low: nil, high: nil, samples: samples)
    }

    /// The paired logarithms of a / b over the shared rounds, as `LogMean`; `nil` without a shared round or with a
    /// value that is not positive.
    static func pairedLogs(_ a: [Int: Double], _ b: [Int: Double]) -> LogMean? {
        let rounds = a.keys.filter { b[$0] != nil }.sorted()
        guard rounds.allSatisfy({ a[$0]! > 0 && b[$0]! > 0 }) else { return nil }
        return LogMean(rounds.map { log(a[$0]!) - log(b[$0]!) })
    }

    /// The difference of the mean logarithms of two unpaired samples, as `LogMean` (Welch); `nil` for an empty sample,
    /// a single value on either side, or a value that is not positive.
    static func unpairedLogs(_ a: [Double], _ b: [Double]) -> LogMean? {
        guard a.count > 1, b.count > 1, (a + b).allSatisfy({ $0 > 0 }),
            let first = LogMean(a.map { log($0) }), let second = LogMean(b.map { log($0) })
        else { return nil }
        return LogMean.combine(difference: first.mean - second.mean, parts: [first, second])
    }

    /// The estimate over several points' paired logarithms (`LogMean`), each point weighing the same; `nil` for none.
    /// Points with a single round carry no spread: with any of them the estimate has no interval.
    public static func combined(_ points: [LogMean]) -> RatioEstimate? {
        guard !points.isEmpty else { return nil }
        let mean = points.map(\.mean).reduce(0, +) / Double(points.count)
        guard points.allSatisfy({ $0.count > 1 }) else {
            return RatioEstimate(value: exp(mean), low: nil, high: nil, samples: points.count)
        }
        let scale = 1 / Double(points.count)
        let scaled = points.map {
            LogMean(
                mean: $0.mean, varianceOfMean: $0.varianceOfMean * scale * scale, count: $0.count,
                degreesOfFreedom: $0.degreesOfFreedom)
        }
        return LogMean.combine(difference: mean, parts: scaled)?.estimate(samples: points.count)
    }
}

/// The mean of a sample of logarithms with the variance of that mean: what a ratio's interval is built from, and
/// what combines over points.
public struct LogMean: Sendable, Equatable {
    public let mean: Double
    /// s² / n: the variance of the mean (0 for one value).
    public let varianceOfMean: Double
    /// Values in the sample.
    public let count: Int
    /// Degrees of freedom of the interval (n − 1, or Welch–Satterthwaite's when combined).
    public let degreesOfFreedom: Double

    init(mean: Double, varianceOfMean: Double, count: Int, degreesOfFreedom: Double? = nil) {
        self.mean = mean
        self.varianceOfMean = varianceOfMean
        self.count = count
        self.degreesOfFreedom = degreesOfFreedom ?? Double(count - 1)
    }

    /// The sample's mean and variance of the mean; `nil` for an empty one.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let variance = values.count > 1 ? squares / Double(values.count - 1) : 0
        self.init(mean: mean, varianceOfMean: variance / Double(values.count), count: values.count)
    }

    /// The estimate exp(mean) with its interval; none for a single value.
    var estimate: RatioEstimate { estimate(samples: count) }

    func estimate(samples: Int) -> RatioEstimate {
        guard count > 1 || degreesOfFreedom >= 1 else { return RatioEstimate(value: exp(mean), low: nil, high: nil, samples: samples) }
        let half = Summary.tCritical(degreesOfFreedom: max(1, Int(degreesOfFreedom))) * varianceOfMean.squareRoot()
        return RatioEstimate(value: exp(mean), low: exp(mean - half), high: exp(mean + half), samples: samples)
    }

    /// A sum or difference of independent means (`difference` its value): the variances add, and the degrees of
    /// freedom are Welch–Satterthwaite's, (Σ vᵢ)² / Σ (vᵢ² / dfᵢ). `nil` when a part has no degrees of freedom.
    static func combine(difference: Double, parts: [LogMean]) -> LogMean? {
        guard parts.allSatisfy({ $0.degreesOfFreedom >= 1 }) else { return nil }
        let variance = parts.map(\.varianceOfMean).reduce(0, +)
        let denominator = parts.map { $0.varianceOfMean * $0.varianceOfMean / $0.degreesOfFreedom }.reduce(0, +)
        let freedom = denominator > 0 ? variance * variance / denominator : parts.map(\.degreesOfFreedom).reduce(0, +)
        return LogMean(mean: difference, varianceOfMean: variance, count: 2, degreesOfFreedom: freedom)
    }
}
