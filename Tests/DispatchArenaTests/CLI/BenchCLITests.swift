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
            func request(mode: String) -> PointRequest {
                PointRequest(
                    engine: "system",
                    point: Point(workload: "contention", parameters: [Parameter("mode", mode), Parameter("threads", 2)], threads: 2),
                    settings: settings)
            }
            let bad = request(mode: "snyc")
            let run = try ArenaExecutable.run(ChildRequests.arguments(for: bad))
            #expect(run.status == 64, "exit \(run.status): \(run.errors)")
            #expect(
                run.errors == "arena: point request: contention's mode is one of sync, async-write, not 'snyc'\n", "\(run.errors)")
            // As the parent reads it: an error with that line, no repetitions.
            let start = Deadline.now()
            let result = BenchChild.result(
                of: ChildRequests.run(bad, executable: ArenaExecutable.url.path), for: bad, seconds: (Deadline.now() - start).seconds)
            #expect(!result.succeeded && result.repetitions.isEmpty)
            #expect(result.failure?.message.contains("contention's mode is one of sync, async-write, not 'snyc'") == true)
            // The same request spelled right is measured.
            let good = request(mode: "sync")
            let measured = BenchChild.result(of: ChildRequests.run(good, executable: ArenaExecutable.url.path), for: good, seconds: 0)
            #expect(measured.succeeded, "\(measured.failure?.message ?? "")")
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
                #expect(iterations.count == names.count * 2, "\(workload): two repetitions per point")
                // The mutex engine's workers are named threads the census counts; libdispatch has at least one worker.
                let engineThreads = iterations.compactMap { $0[PointRunner.engineThreadsCounter] as? Double }
                #expect(
                    engineThreads.count == iterations.count && engineThreads.allSatisfy { $0 >= 1 },
                    "\(workload): engine threads \(engineThreads)")
                let csv = try String(contentsOfFile: "\(out)/\(workload).csv", encoding: .utf8)
                let rows = csv.split(separator: "\n")
                #expect(rows.count == names.count + 1, "\(workload): header plus one row per point")
                #expect(rows.first?.hasPrefix("engine,") == true)
            }
            #expect(run.output.contains("system") && run.output.contains("mutex"))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".") }
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        }
    }
}
