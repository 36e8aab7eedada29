import Histogram

/// Per-operation latencies in nanoseconds, in an HDR histogram (1 ns to 100 s, three significant digits).
///
/// Recording costs a few nanoseconds and never allocates; the histogram is about 230 KiB. It is a value type and
/// not thread-safe: each recording thread keeps its own and the workload merges them when the threads are done.
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 100_000_000_000, numberOfSignificantValueDigits: .three)

    public init() {}

    /// Records one latency; values beyond 100 s are recorded as 100 s.
    public mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(Swift.min(nanoseconds, 100_000_000_000))
    }

    /// Adds every value `other` recorded.
    public mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    /// How many latencies were recorded.
    public var count: UInt64 { histogram.totalCount }

    /// The percentiles reports show; `nil` when nothing was recorded.
    public var percentiles: LatencyPercentiles? {
        guard histogram.totalCount > 0 else { return nil }
        return LatencyPercentiles(
            count: Int(histogram.totalCount),
            p50: Double(histogram.valueAtPercentile(50)), p90: Double(histogram.valueAtPercentile(90)),
            p99: Double(histogram.valueAtPercentile(99)), max: Double(histogram.max))
    }
}

/// Latency percentiles of a trial or a point, in nanoseconds.
public struct LatencyPercentiles: Sendable, Codable, Equatable {
    public var count: Int
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double

    public init(count: Int, p50: Double, p90: Double, p99: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }
}

extension LatencyPercentiles {
    /// Percentiles of several parts measured apart (repetitions, or the processes of one point), where the histograms
    /// are no longer at hand: each percentile the median of the parts', the max the largest, the counts summed.
    /// An estimate (percentiles do not add up), which reports mark no differently; `nil` for no parts.
    public static func estimate(merging parts: [LatencyPercentiles]) -> LatencyPercentiles? {
        guard !parts.isEmpty else { return nil }
        if parts.count == 1 { return parts[0] }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        return LatencyPercentiles(
            count: parts.reduce(0) { $0 + $1.count }, p50: median(parts.map(\.p50)), p90: median(parts.map(\.p90)),
            p99: median(parts.map(\.p99)), max: parts.map(\.max).max()!)
    }
}
