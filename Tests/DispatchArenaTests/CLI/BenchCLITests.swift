import ArenaContract
import Bench
import Contenders
import Foundation
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
