import Bench

extension GnuplotRunner {
    /// Draws `report`'s figure of each workload (`machines.gp`: the headline against the core count, or, where two
    /// machines share a core count, against the machine, a place each) into `outdir`, creating it when needed:
    /// `machines-<workload>.png` and `.svg`. The data (`MachinesReport.csv`) and, with the bundled scripts, the scripts
    /// go to a temporary folder, removed afterwards. A workload with no value is skipped.
    public func drawMachines(_ report: MachinesReport, outdir: String) throws(FileError) -> [Outcome] {
        try Files.makeDirectories(outdir)
        var order: [String] = []
        for machine in report.machines { for engine in machine.run.engines where !order.contains(engine) { order.append(engine) } }
        let cores = Array(Set(report.machines.map(\.cores).filter { $0 > 0 })).sorted()
        return try withScripts { (temporary, scriptdir) throws(FileError) in
            var outcomes: [Outcome] = []
            for workload in report.workloads where !workload.headlines.isEmpty {
                let engines = workload.headlines.map(\.engine)
                let data = "\(temporary)/machines-\(workload.name).csv"
                try Files.writeWhole(report.csv(workload), to: data)
                let variables = [
                    "csv=\(Self.quoted(data))", "outdir=\(Self.quoted(outdir))", "name=\(Self.quoted(workload.name))",
                    "engines=\(Self.quoted(Self.words(order.filter(engines.contains))))",
                    "engine_order=\(Self.quoted(Self.words(Self.fullOrder(order))))", "scriptdir=\(Self.quoted(scriptdir))",
                    "y_title=\(Self.quoted(workload.headline.title))",
                    "direction=\(Self.quoted(workload.headline.higherIsBetter ? "higher is better" : "lower is better"))",
                    "x_values=\(Self.quoted(cores.map(String.init).joined(separator: " ")))",
                ]
                // Machines that share a core count: a place each, named by its label (`label_1`, `label_2`, ...).
                let places =
                    report.coresTellApart
                    ? []
                    : ["n_machines=\(report.machines.count)"]
                        + report.machines.enumerated().map { "label_\($0.offset + 1)=\(Self.quoted($0.element.label))" }
                outcomes.append(
                    draw(
                        workload.name, figure: .bundled("machines.gp"), script: "\(scriptdir)/machines.gp",
                        variables: variables + places))
            }
            return outcomes
        }
    }
}
