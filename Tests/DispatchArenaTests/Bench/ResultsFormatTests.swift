import ArenaCLI
import Foundation
import Testing

@testable import Bench
@testable import Reporting

extension ArenaTests {
    /// The reporters' seam and the run record: the registry, every reporter through `RecordWriter`, the record's file
    /// (its round trip, and the one-line errors of a missing, malformed or other-version record), a folder written
    /// before records read through its Google Benchmark JSON, the pytest-benchmark mapping, pytest-benchmark itself
    /// reading our files, and `arena bench --results-format`.
    @Suite
    struct ResultsFormatTests {
        typealias Sample = BenchReportTests

        /// A fresh folder path that does not exist yet.
        static func freshFolder() -> String {
            NSTemporaryDirectory() + "arena-formats-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        }

        // MARK: The registry

        @Test("The registry: distinct names, the files bench writes by default, lists parsed in registry order, unknown names refused")
        func registry() throws {
            let names = Reporters.builtIn.map(\.name)
            #expect(names == ["json", "csv", "pytest-benchmark", "report", "instructions", "table", "markdown"])
            #expect(Set(names).count == names.count)
            #expect(Reporters.builtIn.filter(\.writtenByBench).map(\.name) == ["json", "csv", "pytest-benchmark"])
            #expect(Reporters.builtIn.filter { !$0.writesFiles }.map(\.name) == ["table", "markdown"])
            let all = Reporters.builtIn
            #expect(try Reporters.parse(["csv,json"], from: all).map(\.name) == ["json", "csv"])
            #expect(try Reporters.parse(["pytest-benchmark", "csv, csv"], from: all).map(\.name) == ["csv", "pytest-benchmark"])
            #expect(throws: UnknownReporter(name: "jmh", known: names)) { try Reporters.parse(["json,jmh"], from: all) }
            #expect(throws: UnknownReporter(name: "", known: names)) { try Reporters.parse(["json,,csv"], from: all) }
            #expect(throws: UnknownReporter(name: "", known: names)) { try Reporters.parse([""], from: all) }
            #expect(
                "\(UnknownReporter(name: "jmh", known: ["json", "csv"]))" == "unknown reporter 'jmh' (known: json, csv)")
        }

        // MARK: Every reporter through the seam

        @Test("the same record makes the same files in every process: the floor's unpaired ratios sum their rounds in order")
        func sameFilesEveryProcess() throws {
            let directory = Self.freshFolder()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            // Four points on system and the C floor, seven rounds each of values that differ in every digit: a sum over
            // them in a dictionary's order, which follows each process's hash seed, ends in other digits.
            func point(_ engine: String, _ threads: Int, _ salt: UInt64) -> PointResult {
                Sample.result(
                    engine: engine, parameters: [Parameter("mode", "sync"), Parameter("threads", threads)],
                    perOperation: (0..<7).map { UInt64(97 + ($0 * 7919 + Int(salt) * 104_729) % 53) })
            }
            let results = [1, 2, 4, 8].flatMap { [point("system", $0, UInt64($0)), point("c-dispatch", $0, UInt64($0) + 5)] }
            let record = TestRuns.record([(ContentionWorkload(), results)], machine: Sample.context)
            let writer = try RecordWriter(directory: directory, record: record, reporters: [], known: BuiltInWorkloads.all)
            try writer.finish()
            var made: [String] = []
            for _ in 0..<3 {
                let run = try ArenaExecutable.run(["report", directory, "--reporter", "csv"])
                #expect(run.status == 0, "\(run.errors)")
                made.append(try String(contentsOfFile: directory + "/contention.csv", encoding: .utf8))
            }
            #expect(made[0].contains("c-dispatch,sync,"), "\(made[0])")
            #expect(made.allSatisfy { $0 == made[0] }, "\(made)")
        }

        @Test("Every file reporter renders the run the same way twice, and RecordWriter writes exactly that beside run.json")
        func everyReporterRenders() throws {
            let results = Sample.sampleResults()
            let directory = Self.freshFolder()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let record = TestRuns.record([(ContentionWorkload(), results)], machine: Sample.context)
            let chosen = Reporters.builtIn.filter(\.writtenByBench)
            var start = record
            start.benchmarks?.points = []
            let writer = try RecordWriter(directory: directory, record: start, reporters: chosen, known: BuiltInWorkloads.all)
            for point in record.benchmarks!.points { try writer.add(point, seconds: 1) }
            try writer.finish()
            #expect(
                writer.files
                    == [directory + "/run.json"]
                    + ["contention.json", "contention.csv", "contention.pytest-benchmark.json"].map {
                        directory + "/" + $0
                    })
            let run = writer.analysis()
            for reporter in Reporters.builtIn {
                let outputs = reporter.outputs(run)
                #expect(outputs == reporter.outputs(run), "\(reporter.name): not a pure function of the run")
                for output in outputs {
                    #expect(output.text.hasSuffix("\n") && output.text.split(separator: "\n").count > 1, "\(reporter.name)")
                    for engine in ["system", "mutex"] { #expect(output.text.contains(engine), "\(reporter.name): no \(engine)") }
                    guard case .file(let name) = output.destination, chosen.contains(where: { $0.name == reporter.name }) else { continue }
                    let written = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                    #expect(written == output.text, "\(reporter.name): the file is not what the reporter makes")
                    if name.hasSuffix(".json") {
                        #expect((try? JSONSerialization.jsonObject(with: Data(output.text.utf8))) != nil, "\(name): not JSON")
                    }
                }
            }
            // The record on disk is the writer's, point for point.
            let read = try RunRecord.read(from: directory)
            #expect(read.benchmarks?.points.flatMap { $0.results.map(\.name) }.sorted() == results.map(\.name).sorted())
        }

        @Test("RecordWriter writes only the reporters it is given, and always the record")
        func writerSubset() throws {
            let directory = Self.freshFolder()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let record = TestRuns.record([(ContentionWorkload(), Sample.sampleResults())], machine: Sample.context)
            let writer = try RecordWriter(directory: directory, record: record, reporters: [CSVReporter()], known: [])
            try writer.finish()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["contention.csv", "run.json"])
        }

        @Test("RecordWriter writes a finished point at once, and a point still measuring only at a checkpoint")
        func writerCheckpoints() throws {
            let directory = Self.freshFolder()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let record = TestRuns.record([(ContentionWorkload(), Sample.sampleResults())], machine: Sample.context)
            let points = try #require(record.benchmarks?.points)
            var start = record
            start.benchmarks?.points = []
            func written() throws -> Int { try RunRecord.read(from: directory).benchmarks?.points.count ?? -1 }
            // No checkpoint comes: a round of a point still measuring stays in memory, a finished point is written.
            let never = try RecordWriter(
                directory: directory, record: start, reporters: [], known: BuiltInWorkloads.all, checkpointSeconds: .infinity)
            try never.add(points[0], seconds: 1, files: false)
            #expect(try written() == 0)
            try never.add(points[1], seconds: 2, files: true)
            #expect(try written() == 2)
            // Every add is a checkpoint.
            let always = try RecordWriter(
                directory: directory, record: start, reporters: [], known: BuiltInWorkloads.all, checkpointSeconds: 0)
            try always.add(points[0], seconds: 1, files: false)
            #expect(try written() == 1)
        }

        // MARK: The record

        @Test("The record round-trips: points, repetitions with their rounds, failures, roles and the conformance matrix come back")
        func recordRoundTrip() throws {
            var results = Sample.sampleResults()
            for index in results.indices {
                for repetition in results[index].repetitions.indices { results[index].repetitions[repetition].round = repetition }
            }
            let record = TestRuns.record([(ContentionWorkload(), results)], machine: Sample.context)
            let text = record.encoded()
            #expect(text.contains("\"schema\" : \"dispatch-arena-run\"") && text.contains("\"version\" : 1"))
            let read = try RunRecord.decode(text, path: "run.json")
            #expect(read.encoded() == text)
            #expect(read.machine == Sample.context)
            let points = try #require(read.benchmarks?.points)
            let written = Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })
            #expect(points.flatMap { $0.results.map(\.name) }.sorted() == written.keys.sorted())
            for result in points.flatMap(\.results) {
                #expect(result.failure == written[result.name]?.failure)
                #expect(result.repetitions == written[result.name]?.repetitions, "\(result.name)")
            }
            #expect(read.contender(named: "system")?.roles == [.dispatchObjects])
            #expect(read.contender(named: "mutex")?.roles == [])
            #expect(read.benchmarks?.workloads.first?.layer == .dispatchObjects)
        }

        @Test(
            "A record that cannot be used is one line: missing, not JSON, not a record, another schema version, a field missing",
            arguments: [
                (nil, RecordError.Kind.missing, "holds no run record (run.json)"),
                ("not json", .malformed, "is not a run record (not JSON with a schema and version)"),
                (#"{"schema": "something-else", "version": 1}"#, .malformed, "its schema is 'something-else', not 'dispatch-arena-run'"),
                (#"{"schema": "dispatch-arena-run", "version": 2}"#, .otherVersion, "schema version 2; this program reads version 1"),
                (#"{"schema": "dispatch-arena-run", "version": 1}"#, .malformed, "a malformed run record: .contenders is missing"),
            ] as [(String?, RecordError.Kind, String)])
        func recordErrors(_ text: String?, _ kind: RecordError.Kind, _ message: String) throws {
            let directory = Self.freshFolder()
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            if let text { try text.write(toFile: directory + "/run.json", atomically: true, encoding: .utf8) }
            do {
                _ = try RunRecord.read(from: directory)
                Issue.record("read a record from \(text ?? "nothing")")
            } catch {
                #expect(error.kind == kind)
                #expect(error.description.contains(message) && !error.description.contains("\n"), "\(error)")
            }
        }

        @Test("A folder written before records is read from its Google Benchmark JSON, as the workloads asked for it")
        func legacyFolder() throws {
            let results = Sample.sampleResults()
            let directory = Self.freshFolder()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let record = TestRuns.record(
                [
                    (ContentionWorkload(), results),
                    (PingPongWorkload(), [Self.point("pingpong", "system", perOperation: [900, 950, 1000])]),
                ],
                machine: Sample.context)
            let writer = try RecordWriter(
                directory: directory, record: record, reporters: [GoogleBenchmarkReporter()], known: BuiltInWorkloads.all)
            try writer.finish()
            try FileManager.default.removeItem(atPath: directory + "/run.json")
            let loaded = try RunRecord.load(
                directory, workloads: [PingPongWorkload(), ContentionWorkload(), ApplyWorkload()], lineup: TestRuns.contenders)
            #expect(loaded.legacy)
            let legacy = loaded.record
            #expect(legacy.benchmarks?.workloads.map(\.name) == ["pingpong", "contention"], "in the order asked, apply has no file")
            #expect(
                legacy.benchmarks?.points.flatMap { $0.results.map(\.name) }.filter { $0.hasPrefix("contention") }.sorted()
                    == results.map(\.name).sorted())
            #expect(legacy.machine == Sample.context && legacy.benchmarks?.seed == nil && legacy.benchmarks?.order == .sequential)
            #expect(legacy.contender(named: "system")?.roles == [.dispatchObjects], "roles from the lineup, by name")
            let run = try RunAnalysis(record: legacy, known: BuiltInWorkloads.all)
            #expect(run.workloads.first { $0.name == "contention" }?.reference == "system")
            try "not json".write(toFile: directory + "/apply.json", atomically: true, encoding: .utf8)
            #expect(throws: RecordError.self) { try RunRecord.load(directory, workloads: [ApplyWorkload()], lineup: []) }
            let empty = Self.freshFolder()
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: empty) }
            #expect(throws: RecordError(.missing, "'\(empty)' holds no run record (run.json) and no workload results (<workload>.json)")) {
                try RunRecord.load(empty, workloads: BuiltInWorkloads.all, lineup: [])
            }
        }

        /// A point of `workload` on `engine` whose repetitions took `perOperation` wall ns per operation (1000 operations,
        /// `itemsPerOperation` items each), with `counters` per repetition.
        static func point(
            _ workload: String, _ engine: String, parameters: [Parameter] = [], perOperation: [UInt64],
            itemsPerOperation: Int = 1, counters: [String: [Double]] = [:]
        ) -> PointResult {
            let repetitions = perOperation.enumerated().map { index, nanoseconds in
                Repetition(
                    operations: 1000, items: 1000 * itemsPerOperation, wallNanoseconds: nanoseconds * 1000,
                    cpuNanoseconds: nanoseconds * 1000, counters: counters.mapValues { $0[index] })
            }
            return PointResult(
                engine: engine, point: Point(workload: workload, parameters: parameters), settings: Sample.settings,
                repetitions: repetitions)
        }

        // MARK: The pytest-benchmark mapping

        @Test("pytest-benchmark: each headline becomes seconds per unit; what is neither a time nor a rate falls back to wall time")
        func pytestMeasures() {
            typealias Report = PytestBenchmarkReport
            #expect(Report.measure(of: .timePerOperation) == .time(scale: 1e-9))
            #expect(Report.measure(of: .throughput(unit: "ops/s")) == .reciprocal)
            #expect(Report.measure(of: .counter(name: "finish_ms", unit: "ms", lowerIsBetter: true)) == .time(scale: 1e-3))
            #expect(Report.measure(of: .counter(name: "wait_p50_us", unit: "µs", lowerIsBetter: true)) == .time(scale: 1e-6))
            #expect(Report.measure(of: .counter(name: "mb_per_s", unit: "MB/s", lowerIsBetter: false)) == .reciprocal)
            #expect(Report.measure(of: .counter(name: "protocol_overhead_pct", unit: "%", lowerIsBetter: true)) == .wallTime)
            #expect(Report.measure(of: .counter(name: "odd", unit: "ms", lowerIsBetter: false)) == .wallTime)
            // Every workload of the catalog maps; only a headline in percent falls back.
            let fallbacks = ArenaWorkloads.all.filter { Report.measure(of: $0.headline) == .wallTime }.map(\.headline.title)
            #expect(fallbacks.allSatisfy { $0.hasSuffix("(%)") }, "\(fallbacks)")
            let repetition = Repetition(
                operations: 1000, items: 4000, wallNanoseconds: 2_000_000, cpuNanoseconds: 0,
                counters: ["finish_ms": 12.5, "mb_per_s": 250, "pct": 3])
            func close(_ value: Double?, _ expected: Double) -> Bool { value.map { Sample.close($0, expected) } ?? false }
            #expect(close(Report.seconds(of: repetition, under: .timePerOperation), 2e-6))
            #expect(close(Report.seconds(of: repetition, under: .throughput(unit: "items/s")), 0.5e-6))  // 2e6 items/s
            #expect(close(Report.seconds(of: repetition, under: .counter(name: "finish_ms", unit: "ms", lowerIsBetter: true)), 0.0125))
            #expect(close(Report.seconds(of: repetition, under: .counter(name: "mb_per_s", unit: "MB/s", lowerIsBetter: false)), 0.004))
            #expect(close(Report.seconds(of: repetition, under: .counter(name: "pct", unit: "%", lowerIsBetter: true)), 2e-6))
            #expect(Report.seconds(of: repetition, under: .counter(name: "absent", unit: "ms", lowerIsBetter: true)) == nil)
            let noItems = Repetition(operations: 10, items: 0, wallNanoseconds: 100, cpuNanoseconds: 0)
            #expect(Report.seconds(of: noItems, under: .throughput(unit: "ops/s")) == nil, "a zero rate has no reciprocal")
        }

        @Test("pytest-benchmark JSON: names, group, params, rounds, pytest-benchmark's statistics; failed points left out")
        func pytestDocument() throws {
            var results = Sample.sampleResults()
            results.append(
                PointResult(
                    engine: "lockfree", point: Point(workload: "contention", parameters: [Parameter("engine", "x")]),
                    settings: Sample.settings,
                    repetitions: [Repetition(operations: 10, items: 10, wallNanoseconds: 1000, cpuNanoseconds: 0)]))
            let text = PytestBenchmarkReport.json(results, headline: .throughput(unit: "ops/s"), context: Sample.context)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(Set(document.keys) == ["machine_info", "commit_info", "benchmarks", "datetime", "version"])
            let machine = try #require(document["machine_info"] as? [String: Any])
            #expect(machine["node"] as? String == "test-host" && machine["release"] as? String == "6.1.0-test")
            #expect(document["datetime"] as? String == Sample.context.date)
            let benchmarks = try #require(document["benchmarks"] as? [[String: Any]])
            // The failed point (mutex, threads 4) is left out; the others keep their order.
            #expect(
                benchmarks.compactMap { $0["fullname"] as? String }
                    == [
                        "contention/system/mode:lock/threads:2", "contention/system/mode:lock/threads:4",
                        "contention/mutex/mode:lock/threads:2", "contention/lockfree/engine:x",
                    ])
            let first = benchmarks[0]
            #expect(first["name"] as? String == "contention[system-mode:lock-threads:2]")
            #expect(first["param"] as? String == "system-mode:lock-threads:2")
            #expect(first["group"] as? String == "contention/mode:lock/threads:2")
            #expect(first["params"] as? [String: String] == ["engine": "system", "mode": "lock", "threads": "2"])
            #expect(benchmarks[3]["params"] as? [String: String] == ["engine": "lockfree", "param_engine": "x"])
            let extra = try #require(first["extra_info"] as? [String: Any])
            #expect(extra["headline"] as? String == "ops/s" && extra["threads"] as? Int == 2)
            #expect(Sample.close(try #require(extra["headline_median"] as? Double), 1e7))  // 100 ns per item
            let stats = try #require(first["stats"] as? [String: Any])
            let data = try #require(stats["data"] as? [Double])
            // 100, 101 and 99 ns per operation, one item each: the rounds are seconds per item.
            #expect(zip(data, [100e-9, 101e-9, 99e-9]).allSatisfy { Sample.close($0, $1) })
            #expect(stats["rounds"] as? Int == 3 && stats["iterations"] as? Int == 1000)
            #expect(Sample.close(try #require(stats["median"] as? Double), 100e-9))
            #expect(Sample.close(try #require(stats["ops"] as? Double), 3 / 300e-9))
            // One repetition: pytest-benchmark's stddev is 0 and every quartile is the round itself.
            let single = try #require(benchmarks[2]["stats"] as? [String: Any])
            #expect(single["stddev"] as? Double == 0 && single["iqr"] as? Double == 0)
            #expect(Sample.close(try #require(single["q1"] as? Double), 150e-9))
            // The noisy point carries its flag.
            #expect(((benchmarks[1]["extra_info"] as? [String: Any])?["flags"] as? String)?.hasPrefix("cv ") == true)
        }

        @Test(
            "pytest-benchmark's quartiles, fences and outliers by its definitions",
            arguments: [
                ([1.0, 2, 3], 1.25, 2.75, 1.0, 3.0),
                ([4.0, 1, 3, 2], 1.5, 3.5, 1.0, 4.0),
                ([1.0, 2, 3, 4, 5], 1.75, 4.25, 1.0, 5.0),
                ([1.0, 2, 3, 4, 5, 6, 100], 2.25, 5.75, 1.0, 100.0),
            ])
        func pytestQuartiles(_ data: [Double], q1: Double, q3: Double, low: Double, high: Double) throws {
            let stats = try #require(PytestBenchmarkReport.RoundStatistics(data))
            #expect(Sample.close(stats.q1, q1) && Sample.close(stats.q3, q3), "\(data): \(stats.q1) \(stats.q3)")
            #expect(stats.lowestWithinFence == low && stats.highestFence == high)
            #expect(stats.iqrOutliers == (data.contains(100) ? 1 : 0))
        }

        // MARK: pytest-benchmark itself

        /// One file per headline kind: a throughput with parameters and a failed point, a time per operation, a time
        /// counter, a rate counter, and a percentage (which falls back to wall time).
        static func toolSample() -> [(name: String, headline: Headline, results: [PointResult])] {
            func threads(_ count: Int) -> [Parameter] { [Parameter("mode", "lock"), Parameter("threads", count)] }
            return [
                (
                    "fan", .throughput(unit: "blocks/s"),
                    [
                        point("fan", "system", parameters: threads(1), perOperation: [100, 130, 85], itemsPerOperation: 4),
                        point("fan", "mutex", parameters: threads(1), perOperation: [210, 180, 250, 190, 205], itemsPerOperation: 4),
                        point("fan", "system", parameters: threads(2), perOperation: [60, 70, 66], itemsPerOperation: 4),
                        PointResult(
                            engine: "mutex", point: Point(workload: "fan", parameters: threads(2)), settings: Sample.settings,
                            failure: Failure(.stopped, "budget")),
                    ]
                ),
                (
                    "hop", .timePerOperation,
                    [
                        point("hop", "system", perOperation: [900, 1000, 1300]),
                        point("hop", "actor", perOperation: [2000]),
                    ]
                ),
                (
                    "ramp", .counter(name: "finish_ms", unit: "ms", lowerIsBetter: true),
                    [
                        point(
                            "ramp", "system", parameters: [Parameter("blocks", 16)], perOperation: [5, 5, 5],
                            counters: ["finish_ms": [12, 15, 11.5]])
                    ]
                ),
                (
                    "io", .counter(name: "mb_per_s", unit: "MB/s", lowerIsBetter: false),
                    [
                        point(
                            "io", "system", parameters: [Parameter("chunk", "64KiB")], perOperation: [5, 5, 5],
                            counters: ["mb_per_s": [400, 250, 500]])
                    ]
                ),
                (
                    "cost", .counter(name: "overhead", unit: "%", lowerIsBetter: true),
                    [
                        point("cost", "system", perOperation: [40, 44, 47], counters: ["overhead": [3, 4, 5]])
                    ]
                ),
            ]
        }

        @Test("pytest-benchmark compare reads every point of our files: names, params, rounds, the headline in seconds and its ops")
        func pytestBenchmarkReadsOurFiles() throws {
            guard try RequiredPackage.pytestBenchmark.require() else { return }
            let directory = NSTemporaryDirectory() + "arena-pytest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var files: [String] = []
            var expected: [String: (parameters: [String: String], seconds: [Double])] = [:]
            for (name, headline, results) in Self.toolSample() {
                let path = directory + "/" + name + ".pytest-benchmark.json"
                try PytestBenchmarkReport.json(results, headline: headline, context: Sample.context).write(
                    toFile: path, atomically: true, encoding: .utf8)
                files.append(path)
                for result in results where result.succeeded {
                    var parameters = Dictionary(uniqueKeysWithValues: result.point.parameters.map { ($0.name, $0.value) })
                    parameters["engine"] = result.engine
                    expected[result.name] = (
                        parameters, result.repetitions.compactMap { PytestBenchmarkReport.seconds(of: $0, under: headline) }
                    )
                }
            }
            #expect(expected.count == 8, "the failed point is not expected")

            let compare = try Self.python(
                [
                    "-m", "pytest_benchmark", "--storage", "file://\(directory)/storage", "compare",
                    "--csv=\(directory)/read",
                ] + files, in: directory)
            try #require(compare.status == 0, "pytest-benchmark compare exited \(compare.status): \(compare.output)")
            #expect(!compare.output.contains("Failed to load"), "\(compare.output)")
            // Python's csv module ends rows in "\r\n".
            let rows = Sample.parseCSV(try String(contentsOfFile: directory + "/read.csv", encoding: .utf8).replacing("\r\n", with: "\n"))
            let header = try #require(rows.first)
            let read = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
            #expect(read.compactMap { $0["name"] }.sorted() == expected.keys.sorted(), "every point read, once")
            for row in read {
                guard let name = row["name"], let point = expected[name] else { continue }
                for (parameter, value) in point.parameters { #expect(row["param:\(parameter)"] == value, "\(name): \(parameter)") }
                let summary = try #require(Summary(point.seconds))
                let figures: [(String, Double)] = [
                    ("min", summary.min), ("max", summary.max), ("mean", summary.mean),
                    ("median", summary.median), ("stddev", summary.standardDeviation),
                    ("ops", Double(point.seconds.count) / point.seconds.reduce(0, +)),
                ]
                for (column, value) in figures {
                    let cell = try #require(row[column].flatMap(Double.init), "\(name): no \(column)")
                    #expect(abs(cell - value) <= 1e-9 * abs(value), "\(name): \(column) \(cell), expected \(value)")
                }
                #expect(row["rounds"] == String(point.seconds.count) && row["iterations"] == "1000", "\(name)")
            }
            // The units: the fan's headline is 4 blocks per operation, so its ops are blocks per second; the time
            // counter is in seconds, the rate counter's ops are MB/s again.
            let fan = try #require(read.first { $0["name"] == "fan/system/mode:lock/threads:1" })
            #expect(Sample.close(try #require(fan["median"].flatMap(Double.init)), 100e-9 / 4))
            let ramp = try #require(read.first { $0["name"] == "ramp/system/blocks:16" })
            #expect(Sample.close(try #require(ramp["median"].flatMap(Double.init)), 0.012))
            let io = try #require(read.first { $0["name"] == "io/system/chunk:64KiB" })
            #expect(Sample.close(try #require(io["ops"].flatMap(Double.init)), 3 / (1 / 400.0 + 1 / 250.0 + 1 / 500.0)))
            // Its table shows the groups: one per point, engines side by side.
            #expect(compare.output.contains("benchmark 'fan/mode:lock/threads:1': 2 tests"), "\(compare.output)")

            // What we derive from the rounds is what pytest-benchmark's own Stats derives from them.
            let check = try Self.python(["-c", Self.statsCheck] + files, in: directory)
            #expect(check.status == 0 && check.output.hasSuffix("checked 8 benchmarks\n"), "\(check.output)")
        }

        /// Recomputes every stored figure with pytest-benchmark's `Stats` from the stored rounds; prints mismatches.
        static let statsCheck = """
            import json, math, sys
            from pytest_benchmark.stats import Stats
            count, bad = 0, 0
            for path in sys.argv[1:]:
                for bench in json.load(open(path))['benchmarks']:
                    stats = Stats()
                    for value in bench['stats']['data']:
                        stats.update(value)
                    for field, value in stats.as_dict().items():
                        ours = bench['stats'][field]
                        same = math.isclose(value, ours, rel_tol=1e-9) if isinstance(value, float) else value == ours
                        if not same:
                            bad += 1
                            print(bench['fullname'], field, 'pytest-benchmark', value, 'ours', ours)
                    count += 1
            print('checked', count, 'benchmarks')
            sys.exit(1 if bad else 0)
            """

        /// Runs `python3 arguments` in `directory` (pytest-benchmark looks for conftest.py and its storage there).
        static func python(_ arguments: [String], in directory: String) throws -> (status: Int32, output: String) {
            try BenchReportTests.run(["python3"] + arguments, in: directory)
        }

        // MARK: arena bench --results-format

        @Test(
            "bench --results-format: an unknown or empty name is a usage error, and nothing is written",
            arguments: [
                ["bench", "pingpong", "--results-format", "jmh"],
                ["bench", "pingpong", "--results-format", "json,,csv"],
                ["bench", "pingpong", "--results-format", ""],
                ["bench", "pingpong", "--results-format", "json", "--results-format", "xml"],
            ])
        func resultsFormatUsageError(_ arguments: [String]) throws {
            let out = BenchCLITests.freshPath()
            let run = try ArenaExecutable.run(arguments + ["--out", out])
            ArenaExecutable.expectUsageError(run, arguments)
            #expect(
                run.errors.contains("--results-format") && run.errors.contains("known: json, csv, pytest-benchmark, report"),
                "\(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
        }

        @Test("bench --results-format writes only the chosen files, and pytest-benchmark reads a real run's")
        func resultsFormatRun() throws {
            let out = BenchCLITests.freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try ArenaExecutable.run([
                "bench", "pingpong", "--engine", "system", "--engine", "mutex", "--repetitions", "2",
                "--min-time", "0.01", "--quick", "--quiet", "--results-format", "pytest-benchmark,csv",
                "--out", out,
            ])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: out).sorted() == [
                    "pingpong.csv", "pingpong.pytest-benchmark.json", "run.json",
                ])
            #expect(run.output.contains("wrote 3 files"), "\(run.output)")
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/pingpong.pytest-benchmark.json"))
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let benchmarks = try #require(document["benchmarks"] as? [[String: Any]])
            #expect(benchmarks.compactMap { $0["fullname"] as? String }.sorted() == ["pingpong/mutex", "pingpong/system"])
            guard try RequiredPackage.pytestBenchmark.require() else { return }
            let compare = try Self.python(
                [
                    "-m", "pytest_benchmark", "--storage", "file://\(out)/storage", "compare",
                    "--csv=\(out)/read", out + "/pingpong.pytest-benchmark.json",
                ], in: out)
            #expect(compare.status == 0 && !compare.output.contains("Failed to load"), "\(compare.output)")
            let rows = Sample.parseCSV(try String(contentsOfFile: out + "/read.csv", encoding: .utf8).replacing("\r\n", with: "\n"))
            #expect(rows.dropFirst().map { $0[0] }.sorted() == ["pingpong/mutex", "pingpong/system"], "\(rows)")
        }
    }
}
