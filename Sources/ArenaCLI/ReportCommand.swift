import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena report DIR`: writes `DIR/report.md` from what the folder holds (workload JSON, `conformance.md`, `plots/`,
/// `instructions.json`), opening with a summary computed from them (`SummaryReport`).
/// Exit 0 when written, 64 on a usage error (nothing written).
struct ReportCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write DIR/report.md: a summary, machine, conformance matrix, tables with ratios to system, plots, warnings.")

    @Argument(help: "A results folder written by 'arena bench' (and 'arena plot').")
    var directory: String

    @Option(help: "The conformance matrix in Markdown to include (default: DIR/conformance.md when present).")
    var conformance: String?

    @Option(name: .customLong("note"), help: "A line to print under the title, such as the command that made the run (repeatable).")
    var notes: [String] = []

    func validate() throws {
        guard Files.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a results folder") }
        if let conformance, Files.read(conformance) == nil { throw ValidationError("--conformance: cannot read '\(conformance)'") }
    }

    func run(on lineup: Lineup) throws {
        let folder: ResultsFolder
        do { folder = try ResultsFolder.load(directory, workloads: lineup.workloads) } catch {
            writeError("arena: \(error)")
            throw ExitCode(64)
        }
        guard !folder.workloads.isEmpty else {
            writeError("arena: '\(directory)' holds no workload results (<workload>.json)")
            throw ExitCode(64)
        }
        let matrix = Files.read(conformance ?? directory + "/conformance.md")
        let report = RunReport(
            folder: folder, conformance: matrix, plots: Files.names(in: directory + "/plots"), provenance: notes,
            instructions: InstructionTable.read(directory + "/" + InstructionTable.jsonName))
        let path = directory + "/report.md"
        do { try Files.writeWhole(report.markdown(), to: path) } catch {
            writeError("arena: \(error)")
            throw ExitCode.failure
        }
        print("wrote \(path)")
    }
}
