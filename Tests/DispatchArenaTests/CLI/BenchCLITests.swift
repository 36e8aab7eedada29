import ArenaContract
import Bench
import Contenders
import Foundation
import Harness
import Reporting
import Testing

extension ArenaTests {
    @Suite
    struct BenchCLITests {
        /// A fresh directory path under /tmp that does not exist yet.
        static func freshPath() -> String { "/tmp/arena-bench-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" }

        @Test(
            "bench usage errors: one line on stderr, exit 64, nothing written",
            arguments: [
                ["bench", "no-such-workload"],
                ["bench", "--engine", "nope"],
                ["bench", "--threads", "1,two"],
                ["bench", "--threads", "0"],
                ["bench", "--threads", "2,2"],
                ["bench", "--threads", ""],
                ["bench", "--repetitions", "0"],
                ["bench", "--first-rounds", "1"],
                ["bench", "--min-time", "-1"],
                ["bench", "--min-time", "nan"],
                ["bench", "--budget", "0"],
                ["bench", "--format", "html"],
                ["bench", "contention", "--point", "mode:snyc"],
                ["bench", "contention", "--point", "mdoe:sync"],
                ["bench", "--point", "threads:3"],
                ["bench", "--quick", "apply", "--point", "work:100ns"],
                ["bench", "contention", "apply", "--point", "mode:sync", "--point", "n:1000"],
                ["bench", "--point", "mode"],
                ["bench", "contention", "--reference", "nope"],
                ["bench", "contention", "--engine", "system", "--reference", "mutex"],
                ["bench", "contention", "--order", "random"],
                ["bench", "contention", "--process-per", "thread"],
                ["bench", "contention", "--seed", "-1"],
                ["bench", "contention", "--results-format", "jmh"],
            ])
        func usageError(_ arguments: [String]) throws {
            let out = Self.freshPath()
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments + ["--out", out]), arguments)
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
        }

        @Test("an engine lacking what every chosen workload needs is a usage error saying what it lacks, and nothing is written")
        func nothingToMeasure() throws {
            let out = Self.freshPath()
            let arguments = ["bench", "contention", "--engine", "foundation", "--out", out]
            let run = try ArenaExecutable.run(arguments)
            ArenaExecutable.expectUsageError(run, arguments)
            #expect(run.errors.contains("nothing to measure: contention on foundation: needs dispatch-objects: "), "\(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out), "created \(out)")
        }

        @Test("a misspelled --point value or name is a usage error naming the workload and what it takes, and nothing is written")
        func misspelledPoint() throws {
            let cases = [
                (
                    "mode:snyc",
                    "arena: --point mode:snyc: no chosen workload declares that value of mode (contention takes sync, async-write)"
                ),
                ("mdoe:sync", "arena: --point mdoe:sync: no chosen workload has a parameter 'mdoe' (contention takes mode, threads)"),
            ]
            for (item, message) in cases {
                let out = Self.freshPath()
                let arguments = ["bench", "contention", "--engine", "system", "--point", item, "--out", out]
                let run = try ArenaExecutable.run(arguments)
                ArenaExecutable.expectUsageError(run, arguments)
                #expect(run.errors == message + "\n")
                #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): created \(out)")
            }
        }

        @Test("--point keeps the points whose parameters have the given values: one name's values are alternatives, names must all hold")
        func pointSelection() throws {
            let out = Self.freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try ArenaExecutable.run([
                "bench", "contention", "source-merge", "--engine", "system", "--quick", "--threads", "1,2,4",
                "--point", "threads:1", "--point", "threads:4", "--point", "mode:sync",
                "--repetitions", "1", "--min-time", "0.001", "--quiet", "--out", out,
            ])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(out)/contention.json"))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let benchmarks = try #require(json["benchmarks"] as? [[String: Any]])
            let names = Set(benchmarks.compactMap { $0["run_name"] as? String })
            #expect(names == ["contention/system/mode:sync/threads:1", "contention/system/mode:sync/threads:4"])
            // source-merge has no mode: none of its points is kept, and no file of it is written.
            #expect(!FileManager.default.fileExists(atPath: "\(out)/source-merge.json"))
            let rows = try String(contentsOfFile: "\(out)/contention.csv", encoding: .utf8).split(separator: "\n")
            #expect(rows.count == 3, "header plus two points: \(rows)")
        }

        @Test("a child asked to measure a point its workload does not declare says so in one line and measures nothing")
        func childRefusesUndeclaredPoint() throws {
            let settings = BenchSettings(repetitions: 1, minimumSeconds: 0.001, budgetSeconds: 10, threads: [2], quick: true)
            func request(mode: String) -> TrialRequest {
                TrialRequest(
                    engine: "system",
                    point: Point(workload: "contention", parameters: [Parameter("mode", mode), Parameter("threads", 2)], threads: 2),
                    settings: settings, spinnerStepsPerMicrosecond: 100, budgetSeconds: 10, lifetimeSeconds: 30)
            }
            let bad = request(mode: "snyc")
            let run = try ArenaExecutable.run(ChildRequests.arguments(for: bad))
            #expect(run.status == 64, "exit \(run.status): \(run.errors)")
            #expect(
                run.errors == "arena: point request: contention's mode is one of sync, async-write, not 'snyc'\n", "\(run.errors)")
            // As the parent reads it: an error with that line, no repetitions.
            let process = ChildTrialProcess(bad, executable: ArenaExecutable.url.path)
            guard case .failure(let failure) = process.warmUp(operations: nil, baseline: nil) else {
                Issue.record("the child warmed up an undeclared point")
                return
            }
            #expect(failure.message.contains("contention's mode is one of sync, async-write, not 'snyc'"), "\(failure.message)")
            let result = process.finish()
            #expect(!result.succeeded && result.repetitions.isEmpty)
            // The same request spelled right is measured, round by round as its parent asks.
            let good = ChildTrialProcess(request(mode: "sync"), executable: ArenaExecutable.url.path)
            #expect(try good.warmUp(operations: nil, baseline: nil).get().operations > 0)
            #expect(good.measure(round: 0) == nil && good.measure(round: 1) == nil)
            let measured = good.finish()
            #expect(measured.succeeded && measured.repetitions.map(\.round) == [0, 1], "\(measured.failure?.message ?? "")")
        }

        @Test("an --out that cannot be a directory is a usage error, and nothing is written")
        func unwritableOut() throws {
            let file = Self.freshPath()
            try "not a directory".write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let run = try ArenaExecutable.run(["bench", "contention", "--out", file + "/results"])
            #expect(run.status == 64, "exit \(run.status): \(run.errors)")
            #expect(run.errors.contains("not a directory"), "\(run.errors)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a directory")
        }

        @Test("bench writes Google Benchmark JSON and CSV per workload, and a table naming every engine")
        func smallRun() throws {
            let out = Self.freshPath() + "/nested"
            defer { try? FileManager.default.removeItem(atPath: (out as NSString).deletingLastPathComponent) }
            let run = try ArenaExecutable.run([
                "bench", "contention", "apply", "--engine", "system", "--engine", "mutex",
                "--threads", "2", "--repetitions", "2", "--min-time", "0.01", "--quick",
                "--quiet", "--out", out,
            ])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            #expect(run.errors.isEmpty, "--quiet printed: \(run.errors)")
            for workload in ["contention", "apply"] {
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(workload).json"))
                let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let context = try #require(json["context"] as? [String: Any])
                #expect(context["num_cpus"] as? Int == Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
                let benchmarks = try #require(json["benchmarks"] as? [[String: Any]])
                let names = Set(benchmarks.compactMap { $0["run_name"] as? String })
                #expect(names.contains { $0.hasPrefix("\(workload)/system/") } && names.contains { $0.hasPrefix("\(workload)/mutex/") })
                #expect(benchmarks.allSatisfy { $0["error_occurred"] as? Bool != true }, "\(workload): a point failed")
                let iterations = benchmarks.filter { $0["run_type"] as? String == "iteration" }
                // Two repetitions a point, more for a workload of fewer than three points (`BenchSettings.rounds`).
                let rounds = BenchSettings(repetitions: 2).rounds(forPoints: names.count / 2)  // two engines
                #expect(iterations.count == names.count * rounds, "\(workload): \(rounds) repetitions per point")
                // Every repetition carries the engine's thread count. An async block runs on a worker of the engine, so
                // an async-write point counts one at least; a sync may run on its caller and start none (the mutex
                // engine starts its workers when work waits for one: 0 of them at a sync point, seen in CI).
                let engineThreads = iterations.compactMap { $0[PointRunner.engineThreadsCounter] as? Double }
                #expect(engineThreads.count == iterations.count, "\(workload): engine threads \(engineThreads)")
                let asyncThreads = iterations.filter { ($0["run_name"] as? String)?.contains("mode:async-write") == true }
                    .compactMap { $0[PointRunner.engineThreadsCounter] as? Double }
                #expect(
                    (workload != "contention" || !asyncThreads.isEmpty) && asyncThreads.allSatisfy { $0 >= 1 },
                    "\(workload): engine threads at async-write \(asyncThreads)")
                let csv = try String(contentsOfFile: "\(out)/\(workload).csv", encoding: .utf8)
                let rows = csv.split(separator: "\n")
                #expect(rows.count == names.count + 1, "\(workload): header plus one row per point")
                #expect(rows.first?.hasPrefix("engine,") == true)
            }
            #expect(run.output.contains("system") && run.output.contains("mutex"))
            // The tests run a debug build: the tables say so first, --quiet or not.
            #expect(run.output.hasPrefix("Warning: measured by a debug build."), "\(run.output.prefix(200))")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        }

        /// Runs a small two-contender contention bench into a fresh folder with `extra` options; returns the run and
        /// the record.
        static func pairedRun(_ extra: [String]) throws -> (run: ArenaExecutable.Run, record: RunRecord) {
            let out = freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try ArenaExecutable.run(
                [
                    "bench", "contention", "--engine", "system", "--engine", "mutex", "--engine", "lockfree", "--threads", "1",
                    "--point", "mode:sync", "--repetitions", "3", "--min-time", "0.005", "--quick", "--out", out,
                ] + extra)
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            return (run, try RunRecord.read(from: out))
        }

        @Test(
            "bench measures in paired rounds: each round one repetition of every contender, in the seed's order, each in a fresh process; the seed replays it"
        )
        func pairedRounds() throws {
            let (run, record) = try Self.pairedRun(["--seed", "5"])
            #expect(run.errors.contains("seed 5 (--seed 5 replays the rounds' orders)"), "\(run.errors)")
            let benchmarks = try #require(record.benchmarks)
            #expect(benchmarks.seed == 5 && benchmarks.order == .interleaved && benchmarks.lifetime == .round)
            #expect(benchmarks.spinnerStepsPerMicrosecond.map { $0 > 0 } == true)
            let point = try #require(benchmarks.points.first)
            // One point, measured as if three: 9 rounds of 3.
            let rounds = BenchSettings(repetitions: 3).rounds(forPoints: 1)
            #expect(rounds == 9 && point.rounds.count == rounds)
            for (round, record) in point.rounds.enumerated() {
                #expect(
                    record.order
                        == RoundOrder.order(
                            ["system", "mutex", "lockfree"], seed: 5, point: point.point.benchmarkName(engine: ""), round: round))
                #expect(record.waitingProcesses == 2 && record.waitingCPUSeconds != nil)
            }
            #expect(point.results.map(\.engine) == ["system", "mutex", "lockfree"])
            #expect(point.results.allSatisfy { $0.succeeded && $0.repetitions.map(\.round) == Array(0..<rounds) })
            #expect(record.contender(named: "system")?.roles == [.dispatchObjects])
            #expect(record.commit != nil, "the build's commit, from its checkout")
            // The same seed, the same orders.
            let again = try Self.pairedRun(["--seed", "5", "--quiet"])
            #expect(again.record.benchmarks?.points.first?.rounds.map(\.order) == point.rounds.map(\.order))
            #expect(again.run.errors.isEmpty, "--quiet printed: \(again.run.errors)")
        }

        @Test(
            "bench --order sequential measures each contender's repetitions back to back; --process-per point keeps one process a contender"
        )
        func otherOrders() throws {
            let sequential = try Self.pairedRun(["--order", "sequential", "--quiet"]).record
            #expect(sequential.benchmarks?.order == .sequential)
            #expect(sequential.benchmarks?.points.first?.rounds.isEmpty == true)
            #expect(sequential.benchmarks?.points.first?.results.allSatisfy { $0.repetitions.map(\.round) == Array(0..<9) } == true)
            let persistent = try Self.pairedRun(["--process-per", "point", "--quiet"]).record
            #expect(persistent.benchmarks?.lifetime == .point && persistent.benchmarks?.points.first?.rounds.count == 9)
        }

        @Test("bench --reference: every ratio of the run is to the contender named, in the record, the tables and the CSV")
        func namedReference() throws {
            let (run, record) = try Self.pairedRun(["--reference", "mutex", "--quiet"])
            #expect(record.benchmarks?.reference == "mutex")
            #expect(run.output.contains("×mutex") && !run.output.contains("×system"), "\(run.output)")
            let analysis = try RunAnalysis(record: record)
            #expect(analysis.workloads.first?.reference == "mutex")
            #expect(CSVReport.csv(analysis.workloads[0]).contains(",mutex,"))
        }
    }
}
