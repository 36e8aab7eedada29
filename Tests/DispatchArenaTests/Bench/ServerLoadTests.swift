import Bench
import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// The server under load as the record keeps it (`ServerLoadRecord`): rounds.sh's folder read, made the workload
    /// `server` (a failed run gives its variant no number), the target judged per endpoint, and `arena report --server`
    /// joining it, on hand-made runs: no server runs here (CI's server stage runs the real one).
    @Suite
    struct ServerLoadTests {
        /// One run: (round, endpoint, variant, requests per second, p99 in ms, clean?).
        typealias Row = (round: Int, endpoint: String, variant: String, rate: Double, p99: Double, ok: Bool)

        /// A folder as rounds.sh writes it: runs.tsv and a JSON per run as load.sh writes it (10 s runs). A run
        /// marked `missing` has no file (the server never listened).
        static func folder(_ rows: [Row], missing: Set<Int> = []) throws -> String {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-load-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var table = "round\tendpoint\tengine\tok\trequests_per_s\tp50_ms\tp99_ms\tothers_cores\tfile\n"
            for (index, row) in rows.enumerated() {
                let file = "r\(row.round)-\(row.endpoint)-\(row.variant).json"
                table += "\(row.round)\t\(row.endpoint)\t\(row.variant)\t\(row.ok)\t\(row.rate)\t1.0\t\(row.p99)\t0.05\t\(file)\n"
                guard !missing.contains(index) else { continue }
                let json = """
                    {"endpoint": "\(row.endpoint)", "executor": "default", "prefix": "", "threads": 2, "connections": 32,
                     "duration_s_requested": 10,
                     "wrk": {"requests": \(Int(row.rate * 10)), "duration_s": 10.000, "requests_per_s": \(row.rate),
                             "latency_ms": {"p50": 1.0, "p90": 2.0, "p99": \(row.p99), "p99_9": 9.0, "mean": 1.1, "max": 20.0},
                             "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "non_2xx_3xx": 0},
                     "server_exit": 0, "ok": \(row.ok), "problem": "\(row.ok ? "" : "GET /work after the load answered 'x'")",
                     "host": "testhost", "cores": 2, "date": "2026-12-07T10:00:00Z"}
                    """
                try json.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
            }
            try table.write(toFile: directory + "/runs.tsv", atomically: true, encoding: .utf8)
            return directory
        }

        /// Two rounds at two endpoints: `default` (the reference), `mutex` and `nio-takeover`.
        static let rows: [Row] = [
            (1, "plain", "default", 40_000, 2.0, true), (1, "plain", "mutex", 42_000, 1.9, true),
            (1, "plain", "nio-takeover", 30_000, 4.0, true), (1, "work", "default", 16_000, 3.0, true),
            (1, "work", "mutex", 15_000, 2.5, true), (1, "work", "nio-takeover", 14_000, 4.0, true),
            (2, "plain", "mutex", 44_000, 2.1, true), (2, "plain", "nio-takeover", 31_000, 4.2, true),
            (2, "plain", "default", 41_000, 2.2, true), (2, "work", "mutex", 15_500, 2.6, true),
            (2, "work", "nio-takeover", 14_500, 4.1, true), (2, "work", "default", 16_500, 3.1, true),
        ]

        @Test("rounds.sh's folder read: default named swift, variants and endpoints in order, each run's wrk figures")
        func readsTheFolder() throws {
            let record = try ServerLoadRecord.read(directory: try Self.folder(Self.rows))
            #expect(record.variants == ["swift", "mutex", "nio-takeover"])
            #expect(record.endpoints == ["plain", "work"])
            #expect(record.runs.count == 12 && record.rounds == 2)
            let load = record.load
            #expect(load.threads == 2 && load.connections == 32 && load.seconds == 10 && load.host == "testhost" && load.cores == 2)
            let first = try #require(record.runs.first)
            #expect(first.variant == "swift" && first.requests == 400_000 && first.p99 == 2.0 && first.othersCores == 0.05)
            let plain = record.served(at: "plain")
            #expect(plain.map(\.requestsPerSecond) == [40_500, 43_000, 30_500])
            #expect(plain.map(\.p99) == [2.1, 2.0, 4.1])
        }

        @Test("the target: held where the best engine beats both rivals at a p99 no worse; each shortfall named otherwise")
        func target() throws {
            let record = try ServerLoadRecord.read(directory: try Self.folder(Self.rows))
            let plain = record.target(at: "plain")
            #expect(plain.holds && plain.best?.variant == "mutex" && plain.rivals.map(\.variant) == ["swift", "nio-takeover"])
            #expect(record.targetSentence(at: "plain").hasSuffix("the target holds."))
            let work = record.target(at: "work")
            #expect(!work.holds && work.shortfalls == ["fewer requests per second than swift"])
            #expect(record.targetSentence(at: "work").contains("the target is not met (fewer requests per second than swift)"))
        }

        @Test("the workload: a point per endpoint, clean runs as repetitions in their rounds, a failed run leaves its variant no number")
        func workload() throws {
            var rows = Self.rows
            rows[4].ok = false  // work, mutex, round 1: a wrong answer after the load
            let record = try ServerLoadRecord.read(directory: try Self.folder(rows, missing: [7]))  // plain, nio, round 2: no file
            let points = record.measuredPoints(settings: BenchSettings())
            #expect(points.map(\.point.parameterPath) == ["endpoint:plain", "endpoint:work"])
            let plain = points[0]
            #expect(plain.rounds.map(\.order) == [["swift", "mutex", "nio-takeover"], ["mutex", "nio-takeover", "swift"]])
            let swift = try #require(plain.results.first { $0.engine == "swift" })
            #expect(swift.succeeded && swift.repetitions.map(\.round) == [0, 1])
            #expect(swift.repetitions[0].itemsPerSecond == 40_000 && swift.repetitions[0].latency?.p99 == 2_000_000)
            let nio = try #require(plain.results.first { $0.engine == "nio-takeover" })
            #expect(!nio.succeeded && nio.failure?.message.contains("round 2: load.sh gave no clean number") == true)
            let mutex = try #require(points[1].results.first { $0.engine == "mutex" })
            #expect(!mutex.succeeded && mutex.failure?.message == "round 1: GET /work after the load answered 'x'")
            #expect(record.served(at: "work").first { $0.variant == "mutex" }?.clean == 1)
            #expect(record.target(at: "work").best == nil)  // mutex lost its number: no engine the arena installed has one
        }

        @Test("not rounds.sh's folder: one line naming what is wrong")
        func malformed() throws {
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("server-load-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            #expect(throws: ServerLoadError.self) { try ServerLoadRecord.read(directory: empty) }
            try "round\tengine\n1\tmutex\n".write(toFile: empty + "/runs.tsv", atomically: true, encoding: .utf8)
            #expect {
                try ServerLoadRecord.read(directory: empty)
            } throws: { "\($0)".contains("is not rounds.sh's runs.tsv") }
            let none = try Self.folder([Self.rows[0]], missing: [0])
            #expect { try ServerLoadRecord.read(directory: none) } throws: { "\($0)".contains("no run gave wrk's numbers") }
        }

        @Test(
            "arena report --server joins it: the workload's section with the latencies and the target, the verdict row, the summary; a bad folder is one line, exit 64"
        )
        func reportJoinsIt() throws {
            let results = FileManager.default.temporaryDirectory.appendingPathComponent("server-report-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
            let arena = ArenaExecutable.url.path
            let bad = try PlotCLITests.run(arena, ["report", results, "--server", results], in: results)
            #expect(
                bad.status == 64 && bad.errors.contains("--server: cannot read")
                    && !FileManager.default.fileExists(atPath: results + "/run.json"))
            let joined = try PlotCLITests.run(arena, ["report", results, "--server", try Self.folder(Self.rows)], in: results)
            #expect(joined.status == 0, "\(joined.errors)")
            let report = try String(contentsOfFile: results + "/report.md", encoding: .utf8)
            #expect(report.contains("### server\n\nExamples/HummingbirdServer's arena-server"))
            #expect(report.contains("| server | req/s ↑ | swift |"))
            #expect(report.contains("**The server**") && report.contains("GET /plain: the best engine the arena installed, mutex"))
            #expect(report.contains("| /work | nio-takeover | 2 of 2 | 14250 | 14000–14500 | 1.000 | 4.050 | 0 |"))
            #expect(FileManager.default.fileExists(atPath: results + "/server.csv"))
        }
    }
}
