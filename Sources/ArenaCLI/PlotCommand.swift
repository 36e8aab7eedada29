import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena plot DIR`: draws the plots of a results folder with gnuplot into `DIR/plots`, from its run record (each
/// workload's data made by the CSV reporter; the core count from the record's machine), each by its workload's figure,
/// with the scripts this program carries (or `--scripts`). Exit 0 when every plot was drawn, 1 when a script failed,
/// 64 on a usage error, 65 when the folder holds no readable record, 69 (EX_UNAVAILABLE) when gnuplot is not
/// installed.
struct PlotCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot", abstract: "Draw a results folder's plots (PNG and SVG) with gnuplot into DIR/plots.")

    @Argument(
        help:
            "A results folder written by 'arena bench' (its run record is plotted; a workload that declares no figure of its own gets a generic plot)."
    )
    var directory: String

    @Option(
        help:
            "gnuplot scripts to use instead of those built into this program, to try edits: the folder holding common.gp, or a checkout of DispatchArena (its \(PlotScripts.checkoutPath))."
    )
    var scripts: String?

    @Option(help: "The contender the plots' ratios are to (default: the run's choice, else each workload's layer's reference).")
    var reference: String?

    func validate() throws {
        guard Files.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a results folder") }
        if let scripts, PlotScripts.folder(given: scripts) == nil {
            throw ValidationError("--scripts: '\(scripts)' holds no common.gp, nor does its \(PlotScripts.checkoutPath)")
        }
    }

    func run(on lineup: Lineup) throws {
        guard let gnuplot = GnuplotRunner.findGnuplot() else {
            writeError(
                "\(Program.name): gnuplot is not installed; install it with 'apt-get install gnuplot-nox' (Debian, Ubuntu) "
                    + "or your system's gnuplot package, then run '\(Program.name) plot \(directory)' again")
            throw ExitCode(69)
        }
        let runner = GnuplotRunner(gnuplot: gnuplot, scripts: scripts.flatMap(PlotScripts.folder(given:)))
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
                let how =
                    switch outcome.figure {
                    case .generic: " (generic plot)"
                    case .bundled: ""
                    case .script: " (its own script)"
                    }
                print("plotted \(outcome.workload)\(how)")
            } else {
                failed = true
                writeError("\(Program.name): gnuplot failed on \(outcome.workload): \(outcome.errors)")
            }
            if outcome.succeeded && !outcome.errors.isEmpty {
                writeError("\(Program.name): gnuplot warned on \(outcome.workload): \(outcome.errors)")
            }
        }
        let drawn = Files.names(in: outdir).filter { $0.hasSuffix(".png") || $0.hasSuffix(".svg") }
        print("\(drawn.count) files in \(outdir)")
        if failed { throw ExitCode.failure }
    }
}
