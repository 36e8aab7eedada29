import Bench
import Glibc
import Harness

extension GnuplotRunner {
    /// Draws `report`'s figure of each workload (`machines.gp`: the headline against the core count) into `outdir`,
    /// creating it when needed: `machines-<workload>.png` and `.svg`. The data (`MachinesReport.csv`) and, with the
    /// bundled scripts, the scripts go to a temporary folder, removed afterwards. A workload with no value is skipped.
    public func drawMachines(_ report: MachinesReport, outdir: String) throws(FileError) -> [Outcome] {
        try Files.makeDirectories(outdir)
        let temporary = try Self.makeTemporaryDirectory()
        defer { Self.remove(directory: temporary) }
        let scriptdir: String
        if let scripts {
            scriptdir = scripts
        } else {
            try PlotScripts.write(to: temporary)
            scriptdir = temporary
        }
        var order: [String] = []
        for machine in report.machines { for engine in machine.run.engines where !order.contains(engine) { order.append(engine) } }
        let cores = report.machines.map(\.cores).filter { $0 > 0 }
        var outcomes: [Outcome] = []
        for workload in report.workloads {
            let engines = workload.headlines().map(\.engine)
            guard !engines.isEmpty else { continue }
            let data = "\(temporary)/machines-\(workload.name).csv"
            try Files.writeWhole(report.csv(workload), to: data)
            let variables = [
                "csv=\(Self.quoted(data))", "outdir=\(Self.quoted(outdir))", "name=\(Self.quoted(workload.name))",
                "engines=\(Self.quoted(Self.words(order.filter(engines.contains))))",
                "engine_order=\(Self.quoted(Self.words(Self.fullOrder(order))))", "scriptdir=\(Self.quoted(scriptdir))",
                "y_title=\(Self.quoted(workload.headline.title))",
                "direction=\(Self.quoted(workload.headline.higherIsBetter ? "higher is better" : "lower is better"))",
                "x_values=\(Self.quoted(Array(Set(cores)).sorted().map(String.init).joined(separator: " ")))",
            ]
            let outcome = ChildProcess.run(
                ["-e", variables.joined(separator: "; "), "\(scriptdir)/machines.gp"], executable: gnuplot, limit: .seconds(60))
            var errors = outcome.standardError
            if outcome.termination == .timedOut { errors += "gnuplot did not finish within 60 s" }
            outcomes.append(
                Outcome(
                    workload: workload.name, figure: .bundled("machines.gp"), errors: errors, succeeded: outcome.termination == .exited(0)))
        }
        return outcomes
    }
}
