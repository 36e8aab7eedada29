import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena machines DIR DIR...`: several machines' results folders side by side (`MachinesReport`), into `--out`:
/// `machines.md` (the machines, warnings where the runs differ in commit or settings, every verdict that differs,
/// each workload's ratios and headlines per machine) and, where gnuplot is installed, `plots/machines-<workload>.png`
/// and `.svg` (each contender's headline against the core count). `--out` defaults to `results/machines-<date>`, a
/// folder git ignores: the repository's committed comparison (results/machines) is written only when named. Exit 0
/// when written, 1 when a plot failed, 64 on a usage error, 65 when a folder holds no readable record (nothing written
/// in either case).
struct MachinesCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "machines",
        abstract: "Put several machines' results folders side by side: machines.md and plots against the core count.")

    @Argument(help: "Two or more results folders, each from one machine ('arena bench', the bundle's ./run).")
    var directories: [String] = []

    @Option(help: "The folder to write machines.md and its plots into (created if needed; default: results/machines-<date>).")
    var out: String = "results/machines-\(Program.today)"

    @Option(help: "The contender every ratio is taken against (default: each run's choice, else each workload's layer's reference).")
    var reference: String?

    func validate() throws {
        guard directories.count >= 2 else {
            throw ValidationError("name two or more results folders, one per machine (got \(directories.count))")
        }
        for directory in directories where !Files.isDirectory(directory) {
            throw ValidationError("'\(directory)' is not a results folder")
        }
        guard !directories.contains(out) else { throw ValidationError("--out must be another folder than the runs'") }
    }

    func run(on lineup: Lineup) throws {
        var machines: [MachinesReport.Machine] = []
        for directory in directories {
            let run = try lineup.analysis(of: directory, reference: reference)
            guard !run.workloads.isEmpty else {
                writeError("\(Program.name): '\(directory)' holds no benchmarks to compare")
                throw ExitCode(RecordError.exitCode)
            }
            machines.append(MachinesReport.Machine(folder: directory, run: run))
        }
        let report = MachinesReport(machines)
        for warning in report.warnings { writeError("\(Program.name): warning: \(warning)") }
        var failed = false
        do {
            if let gnuplot = GnuplotRunner.findGnuplot() {
                for outcome in try GnuplotRunner(gnuplot: gnuplot).drawMachines(report, outdir: out + "/plots")
                where !outcome.succeeded || !outcome.errors.isEmpty {
                    failed = failed || !outcome.succeeded
                    writeError(
                        "\(Program.name): gnuplot \(outcome.succeeded ? "warned" : "failed") on \(outcome.workload): \(outcome.errors)")
                }
            } else {
                writeError("\(Program.name): no plots: gnuplot is not installed (apt-get install gnuplot-nox)")
            }
            try Files.makeDirectories(out)
            try Files.writeWhole(report.markdown(plots: Files.names(in: out + "/plots")), to: out + "/machines.md")
        } catch {
            writeError("\(Program.name): \(error)")
            throw ExitCode.failure
        }
        let differing = report.workloads.filter { !$0.verdictsAgree }.map(\.name)
        print(
            "\(report.machines.count) machines, \(report.workloads.count) workloads; verdicts that differ: "
                + (differing.isEmpty ? "none" : differing.joined(separator: ", ")))
        print("wrote \(out)/machines.md")
        if failed { throw ExitCode.failure }
    }
}
