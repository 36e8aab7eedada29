import Bench
import FoundationEssentials

/// Reads Google Benchmark JSON back into `PointResult`s: the files `arena bench` writes, and the files Google
/// Benchmark itself writes for the native C floor (`scripts/native/floor.cpp`), whose benchmarks are named the same
/// way (`<workload>/<engine>/<name>:<value>/…`).
///
/// Only `iteration` entries are read; the aggregates are derived again from them, so a read-back result yields the
/// statistics it was reported with. What the JSON does not hold stays empty: the process's resource figures, and the
/// settings other than the repetition count. The merged latency percentiles of a point, which the JSON does not hold
/// either, are read back as the medians of its repetitions' percentiles.
public enum GoogleBenchmarkReader {
    /// What one JSON file holds.
    public struct Document: Sendable {
        /// The machine context, when the file has one `MachineContext` can read (Google Benchmark's own files lack
        /// the Swift fields, so theirs is `nil`).
        public var context: MachineContext?
        /// Google Benchmark's `context.num_cpus`, which every writer fills.
        public var numCPUs: Int?
        /// The points, in the order of their first entry.
        public var results: [PointResult]
    }

    /// A file that is not Google Benchmark JSON, or an entry that cannot be read.
    public struct ReadError: Error, CustomStringConvertible, Equatable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Parses `text` (a whole JSON file).
    public static func read(_ text: String) throws(ReadError) -> Document {
        let envelope: Envelope
        do { envelope = try JSONDecoder().decode(Envelope.self, from: Data(text.utf8)) } catch DecodingError.dataCorrupted {
            throw ReadError("not JSON")
        } catch {
            throw ReadError("not Google Benchmark JSON (a 'benchmarks' array of objects): \(error)")
        }
        var order: [String] = []
        var grouped: [String: [[String: JSON]]] = [:]
        for entry in envelope.benchmarks {
            guard entry["run_type"]?.string ?? "iteration" == "iteration" else { continue }
            guard let name = entry["run_name"]?.string ?? entry["name"]?.string else { throw ReadError("an entry has no name") }
            if grouped[name] == nil { order.append(name) }
            grouped[name, default: []].append(entry)
        }
        var results: [PointResult] = []
        for name in order {
            results.append(try result(named: name, from: grouped[name]!))
        }
        return Document(context: envelope.context, numCPUs: envelope.numCPUs, results: results)
    }

    /// The top level of a file, read in one pass: the entries, and the context as `MachineContext` when it has the
    /// fields (Google Benchmark's own lacks the Swift ones), with Google Benchmark's `num_cpus` either way.
    struct Envelope: Decodable {
        let context: MachineContext?
        let numCPUs: Int?
        let benchmarks: [[String: JSON]]

        enum Keys: String, CodingKey { case context, benchmarks }
        enum ContextKeys: String, CodingKey { case numCPUs = "num_cpus" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            benchmarks = try container.decode([[String: JSON]].self, forKey: .benchmarks)
            context = try? container.decode(MachineContext.self, forKey: .context)
            numCPUs = (try? container.nestedContainer(keyedBy: ContextKeys.self, forKey: .context))
                .flatMap { try? $0.decode(Int.self, forKey: .numCPUs) }
        }
    }

    /// The fields of an iteration entry that are not counters.
    static let identityFields: Set<String> = [
        "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
        "repetition_index", "threads", "aggregate_name", "aggregate_unit", "iterations", "real_time", "cpu_time",
        "time_unit", "items_per_second", "bytes_per_second", "label", "error_occurred", "error_message",
        "p50_ns", "p90_ns", "p99_ns", "max_ns",
    ]

    /// The segments Google Benchmark appends to a registered name: the time it measures by, which the native floor
    /// always sets (`UseRealTime`), followed by `threads:N` for a benchmark run on N threads; before it,
    /// `iterations:N` for a benchmark given a fixed count (the floor's quick contention points).
    static let timeSegments: Set<String> = ["real_time", "manual_time", "process_time"]

    /// The point a benchmark name stands for: `<workload>/<engine>/<name>:<value>/…`, with Google Benchmark's own
    /// suffix (`/iterations:N` where set, `/real_time`, then `/threads:N`) dropped. Returns the workload, the engine
    /// and the parameters.
    public static func parse(name: String) throws(ReadError) -> (workload: String, engine: String, parameters: [Parameter]) {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count >= 2, !segments[0].isEmpty, !segments[1].isEmpty else {
            throw ReadError("'\(name)' is not <workload>/<engine>/…")
        }
        var parameters: [Parameter] = []
        var index = 2
        while index < segments.count {
            let segment = segments[index]
            index += 1
            if segment.hasPrefix("iterations:"), index < segments.count, timeSegments.contains(segments[index]) {
                continue  // Google Benchmark's: a fixed iteration count, already in the `iterations` field
            }
            if timeSegments.contains(segment) {
                // Google Benchmark's own suffix: what follows is its thread count, already in the `threads` field.
                if index < segments.count, segments[index].hasPrefix("threads:") { index += 1 }
                continue
            }
            guard let colon = segment.firstIndex(of: ":"), colon != segment.startIndex else {
                throw ReadError("'\(name)': segment '\(segment)' is not <name>:<value>")
            }
            parameters.append(Parameter(String(segment[..<colon]), String(segment[segment.index(after: colon)...])))
        }
        return (segments[0], segments[1], parameters)
    }

    /// One point from its iteration entries.
    static func result(named name: String, from entries: [[String: JSON]]) throws(ReadError) -> PointResult {
        let (workload, engine, parameters) = try parse(name: name)
        let threads = entries.first?["threads"]?.number.map { Int($0) } ?? 1
        let point = Point(workload: workload, parameters: parameters, threads: threads)
        var settings = BenchSettings()
        if let failed = entries.first(where: { $0["error_occurred"]?.bool == true }) {
            let message = failed["error_message"]?.string ?? "error"
            let failure =
                message.hasPrefix("stopped: ")
                ? Failure(.stopped, String(message.dropFirst(9)))
                : Failure(.error, message.hasPrefix("error: ") ? String(message.dropFirst(7)) : message)
            settings.repetitions = Int(failed["repetitions"]?.number ?? 1)
            return PointResult(engine: engine, point: point, settings: settings, failure: failure)
        }
        var repetitions: [Repetition] = []
        for entry in entries {
            guard let iterations = entry["iterations"]?.number, let realTime = entry["real_time"]?.number else {
                throw ReadError("'\(name)': an entry without iterations or real_time")
            }
            let scale = try nanoseconds(per: entry["time_unit"]?.string ?? "ns", in: name)
            let wall = realTime * scale * iterations
            let cpu = (entry["cpu_time"]?.number ?? 0) * scale * iterations
            let items = (entry["items_per_second"]?.number).map { ($0 * wall / 1e9).rounded() } ?? 0
            var counters: [String: Double] = [:]
            for (field, value) in entry where !identityFields.contains(field) {
                guard let number = value.number else { continue }
                // The writer renames a counter that collides with a Google Benchmark field; undo it.
                let base = field.hasPrefix("counter_") ? String(field.dropFirst(8)) : field
                counters[GoogleBenchmarkReport.reservedFields.contains(base) ? base : field] = number
            }
            var latency: LatencyPercentiles?
            if let p50 = entry["p50_ns"]?.number, let p90 = entry["p90_ns"]?.number, let p99 = entry["p99_ns"]?.number,
                let max = entry["max_ns"]?.number
            {
                latency = LatencyPercentiles(count: Int(iterations), p50: p50, p90: p90, p99: p99, max: max)
            }
            repetitions.append(
                Repetition(
                    operations: Int(iterations), items: Int(items),
                    wallNanoseconds: UInt64(max(0, wall.rounded())),
                    cpuNanoseconds: UInt64(max(0, cpu.rounded())), latency: latency,
                    counters: counters))
        }
        settings.repetitions = repetitions.count
        let latencies = repetitions.compactMap(\.latency)
        let merged = latencies.count == repetitions.count ? LatencyPercentiles.estimate(merging: latencies) : nil
        return PointResult(engine: engine, point: point, settings: settings, repetitions: repetitions, latency: merged)
    }

    static func nanoseconds(per unit: String, in name: String) throws(ReadError) -> Double {
        switch unit {
        case "ns": 1
        case "us": 1e3
        case "ms": 1e6
        case "s": 1e9
        default: throw ReadError("'\(name)': unknown time_unit '\(unit)'")
        }
    }
}

/// Any JSON value, for reading documents whose fields are not known in advance (counters are extra fields).
enum JSON: Decodable, Sendable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case null
    indirect case array([JSON])
    indirect case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
}
