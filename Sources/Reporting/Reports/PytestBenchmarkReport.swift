import Bench

/// Results in pytest-benchmark's JSON layout (what `pytest --benchmark-json` writes), so the tools that read it take a
/// run as it is: `pytest-benchmark compare FILE…` (tables, CSV, histograms), Bencher's `python_pytest` adapter and
/// github-action-benchmark's `pytest` tool.
///
/// pytest-benchmark measures one thing, seconds per round (lower is better), and derives `ops` = rounds / total from
/// it. Each repetition of a point is one round, and its value is the headline turned into seconds per one of its
/// units (`Measure`): ns/op becomes s/op, a throughput becomes its reciprocal (ops/s → s/op, so `ops` is the
/// throughput again), a time counter is scaled to seconds. A headline that is neither a time nor a rate (a percentage)
/// cannot be expressed, and its point's rounds are wall seconds per operation instead; `extra_info.metric` says which
/// applies, and `extra_info.headline_median` keeps the headline in its own unit either way.
///
/// A failed point is left out, as pytest-benchmark leaves out a benchmark that raised: the format has no place for an
/// error, and the Google Benchmark JSON and the CSV of the same run name it.
public enum PytestBenchmarkReport {
    /// How a headline becomes seconds per round.
    public enum Measure: Sendable, Equatable {
        /// The headline is a time: seconds = value × `scale` (ns/op: 1e-9; a counter in ms: 1e-3).
        case time(scale: Double)
        /// The headline is a rate, higher is better: seconds per unit = 1 / value (ops/s → s/op, MB/s → s/MB).
        case reciprocal
        /// The headline is neither: the rounds are wall seconds per operation.
        case wallTime
    }

    /// How `headline` is written. A counter is a time when its unit is s, ms, µs (or us) or ns and lower is better,
    /// and a rate when its unit ends in "/s" and higher is better; any other counter falls back to `.wallTime`.
    public static func measure(of headline: Headline) -> Measure {
        switch headline {
        case .timePerOperation: return .time(scale: 1e-9)
        case .throughput: return .reciprocal
        case .counter(_, let unit, let lowerIsBetter):
            if lowerIsBetter, let scale = secondsPerUnit[unit] { return .time(scale: scale) }
            if !lowerIsBetter, unit.hasSuffix("/s") { return .reciprocal }
            return .wallTime
        }
    }

    /// Seconds per unit of the time units a counter headline may have.
    static let secondsPerUnit: [String: Double] = ["s": 1, "ms": 1e-3, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ns": 1e-9]

    /// What the rounds of a point hold under `headline`, in words (`extra_info.metric`).
    public static func metric(of headline: Headline) -> String {
        switch (measure(of: headline), headline) {
        case (.time, .timePerOperation): "seconds per operation"
        case (.time, _): "\(headline.title) in seconds"
        case (.reciprocal, _): "1 / (\(headline.title)): seconds per unit"
        case (.wallTime, _): "wall seconds per operation (the headline, \(headline.title), is no time)"
        }
    }

    /// The value of one round: `repetition`'s headline in seconds per unit under `headline`, or `nil` when it has
    /// none (a missing counter, a zero rate) or it is not finite.
    public static func seconds(of repetition: Repetition, under headline: Headline) -> Double? {
        let value: Double?
        switch measure(of: headline) {
        case .time(let scale): value = PointStatistics.headlineValue(of: repetition, under: headline).map { $0 * scale }
        case .reciprocal: value = PointStatistics.headlineValue(of: repetition, under: headline).map { 1 / $0 }
        case .wallTime: value = repetition.nanosecondsPerOperation * 1e-9
        }
        guard let value, value.isFinite else { return nil }
        return value
    }

    /// The JSON document of `results` (one workload's points) under `headline`, measured on the machine `context`
    /// describes: `machine_info` (from `context`), an empty `commit_info` (a run does not know its commit),
    /// `benchmarks`, `datetime` and `version` (DispatchArena's).
    ///
    /// Per point that has rounds: `fullname` is the benchmark name (`contention/system/mode:lock/threads:4`, which
    /// Bencher and github-action-benchmark take as the name); `name` is pytest's `contention[system-mode:lock-threads:4]`;
    /// `group` is the point without its engine, so `pytest-benchmark compare` puts the engines of a point in one table;
    /// `params` holds `engine` and the point's parameters (a parameter named `engine` is written as `param_engine`);
    /// `stats` holds the rounds (`data`), `iterations` (the fewest operations of a repetition) and every figure
    /// pytest-benchmark derives from the rounds, computed its way (its quartiles, Tukey fences and `ops`).
    public static func json(_ results: [PointResult], headline: Headline, context: MachineContext) -> String {
        let benchmarks = results.compactMap { entry(of: $0, headline: headline) }
        let document = JSONValue.object([
            ("machine_info", machineInfo(context)),
            ("commit_info", .object([])),
            ("benchmarks", .array(benchmarks)),
            ("datetime", .string(context.date)),
            ("version", .string(context.libraryVersion)),
        ])
        var text = ""
        document.write(to: &text, indent: 0)
        return text + "\n"
    }

    /// pytest-benchmark's `machine_info` fields that a `MachineContext` answers, then DispatchArena's own.
    static func machineInfo(_ context: MachineContext) -> JSONValue {
        .object([
            ("node", .string(context.hostName)),
            ("system", .string("Linux")),
            ("release", .string(context.kernel)),
            (
                "cpu",
                .object([
                    ("count", .int(context.numCPUs)),
                    ("mhz_per_cpu", .int(context.mhzPerCPU)),
                    ("cpu_scaling_enabled", .bool(context.cpuScalingEnabled)),
                ])
            ),
            ("load_avg", .array(context.loadAverage.map { .double($0) })),
            ("executable", .string(context.executable)),
            ("library_version", .string(context.libraryVersion)),
            ("library_build_type", .string(context.libraryBuildType)),
            ("swift_version", .string(context.swiftVersion)),
        ])
    }

    /// The benchmark object of one point, or `nil` for a failed point or one without a single round.
    static func entry(of result: PointResult, headline: Headline) -> JSONValue? {
        guard result.succeeded else { return nil }
        let rounds = result.repetitions.compactMap { seconds(of: $0, under: headline) }
        guard let stats = RoundStatistics(rounds) else { return nil }
        let point = result.point
        let id = ([result.engine] + point.parameters.map { "\($0.name):\($0.value)" }).joined(separator: "-")
        let group = point.parameters.isEmpty ? point.workload : "\(point.workload)/\(point.parameterPath)"
        var params: [(String, JSONValue)] = [("engine", .string(result.engine))]
        for parameter in point.parameters {
            params.append((parameter.name == "engine" ? "param_engine" : parameter.name, .string(parameter.value)))
        }
        let statistics = PointStatistics(result, headline: headline)
        var extra: [(String, JSONValue)] = [
            ("workload", .string(point.workload)),
            ("engine", .string(result.engine)),
            ("threads", .int(point.threads)),
            ("headline", .string(headline.title)),
        ]
        if let median = statistics.headlineSummary?.median, median.isFinite {
            extra.append(("headline_median", .double(median)))
        }
        extra.append(("metric", .string(metric(of: headline))))
        if !statistics.flags.isEmpty { extra.append(("flags", .string(statistics.flags.joined(separator: "; ")))) }
        let settings = result.settings
        return .object([
            ("group", .string(group)),
            ("name", .string("\(point.workload)[\(id)]")),
            ("fullname", .string(result.name)),
            ("params", .object(params)),
            ("param", .string(id)),
            ("extra_info", .object(extra)),
            (
                "options",
                .object([
                    ("min_rounds", .int(settings.leastRounds)),
                    ("min_time", .double(settings.minimumSeconds)),
                    ("max_time", .double(settings.budgetSeconds)),
                ])
            ),
            (
                "stats",
                .object([
                    ("min", .double(stats.min)),
                    ("max", .double(stats.max)),
                    ("mean", .double(stats.mean)),
                    ("stddev", .double(stats.standardDeviation)),
                    ("rounds", .int(stats.rounds)),
                    ("median", .double(stats.median)),
                    ("iqr", .double(stats.q3 - stats.q1)),
                    ("q1", .double(stats.q1)),
                    ("q3", .double(stats.q3)),
                    ("iqr_outliers", .int(stats.iqrOutliers)),
                    ("stddev_outliers", .int(stats.standardDeviationOutliers)),
                    ("outliers", .string("\(stats.standardDeviationOutliers);\(stats.iqrOutliers)")),
                    ("ld15iqr", .double(stats.lowestWithinFence)),
                    ("hd15iqr", .double(stats.highestFence)),
                    ("ops", .double(stats.total == 0 ? 0 : Double(stats.rounds) / stats.total)),
                    ("total", .double(stats.total)),
                    ("data", .array(rounds.map { .double($0) })),
                    ("iterations", .int(result.repetitions.map(\.operations).min() ?? 1)),
                ])
            ),
        ])
    }

    /// The figures pytest-benchmark's `Stats` derives from a point's rounds, by its definitions: the sample standard
    /// deviation (0 for one round), its quartile methods, and its Tukey fences (`ld15iqr`, `hd15iqr`) and outlier
    /// counts.
    struct RoundStatistics {
        let rounds: Int
        let min: Double
        let max: Double
        let mean: Double
        let standardDeviation: Double
        let median: Double
        let q1: Double
        let q3: Double
        let total: Double
        /// `ld15iqr`: the lowest round at or above Q1 − 1.5 IQR.
        let lowestWithinFence: Double
        /// `hd15iqr`: pytest-benchmark's value, the first round above Q3 + 1.5 IQR, or the highest round when none is.
        let highestFence: Double
        let iqrOutliers: Int
        let standardDeviationOutliers: Int

        init?(_ data: [Double]) {
            guard let summary = Summary(data) else { return nil }
            let sorted = data.sorted()
            let count = sorted.count
            rounds = count
            min = summary.min
            max = summary.max
            mean = summary.mean
            standardDeviation = summary.standardDeviation
            median = summary.median
            total = data.reduce(0, +)
            let quartiles = Self.quartiles(sorted)
            q1 = quartiles.q1
            q3 = quartiles.q3
            let low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1)
            if count == 1 {
                lowestWithinFence = sorted[0]
                highestFence = sorted[0]
            } else {
                lowestWithinFence = sorted[sorted.firstIndex { $0 >= low } ?? count - 1]
                highestFence = sorted.first { $0 > high } ?? sorted[count - 1]
            }
            iqrOutliers = data.count { $0 < low || $0 > high }
            let (mean, deviation) = (summary.mean, summary.standardDeviation)
            standardDeviationOutliers = data.count { $0 < mean - deviation || $0 > mean + deviation }
        }

        /// Q1 and Q3 as pytest-benchmark computes them: the value itself for one round; the medians of the lower and
        /// upper halves for an even count; for an odd count, its weighted neighbours (Wikipedia's method 3).
        static func quartiles(_ sorted: [Double]) -> (q1: Double, q3: Double) {
            let count = sorted.count
            if count == 1 { return (sorted[0], sorted[0]) }
            if count % 2 == 0 {
                return (median(sorted[..<(count / 2)]), median(sorted[(count / 2)...]))
            }
            let n = count / 4
            if count % 4 == 1 {
                return (0.25 * sorted[n - 1] + 0.75 * sorted[n], 0.75 * sorted[3 * n] + 0.25 * sorted[3 * n + 1])
            }
            return (0.75 * sorted[n] + 0.25 * sorted[n + 1], 0.25 * sorted[3 * n + 1] + 0.75 * sorted[3 * n + 2])
        }

        static func median(_ sorted: ArraySlice<Double>) -> Double {
            let values = Array(sorted)
            let middle = values.count / 2
            return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
        }
    }
}
