import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena plot DIR`: draws the plots of a results folder with gnuplot into `DIR/plots`, each by its workload's figure,
/// with the scripts this program carries (or `--scripts`). Exit 0 when every plot was drawn, 1 when a script failed,
/// 64 on a usage error, 69 (EX_UNAVAILABLE) when gnuplot is not installed.
struct PlotCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot", abstract: "Draw a results folder's plots (PNG and SVG) with gnuplot into DIR/plots.")

    @Argument(
        help:
            "A results folder written by 'arena bench' (its <workload>.csv files are plotted; a workload that declares no figure of its own gets a generic plot)."
    )
    var directory: String

    @Option(
        help:
            "gnuplot scripts to use instead of those built into this program, to try edits: the folder holding common.gp, or a checkout of DispatchArena (its \(PlotScripts.checkoutPath))."
    )
    var scripts: String?

    func validate() throws {
        guard Files.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a results folder") }
        if let scripts, PlotScripts.folder(given: scripts) == nil {
            throw ValidationError("--scripts: '\(scripts)' holds no common.gp, nor does its \(PlotScripts.checkoutPath)")
        }
    }

    func run(on lineup: Lineup) throws {
        guard let gnuplot = GnuplotRunner.findGnuplot() else {
            writeError(
                "arena: gnuplot is not installed; install it with 'apt-get install gnuplot-nox' (Debian, Ubuntu) "
                    + "or your system's gnuplot package, then run 'arena plot \(directory)' again")
            throw ExitCode(69)
        }
        let runner = GnuplotRunner(gnuplot: gnuplot, scripts: scripts.flatMap(PlotScripts.folder(given:)))
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
                let how =
                    switch outcome.figure {
                    case .generic: " (generic plot)"
                    case .bundled: ""
                    case .script: " (its own script)"
                    }
                print("plotted \(outcome.workload)\(how)")
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
