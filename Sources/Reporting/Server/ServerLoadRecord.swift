import Bench
import Foundation

/// A real server under load with each contender as Swift's global executor: Examples/HummingbirdServer's
/// `arena-server` (Hummingbird 2), loaded on loopback by wrk in paired rounds (`rounds.sh`: every round runs every
/// variant back to back, in an order that turns by one each round), as `arena report DIR --server ROUNDS` joins it to
/// the run record. Each run is kept as the load driver measured it; the record makes of it the workload `server`
/// (`ServerLoadRecord+Workload.swift`), so that its section, CSV, plot and verdict are every workload's, and adds the
/// latencies and the issue's target (`ServerLoadRecord+Markdown.swift`). A plain value.
public struct ServerLoadRecord: Codable, Sendable, Equatable {
    /// How the load was made: wrk's threads and connections, each run's length, where.
    public struct Load: Codable, Sendable, Equatable {
        /// wrk's `-t`.
        public var threads: Int
        /// wrk's `-c`: connections kept open at once.
        public var connections: Int
        /// Each run's requested length, in seconds (wrk's `-d`).
        public var seconds: Int
        /// The machine's name and cores (`uname -n`, `nproc`), and the first run's date (ISO 8601).
        public var host: String
        public var cores: Int
        public var date: String
    }

    /// One load run: one variant serving one endpoint in one round.
    public struct Run: Codable, Sendable, Equatable {
        /// From 1, in run order.
        public var round: Int
        /// `plain` or `work`.
        public var endpoint: String
        /// A contender under `arena exec --engine NAME`, `swift` for Swift's default executor (the server run
        /// unmodified), or `nio-takeover`.
        public var variant: String
        /// Whether the run gave a clean number: the answers checked before and after, no wrk error, no non-2xx/3xx
        /// answer, the server's clean exit.
        public var ok: Bool
        /// What went wrong when not `ok`.
        public var problem: String?
        /// What wrk counted, when it ran: requests completed, over `seconds`.
        public var requests: Int?
        public var seconds: Double?
        /// wrk's latency percentiles and maximum, in milliseconds.
        public var p50: Double?
        public var p90: Double?
        public var p99: Double?
        public var max: Double?
        /// Cores other processes kept busy on average during the run (the machine's busy time less the run's own
        /// processes'), a rough figure: 0.3 or more marks a contended run.
        public var othersCores: Double?

        /// Requests per second, when wrk ran.
        public var requestsPerSecond: Double? {
            guard let requests, let seconds, seconds > 0 else { return nil }
            return Double(requests) / seconds
        }
    }

    /// The record's name for Swift's default executor, the reference: the `swift` contender, which `arena exec` runs
    /// unmodified. `rounds.sh` calls it `default`.
    public static let reference = "swift"
    /// NIO's own takeover (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`).
    public static let nioTakeover = "nio-takeover"

    public var load: Load
    /// The variants in the order the rounds list them.
    public var variants: [String]
    /// The endpoints in the order the rounds ran them.
    public var endpoints: [String]
    /// Every run, in run order.
    public var runs: [Run]

    // MARK: Reading rounds.sh's folder

    /// One run's file as `load.sh` writes it (the parts read here).
    private struct LoadFile: Decodable {
        struct Wrk: Decodable {
            struct Latency: Decodable {
                let p50: Double
                let p90: Double
                let p99: Double
                let max: Double
            }
            let requests: Int
            let seconds: Double
            let latency: Latency

            private enum CodingKeys: String, CodingKey {
                case requests
                case seconds = "duration_s"
                case latency = "latency_ms"
            }
        }
        let threads: Int
        let connections: Int
        let requestedSeconds: Int
        let wrk: Wrk
        let ok: Bool
        let problem: String
        let host: String
        let cores: Int
        let date: String

        private enum CodingKeys: String, CodingKey {
            case threads, connections, wrk, ok, problem, host, cores, date
            case requestedSeconds = "duration_s_requested"
        }
    }

    /// The runs in `directory`, a folder `Examples/HummingbirdServer/rounds.sh --out` wrote: its `runs.tsv` (a row
    /// per run, in run order) and each run's JSON beside it. A run whose file is missing (the server never listened,
    /// an answer was wrong before any load) is a run without a number, its problem said. Throws naming what is wrong.
    public static func read(directory: String) throws -> ServerLoadRecord {
        let table = directory + "/runs.tsv"
        guard let text = Files.read(table) else { throw ServerLoadError(description: "cannot read '\(table)' (rounds.sh --out writes it)") }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = ["round", "endpoint", "engine", "ok", "requests_per_s", "p50_ms", "p99_ms", "others_cores", "file"]
        guard let first = lines.first, first == header else {
            throw ServerLoadError(
                description: "'\(table)' is not rounds.sh's runs.tsv (its header is not \(header.joined(separator: " ")))")
        }
        var runs: [Run] = []
        var load: Load?
        for (index, cells) in lines.dropFirst().enumerated() {
            guard cells.count == header.count, let round = Int(cells[0]), round > 0 else {
                throw ServerLoadError(description: "'\(table)', row \(index + 2): not a run (\(cells.joined(separator: " ")))")
            }
            let variant = cells[2] == "default" ? reference : cells[2]
            var run = Run(round: round, endpoint: cells[1], variant: variant, ok: cells[3] == "true", othersCores: Double(cells[7]))
            let path = directory + "/" + cells[8]
            if let file = Files.read(path) {
                let parsed: LoadFile
                do { parsed = try JSONDecoder().decode(LoadFile.self, from: Data(file.utf8)) } catch {
                    throw ServerLoadError(description: "'\(path)' is not load.sh's result: \(RunRecord.describe(error))")
                }
                run.requests = parsed.wrk.requests
                run.seconds = parsed.wrk.seconds
                (run.p50, run.p90, run.p99, run.max) =
                    (parsed.wrk.latency.p50, parsed.wrk.latency.p90, parsed.wrk.latency.p99, parsed.wrk.latency.max)
                run.ok = run.ok && parsed.ok
                if !parsed.problem.isEmpty { run.problem = parsed.problem }
                load =
                    load
                    ?? Load(
                        threads: parsed.threads, connections: parsed.connections, seconds: parsed.requestedSeconds,
                        host: parsed.host, cores: parsed.cores, date: parsed.date)
            } else {
                run.ok = false  // no wrk figures: no number, whatever the row says
            }
            if !run.ok && run.problem == nil {
                run.problem = "load.sh gave no clean number (no result file: the server did not start, or answered wrongly before the load)"
            }
            runs.append(run)
        }
        guard let load else { throw ServerLoadError(description: "'\(directory)' holds no run's result: no run gave wrk's numbers") }
        func ordered(_ values: [String]) -> [String] { values.reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }
        return ServerLoadRecord(load: load, variants: ordered(runs.map(\.variant)), endpoints: ordered(runs.map(\.endpoint)), runs: runs)
    }

    // MARK: Medians

    /// One variant's figures at one endpoint: the median over its clean runs of requests per second and of each
    /// latency percentile, with how many runs it has and how many of them were clean.
    public struct Served: Sendable, Equatable {
        public var variant: String
        public var runs: Int
        public var clean: Int
        public var requestsPerSecond: Double?
        public var p50: Double?
        public var p99: Double?
        /// The smallest and largest requests per second over the clean runs.
        public var range: ClosedRange<Double>?
    }

    /// Each variant's figures at `endpoint`, in variant order.
    public func served(at endpoint: String) -> [Served] {
        variants.map { variant in
            let own = runs.filter { $0.endpoint == endpoint && $0.variant == variant }
            let clean = own.filter(\.ok)
            let rates = Summary(clean.compactMap(\.requestsPerSecond))
            return Served(
                variant: variant, runs: own.count, clean: clean.count, requestsPerSecond: rates?.median,
                p50: Summary(clean.compactMap(\.p50))?.median, p99: Summary(clean.compactMap(\.p99))?.median,
                range: rates.map { $0.min...$0.max })
        }
    }
}

/// Why a server load could not be read, in one line.
public struct ServerLoadError: Error, CustomStringConvertible {
    public let description: String
}
