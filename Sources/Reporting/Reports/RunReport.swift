import Bench

/// `report.md` of a results folder: a summary computed from the record (`SummaryReport`), the machine, the
/// conformance matrix, one table per workload with each contender's ratio to the workload's reference, the plots,
/// the engines' peak threads, the instructions per operation, and every point a reader should not trust at face
/// value. All of it from the run record (`RunAnalysis`); the `report` reporter writes it.
public struct RunReport: Sendable {
    /// The run.
    public let run: RunAnalysis
    /// The file names in the folder's `plots/` (PNG and SVG), found by the caller.
    public let plots: [String]
    /// How the run was made, one line each (commands, mode), shown under the title.
    public let provenance: [String]

    public init(run: RunAnalysis, plots: [String], provenance: [String]) {
        self.run = run
        self.plots = plots
        self.provenance = provenance
    }

    /// The Markdown document.
    public func markdown() -> String {
        let context = run.machine
        var text = "# DispatchArena report"
        if let context { text += ": \(context.hostName), \(context.date.prefix(10))" }
        text += "\n\n"
        if let warning = ConsoleReport.buildWarning(context) { text += "> **\(warning)**\n\n" }
        for line in provenance { text += line + "\n" }
        if let commit = run.record.commit { text += "Built from commit \(commit).\n" }
        if !provenance.isEmpty || run.record.commit != nil { text += "\n" }
        let engines = run.engines
        text += "Contenders: " + engines.map { "`\($0)`" }.joined(separator: ", ")
        if !run.floorEngines.isEmpty {
            text +=
                ". " + run.floorEngines.map { "`\($0)`" }.joined(separator: " and ")
                + " are the native C floor (measured by Google Benchmark), the distance to the limit"
        }
        text +=
            ". Cells are the median over rounds ±CV, with the ratio to the workload's reference (the reference of its "
            + "layer, or the one `--reference` named) and that ratio's 95% interval over the paired rounds; a ratio "
            + "above 1 is better when higher is better and worse otherwise.\n\n"

        text += SummaryReport.markdown(run)

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
        if let conformance = run.record.conformance {
            text += "`\(conformance.command)` on \(conformance.date.prefix(10)).\n\n"
            let matrix = conformance.report.markdown()
            text += matrix.hasSuffix("\n") ? matrix : matrix + "\n"
        } else {
            text += "Not run for this folder (`arena conform --out DIR` records it).\n"
        }
        text += "\n## Benchmarks\n\n"
        if !run.workloads.isEmpty && !plots.contains(where: { $0.hasSuffix(".png") }) {
            text +=
                "No plots in this folder yet: `arena plot DIR` draws them (gnuplot), and `arena report DIR` again shows "
                + "them here.\n\n"
        }
        for workload in run.workloads {
            text += "### \(workload.name)\n\n\(workload.entry.summary).\n\n"
            text += ConsoleReport.markdown([workload])
            if workload.name == ServerLoadRecord.workloadName, let server = run.record.server { text += server.markdownDetails() }
            let views = plots.filter { $0.hasSuffix(".png") && ($0 == "\(workload.name).png" || $0.hasPrefix("\(workload.name)-")) }
            for view in views {
                let stem = String(view.dropLast(4))
                text += "![\(stem)](plots/\(view))\n\n"
                if plots.contains(stem + ".svg") { text += "[\(stem).svg](plots/\(stem).svg)\n\n" }
            }
        }

        if run.record.server == nil && !run.workloads.isEmpty { text += ServerLoadRecord.absentNote }
        text += "## Threads\n\n"
        text +=
            context.map { context in ThreadReport.markdown(run.workloads, engines: engines, cores: context.numCPUs) }
            ?? "No machine context, so no core count to hold the threads against.\n"
        text += "\n## Instructions per operation\n\n"
        text +=
            run.record.instructions?.markdownSection()
            ?? "Not counted for this folder: `arena instructions --out DIR` counts them under valgrind (`scripts/report.sh "
            + "--full` does; `--quick` skips them to keep within CI's time).\n"
        if let peer = run.record.peerSuite {
            text += "\n## A peer's test suite on each engine\n\n" + peer.markdownSection()
        }
        text += "\n## Warnings\n\n"
        var warnings: [String] = []
        for workload in run.workloads {
            for result in workload.results {
                // The point's problems, and its noise by the run's mark in place of the fixed CV threshold's flag.
                let statistics = PointStatistics(result, headline: workload.headline)
                var flags = statistics.problems
                if let summary = statistics.headlineSummary, run.noiseMark.marks(summary) {
                    flags.append("cv \(Figures.fixed(summary.coefficientOfVariation * 100, 1))%")
                }
                for flag in flags { warnings.append("- `\(result.name)`: \(flag)") }
            }
        }
        if warnings.isEmpty {
            text += "None: every point has a number, and none has \(run.noiseMark.rule).\n"
        } else {
            text +=
                "Every point with \(run.noiseMark.rule) (marked !: the repetitions disagree, read it loosely), an error or a "
                + "stop:\n\n" + warnings.joined(separator: "\n") + "\n"
        }
        return text
    }
}
