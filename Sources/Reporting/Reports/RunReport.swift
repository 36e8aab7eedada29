import Bench

/// `report.md` of a results folder: a summary computed from the sections below it (`SummaryReport`), the machine,
/// the conformance matrix, one table per workload with each engine's ratio to `system`, the plots, the engines' peak
/// threads, the instructions per operation, and every point a reader should not trust at face value. `arena report`
/// writes it; `scripts/report.sh` runs everything that feeds it first.
public struct RunReport: Sendable {
    /// The folder's results.
    public let folder: ResultsFolder
    /// The conformance matrix in Markdown (`arena conform --format markdown`), when it was run.
    public let conformance: String?
    /// The file names in the folder's `plots/` (PNG and SVG), found by the caller.
    public let plots: [String]
    /// How the run was made, one line each (commands, mode), shown under the title.
    public let provenance: [String]
    /// The instructions per operation (`arena instructions`, the folder's `instructions.json`), when counted.
    public let instructions: InstructionTable?

    public init(
        folder: ResultsFolder, conformance: String?, plots: [String], provenance: [String],
        instructions: InstructionTable? = nil
    ) {
        self.folder = folder
        self.conformance = conformance
        self.plots = plots
        self.provenance = provenance
        self.instructions = instructions
    }

    /// The Markdown document.
    public func markdown() -> String {
        let context = folder.context
        var text = "# DispatchArena report"
        if let context { text += ": \(context.hostName), \(context.date.prefix(10))" }
        text += "\n\n"
        for line in provenance { text += line + "\n" }
        if !provenance.isEmpty { text += "\n" }
        text += "Engines: " + folder.engines.map { "`\($0)`" }.joined(separator: ", ")
        text +=
            ". `c-dispatch` and `c-mutex` are the native C floor (libdispatch's C API and a pthread mutex, measured by "
            + "Google Benchmark), the distance to the limit. Cells are the median over repetitions ±CV, with the ratio to "
            + "`system` measured in the same run; a ratio above 1 is better when higher is better and worse otherwise.\n\n"

        text += SummaryReport.markdown(
            workloads: folder.workloads.map { ($0.workload, $0.results) }, engines: folder.engines, conformance: conformance)

        text += "## Machine\n\n"
        if let context {
            let caches = context.caches.map { "L\($0.level) \($0.type.lowercased()) \($0.size / 1024) KiB" }.joined(separator: ", ")
            let rows: [(String, String)] = [
                ("Host", context.hostName), ("Date", context.date),
                (
                    "CPUs",
                    "\(context.numCPUs)"
                        + (context.mhzPerCPU > 0 ? " at \(context.mhzPerCPU) MHz" : "")
                ),
                ("Frequency scaling", context.cpuScalingEnabled ? "on (numbers may drift)" : "off or not exposed"),
                ("Caches", caches.isEmpty ? "not reported" : caches),
                ("Load average at start", context.loadAverage.map { Figures.fixed($0, 2) }.joined(separator: ", ")),
                ("Kernel", context.kernel), ("Swift", context.swiftVersion),
                ("Build", "\(context.libraryVersion), \(context.libraryBuildType)"),
            ]
            text += "| | |\n| --- | --- |\n" + rows.map { "| \($0.0) | \($0.1) |\n" }.joined() + "\n"
        } else {
            text += "No machine context: no workload file had one.\n\n"
        }

        text += "## Conformance\n\n"
        text += conformance.map { $0.hasSuffix("\n") ? $0 : $0 + "\n" } ?? "Not run for this folder.\n"
        text += "\n## Benchmarks\n\n"
        let engines = folder.engines
        for entry in folder.workloads {
            let workload = entry.workload
            text += "### \(workload.name)\n\n\(workload.summary).\n\n"
            text += ConsoleReport.markdown(entry.results.map { ($0, workload) }, engines: engines)
            let views = plots.filter { $0.hasSuffix(".png") && ($0 == "\(workload.name).png" || $0.hasPrefix("\(workload.name)-")) }
            for view in views {
                let stem = String(view.dropLast(4))
                text += "![\(stem)](plots/\(view))\n\n"
                if plots.contains(stem + ".svg") { text += "[\(stem).svg](plots/\(stem).svg)\n\n" }
            }
        }

        text += "## Threads\n\n"
        text +=
            context.map { context in
                ThreadReport.markdown(folder.workloads.map { ($0.workload, $0.results) }, engines: engines, cores: context.numCPUs)
            } ?? "No machine context, so no core count to hold the threads against.\n"
        text += "\n## Instructions per operation\n\n"
        text +=
            instructions?.markdownSection()
            ?? "Not counted for this folder: `arena instructions --out DIR` counts them under valgrind (`scripts/report.sh "
            + "--full` does; `--quick` skips them to keep within CI's time).\n"
        text += "\n## Warnings\n\n"
        var warnings: [String] = []
        for entry in folder.workloads {
            for result in entry.results {
                for flag in PointStatistics(result, headline: entry.workload.headline).flags {
                    warnings.append("- `\(result.name)`: \(flag)")
                }
            }
        }
        if warnings.isEmpty {
            text += "None: every point has a number and a CV within \(Int(Summary.cvThreshold * 100))%.\n"
        } else {
            text +=
                "Every point with a CV above \(Int(Summary.cvThreshold * 100))% (the repetitions disagree: read it loosely), "
                + "an error or a stop:\n\n" + warnings.joined(separator: "\n") + "\n"
        }
        return text
    }
}
