import ArenaContract
import Bench
import Conformance
import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// Results read back (our JSON and Google Benchmark's), the U test, comparisons of folders, and the commands that
    /// consume folders: compare, report, plot, and bench --floor.
    @Suite
    struct ResultsTests {
        typealias Sample = BenchReportTests

        // MARK: Reading JSON back

        @Test("What arena writes reads back to the same statistics, counters, latencies and failures")
        func roundTrip() throws {
            let written = Sample.sampleResults()
            let text = GoogleBenchmarkReport.json(written, headline: .timePerOperation, context: Sample.context)
            let document = try GoogleBenchmarkReader.read(text)
            #expect(document.context == Sample.context)
            #expect(document.results.map(\.name) == written.map(\.name))
            for (before, after) in zip(written, document.results) {
                #expect(after.engine == before.engine && after.point == before.point)
                #expect(after.failure == before.failure.map { Failure($0.kind, $0.message) })
                let old = PointStatistics(before, headline: .timePerOperation)
                let new = PointStatistics(after, headline: .timePerOperation)
                #expect(old.headlineValues.count == new.headlineValues.count)
                for (a, b) in zip(old.headlineValues, new.headlineValues) { #expect(Sample.close(a, b), "\(before.name)") }
                #expect(old.flags == new.flags)
                #expect(old.counterNames == new.counterNames)
                for (name, summary) in old.counters { #expect(Sample.close(summary.median, new.counters[name]!.median)) }
                #expect(after.repetitions.map(\.latency) == before.repetitions.map(\.latency))
            }
            // The merged percentiles are not in the JSON: they come back as the medians of the repetitions'.
            #expect(document.results[0].latency?.p50 == 500 && document.results[0].latency?.max == 5000)
        }

        /// What Google Benchmark 1.7.1 writes for the native floor: a registered name with its own suffix, times in
        /// microseconds, aggregates, a counter, and an errored run.
        static let nativeJSON = """
            {
              "context": {"date": "2026-11-22T10:00:00+00:00", "host_name": "vm", "executable": "c-floor", "num_cpus": 2,
                          "mhz_per_cpu": 2499, "cpu_scaling_enabled": false, "caches": [], "load_avg": [0.5, 0.4, 0.3],
                          "library_build_type": "release"},
              "benchmarks": [
                {"name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2", "family_index": 0,
                 "per_family_instance_index": 0, "run_name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2",
                 "run_type": "iteration", "repetitions": 2, "repetition_index": 0, "threads": 2, "iterations": 4000,
                 "real_time": 0.25, "cpu_time": 0.5, "time_unit": "us", "items_per_second": 4000000.0},
                {"name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2", "family_index": 0,
                 "per_family_instance_index": 0, "run_name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2",
                 "run_type": "iteration", "repetitions": 2, "repetition_index": 1, "threads": 2, "iterations": 4000,
                 "real_time": 0.5, "cpu_time": 1.0, "time_unit": "us", "items_per_second": 2000000.0},
                {"name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2_mean", "family_index": 0,
                 "per_family_instance_index": 0, "run_name": "contention/c-dispatch/mode:sync/threads:2/real_time/threads:2",
                 "run_type": "aggregate", "repetitions": 2, "threads": 2, "aggregate_name": "mean", "aggregate_unit": "time",
                 "iterations": 2, "real_time": 0.375, "cpu_time": 0.75, "time_unit": "us", "items_per_second": 3000000.0},
                {"name": "apply/c-dispatch/n:1000/work:1us/real_time", "family_index": 1, "per_family_instance_index": 0,
                 "run_name": "apply/c-dispatch/n:1000/work:1us/real_time", "run_type": "iteration", "repetitions": 1,
                 "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 2.0, "cpu_time": 3.0, "time_unit": "ms",
                 "items_per_second": 500000.0, "speedup": 1.5, "baseline_ns_per_op": 3000000.0},
                {"name": "contention/c-mutex/mode:sync/threads:1/real_time/threads:1", "family_index": 2,
                 "per_family_instance_index": 0, "run_name": "contention/c-mutex/mode:sync/threads:1/real_time/threads:1",
                 "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 0,
                 "real_time": 0, "cpu_time": 0, "time_unit": "ns", "error_occurred": true,
                 "error_message": "the counter is 3, expected 4"}
              ]
            }
            """

        @Test("Google Benchmark's own JSON: its suffix dropped, units converted, aggregates skipped, errors kept")
        func nativeDocument() throws {
            let document = try GoogleBenchmarkReader.read(Self.nativeJSON)
            #expect(document.context == nil, "Google Benchmark's context lacks the Swift fields")
            #expect(document.numCPUs == 2)
            #expect(
                document.results.map(\.name) == [
                    "contention/c-dispatch/mode:sync/threads:2", "apply/c-dispatch/n:1000/work:1us",
                    "contention/c-mutex/mode:sync/threads:1",
                ])
            let contention = document.results[0]
            #expect(contention.point.threads == 2 && contention.point["mode"] == "sync" && contention.point["threads"] == "2")
            #expect(contention.repetitions.count == 2)
            #expect(contention.repetitions[0].wallNanoseconds == 1_000_000)  // 0.25 µs × 4000
            let throughput = PointStatistics(contention, headline: .throughput(unit: "ops/s"))
            #expect(throughput.headlineValues.count == 2)
            #expect(Sample.close(throughput.headlineValues[0], 4e6) && Sample.close(throughput.headlineValues[1], 2e6))
            let apply = document.results[1]
            #expect(apply.repetitions[0].counters == ["speedup": 1.5, "baseline_ns_per_op": 3e6])
            #expect(apply.repetitions[0].wallNanoseconds == 20_000_000)
            #expect(document.results[2].failure == Failure(.error, "the counter is 3, expected 4"))
        }

        @Test("Benchmark names: parameters parsed, Google Benchmark's suffix dropped, malformed names refused")
        func names() throws {
            let parsed = try GoogleBenchmarkReader.parse(name: "async-drain/c-dispatch/queue:concurrent/producers:4/real_time")
            #expect(parsed.workload == "async-drain" && parsed.engine == "c-dispatch")
            #expect(parsed.parameters == [Parameter("queue", "concurrent"), Parameter("producers", 4)])
            #expect(try GoogleBenchmarkReader.parse(name: "pingpong/system").parameters.isEmpty)
            // A fixed iteration count (the floor's quick contention points) is Google Benchmark's too.
            let fixed = try GoogleBenchmarkReader.parse(
                name: "contention/c-dispatch/mode:sync/threads:8/iterations:12500/real_time/threads:8")
            #expect(fixed.parameters == [Parameter("mode", "sync"), Parameter("threads", 8)])
            #expect(try GoogleBenchmarkReader.parse(name: "w/e/iterations:3").parameters == [Parameter("iterations", 3)])
            for bad in ["pingpong", "/system", "contention/system/threads", "contention/system/:4"] {
                #expect(throws: GoogleBenchmarkReader.ReadError.self, "\(bad)") { try GoogleBenchmarkReader.parse(name: bad) }
            }
            #expect(throws: GoogleBenchmarkReader.ReadError.self) { try GoogleBenchmarkReader.read("{\"context\": {}}") }
            #expect(throws: GoogleBenchmarkReader.ReadError.self) { try GoogleBenchmarkReader.read("not json") }
        }

        @Test("The floor keeps the points the run measures and names the others")
        func floorPoints() throws {
            let document = try GoogleBenchmarkReader.read(Self.nativeJSON)
            let contention = try #require(BuiltInWorkloads.workload(named: "contention"))
            let settings = BenchSettings(threads: [1, 2])
            let (matching, unmatched) = NativeFloor.points(of: contention, in: document, settings: settings)
            #expect(matching.map(\.name) == ["contention/c-dispatch/mode:sync/threads:2", "contention/c-mutex/mode:sync/threads:1"])
            #expect(unmatched.isEmpty)
            let fewer = NativeFloor.points(of: contention, in: document, settings: BenchSettings(threads: [1]))
            #expect(fewer.unmatched == ["contention/c-dispatch/mode:sync/threads:2"])
        }

        // MARK: The U test

        @Test("Mann–Whitney U: exact values for small samples, the normal approximation with ties")
        func mannWhitneyKnown() throws {
            // Completely separated samples of 3: U = 9, P(U ≥ 9) = 1/20, two-sided 0.1.
            #expect(Sample.close(try #require(MannWhitney.pValue([1, 2, 3], [4, 5, 6])), 0.1))
            #expect(Sample.close(try #require(MannWhitney.pValue([4, 5, 6], [1, 2, 3])), 0.1))
            // Interleaved samples are indistinguishable.
            #expect(try #require(MannWhitney.pValue([1, 3, 5, 7], [2, 4, 6, 8])) > 0.5)
            #expect(MannWhitney.pValue([], [1]) == nil)
            #expect(MannWhitney.pValue([2, 2, 2], [2, 2, 2]) == 1)
        }

        @Test("Mann–Whitney U agrees with SciPy's mannwhitneyu (two-sided), exact and asymptotic")
        func mannWhitneyAgainstSciPy() throws {
            guard try RequiredPackage.sciPy.require() else { return }
            let cases: [([Double], [Double])] = [
                ([1, 2, 3], [4, 5, 6]),
                ([10.5, 11, 9.7, 10.2, 10.9], [12, 9.9, 12.5, 13, 11.8]),
                ([1, 2, 2, 3, 4], [2, 3, 3, 5, 6, 7]),  // ties: asymptotic
                (Array(stride(from: 1.0, through: 9, by: 1)), Array(stride(from: 5.5, through: 14, by: 1))),  // n ≥ 8
            ]
            // One Python process for all cases: importing SciPy takes seconds.
            let script =
                "from scipy.stats import mannwhitneyu\n"
                + cases.map { x, y in
                    "print(float(mannwhitneyu(\(x), \(y), alternative='two-sided').pvalue))"
                }.joined(separator: "\n")
            let run = try Sample.run(["python3", "-c", script])
            try #require(run.status == 0, "python3/scipy: \(run.output)")
            let scipy = run.output.split(separator: "\n").compactMap { Double($0) }
            try #require(scipy.count == cases.count, "python3 printed \(run.output)")
            for ((x, y), expected) in zip(cases, scipy) {
                let ours = try #require(MannWhitney.pValue(x, y))
                #expect(abs(ours - expected) < 1e-9, "\(x) vs \(y): ours \(ours), scipy \(expected)")
            }
        }

        // MARK: Folders, compare, report

        /// A results folder holding `results` (contention points) in its run record, as `arena bench` writes it.
        static func folder(_ results: [PointResult], conformance: ConformanceReport? = nil, instructions: InstructionTable? = nil) throws
            -> String
        {
            let path = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            var record = TestRuns.record([(ContentionWorkload(), results)], conformance: conformance, machine: Sample.context)
            record.instructions = instructions
            try record.write(to: path)
            return path
        }

        /// Contention on `system` at three thread counts, each point's repetitions scaled by its factor.
        static func run(scales: [Double], failing: Int? = nil) -> [PointResult] {
            let base: [UInt64] = [100, 102, 98, 101, 99]
            return scales.enumerated().map { index, scale in
                let parameters = [Parameter("mode", "sync"), Parameter("threads", index + 1)]
                if index == failing {
                    return Sample.failed(engine: "system", parameters: parameters, threads: index + 1, kind: .error, message: "wrong")
                }
                return Sample.result(
                    engine: "system", parameters: parameters, threads: index + 1,
                    perOperation: base.map { UInt64((Double($0) * scale).rounded()) })
            }
        }

        @Test("Comparison: verdicts in the headline's direction, the threshold, significance, failures")
        func comparison() throws {
            let before = TestRuns.analysis([(ContentionWorkload(), Self.run(scales: [1, 1, 1, 1]))])
            // Throughput: 1.25× the time per operation is 20% fewer ops/s (a regression); 0.8× is 25% more.
            let after = TestRuns.analysis([(ContentionWorkload(), Self.run(scales: [1.25, 0.8, 1.05, 1], failing: 3))])
            let comparison = Comparison(baseline: before, candidate: after, threshold: 0.10)
            #expect(comparison.rows.map(\.verdict) == [.regressed, .improved, .same, .failed])
            let first = try #require(comparison.rows[0].ratio)
            #expect(abs(first.value - 0.8) < 0.005 && first.separatesFromOne, "\(first)")
            // Beyond the threshold but not beyond the noise: the same.
            let noisy = TestRuns.analysis([
                (
                    ContentionWorkload(),
                    [Sample.result(engine: "system", parameters: Self.run(scales: [1])[0].point.parameters, perOperation: [60, 160, 100])]
                )
            ])
            #expect(Comparison(baseline: before, candidate: noisy, threshold: 0.10).rows[0].verdict == .same)
            // Five repetitions a side, completely separated: the exact two-sided p is 2/252.
            #expect(Sample.close(try #require(comparison.rows[0].pValue), 2.0 / 252))
            #expect(comparison.regressions.count == 2)
            #expect(Comparison(baseline: before, candidate: after, threshold: 0.30).rows.map(\.verdict) == [.same, .same, .same, .failed])
            // A significance level stricter than any p five repetitions can give keeps every change "same".
            #expect(
                Comparison(baseline: before, candidate: after, threshold: 0.10, significance: 0.001)
                    .rows.prefix(3).allSatisfy { $0.verdict == .same })
            let reversed = Comparison(baseline: after, candidate: before, threshold: 0.10)
            #expect(reversed.rows.map(\.verdict) == [.improved, .regressed, .same, .fixed])
            // One repetition a side: no interval and no p-value, so nothing tells the change from the noise: the same,
            // with a note, as the footer's rule says (the threshold alone once called it regressed).
            func single(_ nanoseconds: UInt64) -> RunAnalysis {
                TestRuns.analysis([
                    (
                        ContentionWorkload(),
                        [
                            Sample.result(
                                engine: "system", parameters: Self.run(scales: [1])[0].point.parameters, perOperation: [nanoseconds])
                        ]
                    )
                ])
            }
            let untested = Comparison(baseline: single(100), candidate: single(200), threshold: 0.10).rows[0]
            #expect(untested.verdict == .same && untested.ratio?.low == nil && untested.pValue == nil)
            #expect(untested.note?.contains("untested") == true, "\(String(describing: untested.note))")
            // The medians up 5% in ops/s, the geometric means down by a third (one slow repetition): the row says why
            // its columns point opposite ways.
            let split = TestRuns.analysis([
                (
                    ContentionWorkload(),
                    [Sample.result(engine: "system", parameters: Self.run(scales: [1])[0].point.parameters, perOperation: [90, 95, 400])]
                )
            ])
            let flat = TestRuns.analysis([
                (
                    ContentionWorkload(),
                    [Sample.result(engine: "system", parameters: Self.run(scales: [1])[0].point.parameters, perOperation: [100, 100, 100])]
                )
            ])
            let opposite = Comparison(baseline: flat, candidate: split, threshold: 0.10).rows[0]
            let (medianBefore, medianAfter, ratio) = (
                try #require(opposite.baseline), try #require(opposite.candidate), try #require(opposite.ratio)
            )
            #expect(medianAfter > medianBefore && ratio.value < 1, "\(medianBefore) \(medianAfter) \(ratio)")
            #expect(opposite.note?.contains("the medians moved one way, the geometric means the other") == true)
            let table = ComparisonReport.table(
                Comparison(baseline: flat, candidate: split, threshold: 0.10), baselineName: "A", candidateName: "B")
            #expect(table.contains("A median") && table.contains("B median") && table.contains("B/A of geometric means (95%)"), "\(table)")
        }

        @Test("arena compare: exit 0 without regressions, 1 with one, 64 on bad input")
        func compareCommand() throws {
            let a = try Self.folder(Self.run(scales: [1, 1]))
            let b = try Self.folder(Self.run(scales: [1.02, 0.99]))
            let c = try Self.folder(Self.run(scales: [1.5, 1]))
            defer { for path in [a, b, c] { try? FileManager.default.removeItem(atPath: path) } }
            let same = try ArenaExecutable.run(["compare", a, b])
            #expect(same.status == 0, "\(same.output)\(same.errors)")
            #expect(same.output.contains("contention/system/mode:sync/threads:1") && same.output.contains("2 points: 2 same"))
            #expect(same.output.contains("Verdicts: 1 of 1 workloads agree"), "\(same.output)")
            let worse = try ArenaExecutable.run(["compare", a, c])
            #expect(worse.status == 1, "\(worse.output)\(worse.errors)")
            #expect(worse.output.contains("regressed"))
            #expect(try ArenaExecutable.run(["compare", a, c, "--threshold", "60"]).status == 0)
            for arguments in [
                ["compare", a], ["compare", a, "/nonexistent"], ["compare", a, b, "--threshold", "-1"],
                ["compare", a, b, "--significance", "2"], ["compare", a, b, "--reference", "nope"],
            ] {
                ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
            }
            // A folder without a record (or older files) is bad data: one line, exit 65.
            let empty = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: empty) }
            let none = try ArenaExecutable.run(["compare", empty, b])
            #expect(none.status == 65 && none.output.isEmpty && none.errors.split(separator: "\n").count == 1, "\(none.errors)")
            #expect(none.errors.contains("holds no run record"), "\(none.errors)")
        }

        @Test(
            "arena report makes report.md from the record: the machine, the matrix, a table per workload with ratios, plots, instruction counts, warnings"
        )
        func reportCommand() throws {
            let noisy = Sample.result(
                engine: "system", parameters: [Parameter("mode", "sync"), Parameter("threads", 2)],
                threads: 2, perOperation: [100, 130, 80])
            let floor = Sample.result(
                engine: "c-dispatch", parameters: [Parameter("mode", "sync"), Parameter("threads", 2)],
                threads: 2, perOperation: [50, 50, 50])
            let rule = try #require(Catalog.builtIn.rule(id: "once.exactly"))
            let matrix = ConformanceReport(
                engines: [EngineDescription(EngineProfile(name: "system"))], rules: [rule],
                results: [RuleResult(engine: "system", rule: rule.id, outcomes: [RunOutcome(.pass)], seconds: 0.1)],
                references: [.dispatchObjects: "system"])
            let path = try Self.folder([noisy, floor], conformance: matrix)
            defer { try? FileManager.default.removeItem(atPath: path) }
            try FileManager.default.createDirectory(atPath: path + "/plots", withIntermediateDirectories: true)
            for name in ["contention.png", "contention.svg"] {
                _ = FileManager.default.createFile(atPath: path + "/plots/" + name, contents: Data())
            }
            let withoutCounts = try ArenaExecutable.run(["report", path])
            #expect(withoutCounts.status == 0, "\(withoutCounts.errors)")
            #expect(try String(contentsOfFile: path + "/report.md", encoding: .utf8).contains("Not counted for this folder"))
            // Every file reporter's file, made from the record.
            for name in ["contention.json", "contention.csv", "contention.pytest-benchmark.json"] {
                #expect(FileManager.default.fileExists(atPath: path + "/" + name), "\(name)")
            }
            let counts = InstructionTable(
                tool: "valgrind-3.19.0", realTime: true, engines: ["system"], paths: [.sync], warmUp: 100,
                counts: [
                    InstructionCount(
                        engine: "system", path: .sync, lowOperations: 10, highOperations: 20, lowInstructions: 1000, highInstructions: 3000)
                ])
            var record = try RunRecord.read(from: path)
            record.instructions = counts
            try record.write(to: path)
            let run = try ArenaExecutable.run(["report", path, "--note", "made by a test"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(FileManager.default.fileExists(atPath: path + "/instructions.md"))
            let report = try String(contentsOfFile: path + "/report.md", encoding: .utf8)
            let systemValues = [10e6, 1e9 / 130, 12.5e6]
            let toFloor = try #require(RatioEstimate.unpaired(systemValues, [20e6, 20e6, 20e6]))
            for expected in [
                "# DispatchArena report: test-host, 2026-11-22", "made by a test", "## Machine", "| CPUs | 2 at 2500 MHz |",
                "> **Warning: measured by a debug build.",
                "## Conformance", "`once.exactly`", "### contention", "| point | system | c-dispatch |",
                "![contention](plots/contention.png)", "[contention.svg](plots/contention.svg)",
                "## Instructions per operation", "| `sync` | \(InstructionPath.sync.operation) | 20 | 200.0 |",
                "## Warnings", "`contention/system/mode:sync/threads:2`: cv",
                "## Summary", "| system | 1 | 0 | 0 | 0 |",
                "| contention | ops/s ↑ | system | system alone | system (itself) (1) | - | - | "
                    + "\(ConsoleReport.summaryText(toFloor)) (1) |\n",
                "**Noise**: 1 of 2 points have a CV above 10%",
            ] {
                #expect(report.contains(expected), "report.md lacks \(expected)\n\(report)")
            }
            // The summary leads: it comes before the machine and the matrix.
            #expect(
                (report.range(of: "## Summary")?.lowerBound ?? report.endIndex)
                    < (report.range(of: "## Machine")?.lowerBound ?? report.startIndex))
            for arguments in [
                ["report", "/nonexistent"], ["report", path, "--reference", "nope"], ["report", path, "--reporter", "jmh"],
                ["report", path, "--conformance", "x"],
            ] {
                ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
            }
        }

        @Test(
            "arena report on a folder without a record, with a malformed one or one of another version: one line, exit 65, nothing written",
            arguments: [nil, "{not json", #"{"schema": "dispatch-arena-run", "version": 99}"#])
        func reportBadRecord(_ text: String?) throws {
            let path = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: path) }
            if let text { try text.write(toFile: path + "/run.json", atomically: true, encoding: .utf8) }
            let run = try ArenaExecutable.run(["report", path])
            #expect(run.status == 65 && run.output.isEmpty, "exit \(run.status): \(run.output)\(run.errors)")
            #expect(run.errors.split(separator: "\n").count == 1 && run.errors.hasPrefix("arena: "), "\(run.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: path) == (text == nil ? [] : ["run.json"]))
        }

        // MARK: plot and bench --floor

        @Test("arena plot draws PNG and SVG with gnuplot, and without gnuplot exits 69 saying how to install it")
        func plotCommand() throws {
            let path = try Self.folder(Self.run(scales: [1, 0.9, 0.8]))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let missing = try ArenaExecutable.run(["plot", path], environment: ["PATH": "/nonexistent"])
            #expect(missing.status == 69, "\(missing.errors)")
            #expect(missing.errors.contains("apt-get install gnuplot-nox"), "\(missing.errors)")
            #expect(!FileManager.default.fileExists(atPath: path + "/plots"))
            guard try RequiredPackage.gnuplot.require() else { return }
            let drawn = try ArenaExecutable.run(["plot", path])
            #expect(drawn.status == 0, "\(drawn.output)\(drawn.errors)")
            for name in ["contention.png", "contention.svg"] {
                let size = (try? FileManager.default.attributesOfItem(atPath: "\(path)/plots/\(name)")[.size] as? Int) ?? 0
                #expect(size > 1000, "\(name) is \(size) bytes")
            }
            let svg = try String(contentsOfFile: path + "/plots/contention.svg", encoding: .utf8)
            #expect(svg.contains("<svg") && svg.contains("system"))
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(["plot", "/nonexistent"]), ["plot", "/nonexistent"])
        }

        @Test("bench --floor: the floor's matching points join the files and the table; a bad floor file is a usage error")
        func benchFloor() throws {
            let floor = BenchCLITests.freshPath() + ".json"
            try Self.nativeJSON.write(toFile: floor, atomically: true, encoding: .utf8)
            let out = BenchCLITests.freshPath()
            defer { for path in [floor, out] { try? FileManager.default.removeItem(atPath: path) } }
            let run = try ArenaExecutable.run([
                "bench", "contention", "--engine", "system", "--threads", "1,2", "--repetitions", "1",
                "--min-time", "0.01", "--quick", "--quiet", "--out", out, "--floor", floor,
            ])
            #expect(run.status == 1, "the floor's c-mutex point failed, so the run reports a failure: \(run.errors)")
            let csv = try String(contentsOfFile: out + "/contention.csv", encoding: .utf8)
            #expect(csv.contains("\nc-dispatch,sync,2,2,ops/s,"), "\(csv)")
            #expect(csv.contains("\nc-mutex,sync,1,1,") && csv.contains("error: the counter is 3, expected 4"))
            #expect(run.output.contains("c-dispatch") && run.output.contains("c-mutex"))
            let json = try GoogleBenchmarkReader.read(try String(contentsOfFile: out + "/contention.json", encoding: .utf8))
            #expect(json.results.contains { $0.name == "contention/c-dispatch/mode:sync/threads:2" })
            for bad in ["/nonexistent.json", "/etc/hostname"] {
                let target = BenchCLITests.freshPath()
                let arguments = ["bench", "contention", "--floor", bad, "--out", target]
                ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
                #expect(!FileManager.default.fileExists(atPath: target))
            }
        }
    }
}
