import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena plot DIR`: draws the plots of a results folder with gnuplot into `DIR/plots`, from its run record (each
/// workload's data made by the CSV reporter; the core count from the record's machine). Exit 0 when every plot was
/// drawn, 1 when a script failed, 64 on a usage error, 65 when the folder holds no readable record, 69
/// (EX_UNAVAILABLE) when gnuplot is not installed.
struct PlotCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot", abstract: "Draw a results folder's plots (PNG and SVG) with gnuplot into DIR/plots.")

    @Argument(
        help:
            "A results folder written by 'arena bench' (its run record is plotted; a workload without a script gets a generic plot)."
    )
    var directory: String

    @Option(help: "The folder of gnuplot scripts (default: scripts/plot of this repository).")
    var scripts: String?

    @Option(help: "The contender the plots' ratios are to (default: the run's choice, else each workload's layer's reference).")
    var reference: String?

    func validate() throws {
        guard Files.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a results folder") }
        if let scripts, access(scripts + "/common.gp", R_OK) != 0 {
            throw ValidationError("--scripts: '\(scripts)' has no common.gp")
        }
    }

    func run(on lineup: Lineup) throws {
        guard let gnuplot = GnuplotRunner.findGnuplot() else {
            writeError(
                "arena: gnuplot is not installed; install it with 'apt-get install gnuplot-nox' (Debian, Ubuntu) "
                    + "or your system's gnuplot package, then run 'arena plot \(directory)' again")
            throw ExitCode(69)
        }
        guard let scripts = scripts ?? GnuplotRunner.findScripts() else {
            writeError("arena: cannot find scripts/plot; run from the repository or pass --scripts")
            throw ExitCode(64)
        }
        let runner = GnuplotRunner(gnuplot: gnuplot, scripts: scripts)
        let run = try lineup.analysis(of: directory, reference: reference)
        guard !run.workloads.isEmpty else {
            writeError("\(Program.name): '\(directory)' holds no benchmarks to plot")
            throw ExitCode(RecordError.exitCode)
        }
        let outdir = directory + "/plots"
        // The measuring machine's CPU count, from the record; this machine's when it does not say.
        let cores = run.machine.map(\.numCPUs).flatMap { $0 > 0 ? $0 : nil } ?? sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let outcomes: [GnuplotRunner.Outcome]
        do {
            // The plots' data, made from the record by the CSV reporter, in a temporary folder.
            let data = try GnuplotRunner.makeTemporaryDirectory()
            defer { GnuplotRunner.remove(directory: data) }
            outcomes = try runner.run(
                try runner.sources(from: run, into: data), outdir: outdir, cores: cores, workloads: lineup.workloads,
                engineOrder: run.engines,
                references: Dictionary(uniqueKeysWithValues: run.workloads.compactMap { w in w.reference.map { (w.name, $0) } }))
        } catch {
            writeError("\(Program.name): \(error)")
            throw ExitCode.failure
        }
        var failed = false
        for outcome in outcomes {
            if outcome.succeeded {
                print("plotted \(outcome.workload)" + (outcome.isGeneric ? " (generic plot: no \(outcome.workload).gp)" : ""))
            } else {
                failed = true
                writeError("arena: gnuplot failed on \(outcome.workload): \(outcome.errors)")
            }
            if outcome.succeeded && !outcome.errors.isEmpty {
                writeError("arena: gnuplot warned on \(outcome.workload): \(outcome.errors)")
            }
        }
        let drawn = Files.names(in: outdir).filter { $0.hasSuffix(".png") || $0.hasSuffix(".svg") }
        print("\(drawn.count) files in \(outdir)")
        if failed { throw ExitCode.failure }
    }
}
