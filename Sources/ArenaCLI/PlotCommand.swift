import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena plot DIR`: draws the plots of a results folder with gnuplot into `DIR/plots`. Exit 0 when every plot was
/// drawn, 1 when a script failed, 64 on a usage error, 69 (EX_UNAVAILABLE) when gnuplot is not installed.
struct PlotCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot", abstract: "Draw a results folder's plots (PNG and SVG) with gnuplot into DIR/plots.")

    @Argument(
        help:
            "A results folder written by 'arena bench' (its <workload>.csv files are plotted; a workload without a script gets a generic plot)."
    )
    var directory: String

    @Option(help: "The folder of gnuplot scripts (default: scripts/plot of this repository).")
    var scripts: String?

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
        let sources = runner.sources(in: directory, order: lineup.workloads.map(\.name))
        guard let first = sources.first else {
            writeError("arena: '\(directory)' holds no results CSV (<workload>.csv as 'arena bench' writes it)")
            throw ExitCode(64)
        }
        let outdir = directory + "/plots"
        // The measuring machine's CPU count, from one of the workload files; this machine's when none says.
        let format = ResultsFormats.readBack
        let cores =
            Files.read("\(directory)/\(format.fileName(for: first.workload))").flatMap { try? format.read($0).numCPUs }
            ?? sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let outcomes: [GnuplotRunner.Outcome]
        do {
            outcomes = try runner.run(
                sources, outdir: outdir, cores: cores, workloads: lineup.workloads, engineOrder: lineup.names)
        } catch {
            writeError("arena: \(error)")
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
