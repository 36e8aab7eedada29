import ArenaCLI
import ArenaContract
import Bench
import Conformance
import Contenders
import Foundation
import Reporting
import Testing

/// The `arena` executable, run as a user runs it.
enum ArenaExecutable {
    /// `arena` sits beside the test bundle in the build folder (the test target depends on it).
    static var url: URL {
        let bundle = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return bundle.deletingLastPathComponent().appendingPathComponent("arena")
    }

    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    /// Expects `run` to be a usage error: exit 64, nothing on stdout, one `arena: ` line on stderr.
    static func expectUsageError(_ run: Run, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 64, "\(arguments): exit \(run.status)", sourceLocation: sourceLocation)
        #expect(run.output.isEmpty, "\(arguments): wrote to stdout: \(run.output)", sourceLocation: sourceLocation)
        let lines = run.errors.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].hasPrefix("arena: "), "\(arguments): stderr was \(run.errors)",
            sourceLocation: sourceLocation)
    }

    /// Runs `arena` with `arguments`; `environment` entries replace the inherited ones of the same name.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}

/// The repository root, found from this file's path (Tests/DispatchArenaTests/CLI/, three folders down).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

extension ArenaTests {
    @Suite
    struct CLITests {
        @Test(
            "usage errors: one line on stderr, nothing on stdout, exit 64",
            arguments: [
                ["conform", "--engine", "nope"],
                ["conform", "--rule", "no.such.*"],
                ["conform", "--repeat", "0"],
                ["conform", "--repeat", "many"],
                ["conform", "--jobs", "0"],
                ["child", "--request", "not a request"],
                ["child", "--request={\"kind\":\"nonsense\",\"request\":{}}"],
                ["conform", "--timeout", "-1"],
                ["conform", "--timeout", "soon"],
                ["conform", "--format", "xml"],
                ["rules", "--format", "yaml"],
                ["list", "--format", "markdown"],
                ["list", "--workloads", "--format", "json"],
                ["frobnicate"],
                ["conform", "--no-such-flag"],
                ["conform", "--stress=yes"],
                ["machines", "."],
                ["machines", ".", "/no/such/folder"],
            ])
        func usageError(_ arguments: [String]) throws {
            ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
        }

        @Test("usage and errors name the program the user ran, its children too: an author's my-arena says my-arena")
        func programName() throws {
            let folder = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let renamed = folder + "/my-arena"
            try FileManager.default.createSymbolicLink(atPath: renamed, withDestinationPath: ArenaExecutable.url.path)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: renamed)
            process.arguments = ["bench", "contention", "--engine", "nope", "--out", folder + "/out"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 64 && text.hasPrefix("my-arena: unknown engine 'nope'"), "\(text)")
            let help = Process()
            help.executableURL = URL(fileURLWithPath: renamed)
            help.arguments = ["help", "bench"]
            let output = Pipe()
            help.standardOutput = output
            try help.run()
            let usage = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            help.waitUntilExit()
            #expect(usage.contains("USAGE: my-arena bench") && !usage.contains("USAGE: arena"), "\(usage)")
        }

        @Test("docs/RULES.md is the output of 'arena rules --format markdown'")
        func rulesDocument() throws {
            let run = try ArenaExecutable.run(["rules", "--format", "markdown"])
            #expect(run.status == 0)
            let document = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/RULES.md"), encoding: .utf8)
            #expect(
                run.output == document,
                "docs/RULES.md is stale: regenerate it with 'swift run arena rules --format markdown > docs/RULES.md'")
            #expect(run.output == CatalogReport.markdown())
        }

        @Test("docs/BENCHMARKS.md's workload table is the output of 'arena list --workloads --format markdown'")
        func workloadsDocument() throws {
            let run = try ArenaExecutable.run(["list", "--workloads", "--format", "markdown"])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            let table = run.output.split(separator: "\n").dropFirst(2)
            #expect(table.count == ArenaWorkloads.all.count)
            for (row, workload) in zip(table, ArenaWorkloads.all) { #expect(row.hasPrefix("| `\(workload.name)` |")) }
            let document = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/BENCHMARKS.md"), encoding: .utf8)
            let begin = "<!-- BEGIN arena list --workloads --format markdown -->\n", end = "<!-- END arena list -->"
            let start = try #require(document.range(of: begin), "docs/BENCHMARKS.md lacks the line \(begin)")
            let stop = try #require(document.range(of: end, range: start.upperBound..<document.endIndex))
            let command = "swift run arena list --workloads --format markdown"
            #expect(
                document[start.upperBound..<stop.lowerBound] == run.output,
                "docs/BENCHMARKS.md's workload table is stale: put the output of '\(command)' between its markers")
        }

        @Test("conform --format json has the documented shape, runs misuse rules in children, and exits 0")
        func conformJSON() throws {
            let run = try ArenaExecutable.run([
                "conform", "--engine", "system", "--rule", "semaphore.*", "--rule", "suspend.over-resume",
                "--rule", "target.change-between-blocks", "--format", "json",
            ])
            #expect(run.status == 0, "exit \(run.status): \(run.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            let engines = try #require(json["engines"] as? [[String: Any]])
            #expect(engines.map { $0["name"] as? String } == ["system"])
            #expect((engines[0]["capabilities"] as? [String])?.contains("descriptor-sources") == true)
            // The semaphore family, whatever its size, and the two rules named.
            let expected = Catalog.builtIn.rules.filter { $0.id.hasPrefix("semaphore.") }.count + 2
            let rules = try #require(json["rules"] as? [[String: Any]])
            #expect(rules.count == expected)
            for rule in rules {
                for key in ["id", "concept", "title", "source"] {
                    #expect((rule[key] as? String)?.isEmpty == false, "rule \(rule["id"] ?? "?") lacks \(key)")
                }
            }
            let results = try #require(json["results"] as? [[String: Any]])
            #expect(results.count == expected)
            for result in results {
                #expect(Set(result.keys) == ["engine", "rule", "status", "detail", "seconds", "repeats", "passes", "failures"])
                let expected = result["rule"] as? String == "target.change-between-blocks" ? "unsupported" : "pass"
                #expect(result["status"] as? String == expected, "\(result)")
            }
            let misuse = try #require(results.first { $0["rule"] as? String == "suspend.over-resume" })
            #expect((misuse["detail"] as? String)?.contains("arena.misuse.over-resume") == true)
        }

        @Test("conform --stress --repeat N counts every run in the table, markdown and JSON")
        func conformStress() throws {
            let arguments = [
                "conform", "--engine", "lockfree", "--rule", "serial.fifo", "--rule", "sync.on-own-queue", "--stress", "--repeat", "2",
            ]
            let json = try ArenaExecutable.run(arguments + ["--format", "json"])
            #expect(json.status == 0, "exit \(json.status): \(json.errors)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let results = try #require(object["results"] as? [[String: Any]])
            #expect(results.count == 2)
            for result in results {
                #expect(result["repeats"] as? Int == 2 && result["passes"] as? Int == 2, "\(result)")
                #expect((result["failures"] as? [Any])?.isEmpty == true, "\(result)")
            }
            let table = try ArenaExecutable.run(arguments)
            #expect(table.status == 0 && table.output.contains("pass 2/2"), "\(table.output)")
            let markdown = try ArenaExecutable.run(arguments + ["--format", "markdown"])
            #expect(markdown.status == 0 && markdown.output.contains("| `serial.fifo` | pass (2/2) |"), "\(markdown.output)")
        }

        @Test("conform exits 1 when a rule fails, and list names the engines")
        func listAndFailureExit() throws {
            let list = try ArenaExecutable.run(["list"])
            #expect(list.status == 0)
            for name in Contender.builtIn.map(\.name) { #expect(list.output.contains("\(name):")) }
            #expect(list.output.contains("Rules (\(Catalog.builtIn.rules.count))"))
            // A watchdog shorter than the rule's own waits turns a passing rule into a timeout: exit 1.
            let timedOut = try ArenaExecutable.run(["conform", "--engine", "system", "--rule", "group.wait", "--timeout", "0.05"])
            #expect(timedOut.status == 1, "exit \(timedOut.status)")
            #expect(timedOut.output.contains("timeout"))
        }
    }
}
