import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// `arena plot` as a user runs it: the scripts travel inside the executable, and `--scripts` replaces them.
    @Suite
    struct PlotCLITests {
        /// The title contention.gp gives its figure (the generic plot's would be `contention: <summary>`).
        static let contentionTitle = "contention: T threads through one serial queue"

        /// Runs `executable` with `arguments` in `directory`; `environment` entries replace the inherited ones.
        static func run(
            _ executable: String, _ arguments: [String], in directory: String, environment: [String: String] = [:]
        ) throws -> ArenaExecutable.Run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ArenaExecutable.Run(
                status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                errors: String(decoding: errorData, as: UTF8.self))
        }

        /// The size of the file at `path`, 0 when there is none.
        static func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

        @Test(
            "machines puts the two committed reference runs side by side: machines.md names the verdicts that differ, one plot per workload"
        )
        func machines() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let out = BenchCLITests.freshPath()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let folders = ["results/reference", "results/reference-16-cores"].map { repositoryRoot.path + "/" + $0 }
            let run = try ArenaExecutable.run(["machines"] + folders + ["--out", out])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("2 machines, 19 workloads; verdicts that differ: "), "\(run.output)")
            #expect(run.errors.contains("warning: The runs come from different commits"), "\(run.errors)")
            let text = try String(contentsOfFile: out + "/machines.md", encoding: .utf8)
            #expect(text.contains("| reference (2 cores) | reference-16-cores (16 cores) |") && text.contains("## Verdicts that differ"))
            #expect(Self.size(out + "/plots/machines-contention.png") > 0 && Self.size(out + "/plots/machines-contention.svg") > 0)
            #expect(text.contains("![contention across machines](plots/machines-contention.png)"))
            // The cores tell the two apart: the x axis is the core count.
            let svg = try String(contentsOfFile: out + "/plots/machines-contention.svg", encoding: .utf8)
            #expect(svg.contains("against the machine's cores") && !svg.contains("(some share a core count)"))
        }

        @Test(
            "machines with one core count each get a place of their own on the x axis, named by their folders; without --out nothing lands in the committed results"
        )
        func machinesOfOneCoreCount() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let scratch = BenchCLITests.freshPath()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            // The 2-core reference twice, under two names: the same core count.
            let reference = repositoryRoot.path + "/results/reference"
            let copies = ["first-box", "second-box"].map { scratch + "/" + $0 }
            for copy in copies {
                try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: reference + "/run.json", toPath: copy + "/run.json")
            }
            // Run as the README gives it, from a folder standing for a checkout, with committed results of its own.
            let committed = scratch + "/results/machines/machines.md"
            try FileManager.default.createDirectory(atPath: scratch + "/results/machines", withIntermediateDirectories: true)
            try "committed".write(toFile: committed, atomically: true, encoding: .utf8)
            let run = try Self.run(ArenaExecutable.url.path, ["machines"] + copies, in: scratch)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            let written = run.output.split(separator: "\n").last.map { String($0.dropFirst("wrote ".count)) } ?? ""
            #expect(written.hasPrefix("results/machines-") && written.hasSuffix("/machines.md"), "\(run.output)")
            #expect(try String(contentsOfFile: committed, encoding: .utf8) == "committed", "the committed machines.md changed")
            let folder = scratch + "/" + String(written.dropLast("/machines.md".count))
            let svg = try String(contentsOfFile: folder + "/plots/machines-contention.svg", encoding: .utf8)
            #expect(svg.contains("on each machine") && svg.contains("first-box (2 cores)") && svg.contains("second-box (2 cores)"))
        }

        @Test(
            "A copy of arena outside the checkout, run from /, plots a results folder with the scripts it carries and leaves no file behind"
        )
        func copiedBinaryPlots() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let results = BenchCLITests.freshPath()
            let elsewhere = BenchCLITests.freshPath()
            let temporary = BenchCLITests.freshPath()
            defer { for path in [results, elsewhere, temporary] { try? FileManager.default.removeItem(atPath: path) } }
            let bench = try ArenaExecutable.run([
                "bench", "contention", "--engine", "system", "--threads", "1", "--quick", "--repetitions", "1",
                "--min-time", "0.001", "--quiet", "--out", results,
            ])
            #expect(bench.status == 0, "\(bench.errors)")
            let written = Set(try FileManager.default.contentsOfDirectory(atPath: results))
            for directory in [elsewhere, temporary] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let copy = elsewhere + "/arena"
            try FileManager.default.copyItem(atPath: ArenaExecutable.url.path, toPath: copy)
            // No checkout around: neither the copy's folder nor any folder above it, up to /, holds the scripts.
            let above = sequence(first: URL(fileURLWithPath: elsewhere)) { $0.path == "/" ? nil : $0.deletingLastPathComponent() }
            for folder in above { #expect(PlotScripts.folder(given: folder.path) == nil, "\(folder.path) holds plot scripts") }

            let plot = try Self.run(copy, ["plot", results], in: "/", environment: ["TMPDIR": temporary])
            #expect(plot.status == 0, "\(plot.output)\(plot.errors)")
            #expect(plot.output.contains("plotted contention\n"), "not drawn by contention.gp: \(plot.output)")
            for name in ["contention.png", "contention.svg"] {
                #expect(Self.size("\(results)/plots/\(name)") > 1000, "\(name) is \(Self.size("\(results)/plots/\(name)")) bytes")
            }
            let svg = try String(contentsOfFile: results + "/plots/contention.svg", encoding: .utf8)
            #expect(svg.contains(Self.contentionTitle), "the SVG is not contention.gp's figure")
            // The scripts went into a temporary folder under TMPDIR, removed afterwards; none into the results folder.
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "left in TMPDIR")
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: results)) == written.union(["plots"]))
        }

        @Test(
            "--scripts takes the folder holding common.gp or a checkout's root, and uses its scripts; a folder with neither is a usage error"
        )
        func scriptsOverride() throws {
            let results = try ResultsTests.folder(ResultsTests.run(scales: [1, 0.9, 0.8]))
            let edited = BenchCLITests.freshPath()
            defer { for path in [results, edited] { try? FileManager.default.removeItem(atPath: path) } }
            // A checkout's root holding an edited copy of the scripts.
            let folder = edited + "/" + PlotScripts.checkoutPath
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, text) in PlotScripts.bundled {
                let script = name == "contention.gp" ? text.replacing(Self.contentionTitle, with: "contention: an edited title") : text
                try script.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8)
            }
            // Folders holding neither: a results folder, part of a checkout, none at all.
            for bad in [results, edited + "/Sources", "/nonexistent"] {
                let arguments = ["plot", results, "--scripts", bad]
                ArenaExecutable.expectUsageError(try ArenaExecutable.run(arguments), arguments)
                #expect(!FileManager.default.fileExists(atPath: results + "/plots"), "\(arguments) wrote plots")
            }
            guard try RequiredPackage.gnuplot.require() else { return }
            for (given, title) in [
                (folder, "contention: an edited title"), (edited, "contention: an edited title"),
                (repositoryRoot.path, Self.contentionTitle), (repositoryRoot.path + "/" + PlotScripts.checkoutPath, Self.contentionTitle),
            ] {
                try? FileManager.default.removeItem(atPath: results + "/plots")
                let plot = try ArenaExecutable.run(["plot", results, "--scripts", given])
                #expect(plot.status == 0, "--scripts \(given): \(plot.output)\(plot.errors)")
                let svg = (try? String(contentsOfFile: results + "/plots/contention.svg", encoding: .utf8)) ?? ""
                #expect(svg.contains(title), "--scripts \(given): the SVG lacks \(title)")
            }
        }
    }
}
