import Bench

/// Results in Google Benchmark's JSON format, so that Google Benchmark's tools read them: `compare.py benchmarks
/// old.json new.json` compares two runs (or two engines, with `filters`), and plotting scripts written for Google
/// Benchmark work unchanged.
///
/// The layout follows Google Benchmark's JSON reporter: a `context` object, then `benchmarks`, where every
/// repetition of a point is an `iteration` entry and the `_mean`, `_median`, `_stddev` and `_cv` entries follow it.
/// The JSON is written by hand with a fixed field order, so two runs diff line by line.
public enum GoogleBenchmarkReport {
    /// The fields of an entry that counters must not overwrite; a counter with one of these names is written as
    /// `counter_<name>`.
    static let reservedFields: Set<String> = [
        "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
        "repetition_index", "threads", "aggregate_name", "aggregate_unit", "iterations", "real_time", "cpu_time",
        "time_unit", "items_per_second", "p50_ns", "p90_ns", "p99_ns", "max_ns", "label", "error_occurred",
        "error_message",
    ]

    /// The JSON document of `results` (one workload's points, in the order measured) under `headline`, measured on
    /// the machine `context` describes.
    ///
    /// Per successful point: one `iteration` entry per repetition (`iterations` is the operation count, `real_time`
    /// and `cpu_time` are ns per operation, counters and latency percentiles are extra fields), then, when there are
    /// at least two repetitions (Google Benchmark writes no aggregates for one), the four aggregates of every field;
    /// `_cv` holds fractions, with `aggregate_unit` "percentage". A point whose headline CV is above
    /// `Summary.cvThreshold` has a `label` saying so on every entry. A failed point is one entry with
    /// `error_occurred`, `error_message` ("error: …" or "stopped: …") and zero times, as Google Benchmark writes an
    /// errored run: compare.py needs the time fields on every entry, and shows a failed side as a -100% change
    /// (`error_occurred` is what tells it apart from a fast one).
    ///
    /// `family_index` numbers the engines in order of first appearance and `per_family_instance_index` the points of
    /// each engine, so `compare.py`'s sorting keeps an engine's points together.
    public static func json(_ results: [PointResult], headline: Headline, context: MachineContext) -> String {
        var families: [String: Int] = [:]
        var instances: [String: Int] = [:]
        var benchmarks: [JSONValue] = []
        for result in results {
            let family = families[result.engine] ?? families.count
            families[result.engine] = family
            let instance = instances[result.engine, default: 0]
            instances[result.engine] = instance + 1
            benchmarks += entries(of: result, headline: headline, family: family, instance: instance)
        }
        let document = JSONValue.object([
            ("context", contextObject(context)),
            ("benchmarks", .array(benchmarks)),
        ])
        var text = ""
        document.write(to: &text, indent: 0)
        return text + "\n"
    }

    /// Google Benchmark's `context` fields in its order, then DispatchArena's own (`swift_version`, `kernel`).
    static func contextObject(_ context: MachineContext) -> JSONValue {
        .object([
            ("date", .string(context.date)),
            ("host_name", .string(context.hostName)),
            ("executable", .string(context.executable)),
            ("num_cpus", .int(context.numCPUs)),
            ("mhz_per_cpu", .int(context.mhzPerCPU)),
            ("cpu_scaling_enabled", .bool(context.cpuScalingEnabled)),
            (
                "caches",
                .array(
                    context.caches.map { cache in
                        .object([
                            ("type", .string(cache.type)),
                            ("level", .int(cache.level)),
                            ("size", .int(cache.size)),
                            ("num_sharing", .int(cache.numSharing)),
                        ])
                    })
            ),
            ("load_avg", .array(context.loadAverage.map { .double($0) })),
            ("library_version", .string(context.libraryVersion)),
            ("library_build_type", .string(context.libraryBuildType)),
            ("json_schema_version", .int(context.jsonSchemaVersion)),
            ("swift_version", .string(context.swiftVersion)),
            ("kernel", .string(context.kernel)),
        ])
    }

    /// The entries of one point.
    static func entries(of result: PointResult, headline: Headline, family: Int, instance: Int) -> [JSONValue] {
        let name = result.name
        let statistics = PointStatistics(result, headline: headline)
        let identity: [(String, JSONValue)] = [
            ("family_index", .int(family)),
            ("per_family_instance_index", .int(instance)),
            ("run_name", .string(name)),
        ]
        guard result.succeeded else {
            // Zero times, as Google Benchmark writes for a run with an error: compare.py reads `real_time`,
            // `cpu_time` and `time_unit` of every entry (its geometric mean takes all iterations) and fails with a
            // KeyError on an entry without them, which would make one failed point spoil a whole comparison.
            return [
                .object(
                    [("name", .string(name))] + identity + [
                        ("run_type", .string("iteration")),
                        ("repetitions", .int(result.settings.repetitions)),
                        ("repetition_index", .int(0)),
                        ("threads", .int(result.point.threads)),
                        ("error_occurred", .bool(true)),
                        ("error_message", .string(statistics.flags.first ?? "error: no repetitions")),
                        ("iterations", .int(0)),
                        ("real_time", .double(0)),
                        ("cpu_time", .double(0)),
                        ("time_unit", .string("ns")),
                    ])
            ]
        }

        let repetitions = result.repetitions
        let label: [(String, JSONValue)] = statistics.flags.isEmpty ? [] : [("label", .string(statistics.flags.joined(separator: "; ")))]
        let extraNames = statistics.counterNames
        let rows = repetitions.map { Row($0, counterNames: extraNames) }

        var entries: [JSONValue] = []
        for (index, row) in rows.enumerated() {
            var fields: [(String, JSONValue)] =
                [("name", .string(name))] + identity + [
                    ("run_type", .string("iteration")),
                    ("repetitions", .int(repetitions.count)),
                    ("repetition_index", .int(index)),
                    ("threads", .int(result.point.threads)),
                    ("iterations", .int(repetitions[index].operations)),
                    ("real_time", .double(row.realTime)),
                    ("cpu_time", .double(row.cpuTime)),
                    ("time_unit", .string("ns")),
                ]
            for (field, value) in row.extras { if let value { fields.append((field, .double(value))) } }
            entries.append(.object(fields + label))
        }

        // Google Benchmark computes no aggregates for fewer than two repetitions; neither do we.
        guard repetitions.count >= 2 else { return entries }
        let fieldNames = rows[0].extras.map(\.name)
        for aggregate in Aggregate.allCases {
            func value(_ values: [Double]) -> Double? { Summary(values).map(aggregate.pick) }
            var fields: [(String, JSONValue)] =
                [("name", .string("\(name)_\(aggregate.rawValue)"))] + identity + [
                    ("run_type", .string("aggregate")),
                    ("repetitions", .int(repetitions.count)),
                    ("threads", .int(result.point.threads)),
                    ("aggregate_name", .string(aggregate.rawValue)),
                    ("aggregate_unit", .string(aggregate == .cv ? "percentage" : "time")),
                    ("iterations", .int(repetitions.count)),
                    ("real_time", .double(value(rows.map(\.realTime)) ?? 0)),
                    ("cpu_time", .double(value(rows.map(\.cpuTime)) ?? 0)),
                    ("time_unit", .string("ns")),
                ]
            for (position, field) in fieldNames.enumerated() {
                if let aggregated = value(rows.compactMap { $0.extras[position].value }) { fields.append((field, .double(aggregated))) }
            }
            entries.append(.object(fields + label))
        }
        return entries
    }

    /// The figures of one repetition, with the extra fields in a fixed order shared by every row of a point.
    struct Row {
        let realTime: Double
        let cpuTime: Double
        /// `items_per_second`, the counters (sorted by name), then the latency percentiles; `nil` when this
        /// repetition lacks the figure.
        let extras: [(name: String, value: Double?)]

        init(_ repetition: Repetition, counterNames: [String]) {
            realTime = repetition.nanosecondsPerOperation
            cpuTime = repetition.cpuNanosecondsPerOperation
            var extras: [(name: String, value: Double?)] = [("items_per_second", repetition.itemsPerSecond)]
            for counter in counterNames {
                let field = GoogleBenchmarkReport.reservedFields.contains(counter) ? "counter_\(counter)" : counter
                extras.append((field, repetition.counters[counter]))
            }
            let latency = repetition.latency
            extras += [("p50_ns", latency?.p50), ("p90_ns", latency?.p90), ("p99_ns", latency?.p99), ("max_ns", latency?.max)]
            self.extras = extras
        }
    }

    /// Google Benchmark's default aggregates, in its order.
    enum Aggregate: String, CaseIterable {
        case mean, median, stddev, cv

        func pick(_ summary: Summary) -> Double {
            switch self {
            case .mean: summary.mean
            case .median: summary.median
            case .stddev: summary.standardDeviation
            case .cv: summary.coefficientOfVariation
            }
        }
    }
}

/// A JSON value with ordered object keys, written with two-space indentation (arrays of numbers on one line).
enum JSONValue {
    case string(String)
    case int(Int)
    /// Written in Swift's shortest round-trip form; NaN and infinities, which JSON cannot hold, are written as 0.
    case double(Double)
    case bool(Bool)
    indirect case array([JSONValue])
    indirect case object([(String, JSONValue)])

    func write(to text: inout String, indent: Int) {
        switch self {
        case .string(let string): JSONValue.writeString(string, to: &text)
        case .int(let value): text += String(value)
        case .double(let value): text += value.isFinite ? value.description : "0"
        case .bool(let value): text += value ? "true" : "false"
        case .array(let values):
            if values.allSatisfy(\.isScalar) {
                text += "["
                for (index, value) in values.enumerated() {
                    if index > 0 { text += ", " }
                    value.write(to: &text, indent: indent)
                }
                text += "]"
            } else {
                text += "[\n"
                for (index, value) in values.enumerated() {
                    text += String(repeating: " ", count: indent + 2)
                    value.write(to: &text, indent: indent + 2)
                    text += index + 1 < values.count ? ",\n" : "\n"
                }
                text += String(repeating: " ", count: indent) + "]"
            }
        case .object(let fields):
            guard !fields.isEmpty else { text += "{}"; return }
            text += "{\n"
            for (index, (key, value)) in fields.enumerated() {
                text += String(repeating: " ", count: indent + 2)
                JSONValue.writeString(key, to: &text)
                text += ": "
                value.write(to: &text, indent: indent + 2)
                text += index + 1 < fields.count ? ",\n" : "\n"
            }
            text += String(repeating: " ", count: indent) + "}"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, everything else as UTF-8.
    static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
