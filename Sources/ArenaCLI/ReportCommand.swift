import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena report DIR`: makes the folder's files from its run record (`run.json`): `report.md` (a summary, machine,
/// conformance matrix, tables with ratios to each workload's reference, plots, warnings) and every other reporter's
/// files, or those `--reporter` names. A folder written before records is read from its Google Benchmark JSON, and
/// says so. Exit 0 when written and the run holds no failure but a reference's documented deviation; 1 when it holds
/// another (`RunFailures`: an engine under test's failed rule or point without a number, a reference's undocumented
/// failure, benchmarks stopped before their end), or with `--strict` any failure; the files are written either way.
/// 64 on a usage error, 65 when the folder holds no readable record (nothing written in either case).
struct ReportCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Make a results folder's report.md and other files from its run record (run.json).")

    @Argument(help: "A results folder written by 'arena bench' (and 'arena conform --out', 'arena plot').")
    var directory: String

    @Option(help: "The contender every ratio is taken against (default: the run's choice, else each workload's layer's reference).")
    var reference: String?

    @Option(name: .customLong("reporter"), help: "The reporters to write with, comma-separated (default: every one that writes files).")
    var reporters: [String] = []

    @Option(name: .customLong("note"), help: "A line to print under the title, such as the command that made the run (repeatable).")
    var notes: [String] = []

    @Option(
        name: .customLong("peer-suite"),
        help: "A summary.json of scripts/peer-suite.sh to join the run record first (a peer's test suite on each engine).")
    var peerSuite: String?

    @Option(
        help:
            "A folder Examples/HummingbirdServer/rounds.sh --out wrote, to join the run record first as the workload 'server' (a real server on each engine)."
    )
    var server: String?

    @Flag(help: ArgumentHelp(ExitRule.strictHelp))
    var strict = false

    func validate() throws {
        guard Files.isDirectory(directory) else { throw ValidationError("'\(directory)' is not a results folder") }
        if let peerSuite { _ = try Self.peerRecord(peerSuite) }
        if let server { _ = try Self.serverRecord(server) }
    }

    /// The server's runs in `path`; a `ValidationError` naming what is wrong with the folder.
    static func serverRecord(_ path: String) throws -> ServerLoadRecord {
        do { return try ServerLoadRecord.read(directory: path) } catch { throw ValidationError("--server: \(error)") }
    }

    /// The peer suite's summary in `path`; a `ValidationError` naming the file when it is missing or not one.
    static func peerRecord(_ path: String) throws -> PeerSuiteRecord {
        do { return try PeerSuiteRecord.read(path) } catch { throw ValidationError("--peer-suite: \(error)") }
    }

    func run(on lineup: Lineup) throws {
        let chosen: [any RunReporter]
        do {
            chosen =
                reporters.isEmpty
                ? lineup.reporters.filter(\.writesFiles)
                : try Reporters.parse(reporters, from: lineup.reporters)
        } catch { throw ValidationError("--reporter: \(error)") }
        if peerSuite != nil || server != nil {
            let peer = try peerSuite.map(Self.peerRecord)
            let load = try server.map(Self.serverRecord)
            do {
                _ = try RunRecord.update(directory) { record in
                    if let peer { record.peerSuite = peer }
                    if let load {
                        record.server = load
                        // The contenders it measured that the folder does not know yet (a folder of the server alone):
                        // their profiles and roles, so that its ratios are to Swift's default executor.
                        record.merge(
                            contenders: lineup.records.filter { load.variants.contains($0.name) && record.contender(named: $0.name) == nil }
                        )
                    }
                }
            } catch {
                writeError("\(Program.name): \(error)")
                throw ExitCode(RecordError.exitCode)
            }
        }
        let run = try lineup.analysis(of: directory, reference: reference)
        let plots = Files.names(in: directory + "/plots")
        var written: [String] = []
        for reporter in chosen {
            let made = reporter is MarkdownReporter ? MarkdownReporter(plots: plots, provenance: notes) : reporter
            for output in made.outputs(run) {
                switch output.destination {
                case .terminal: print(output.text, terminator: "")
                case .file(let name):
                    let path = directory + "/" + name
                    do { try Files.writeWhole(output.text, to: path) } catch {
                        writeError("\(Program.name): \(error)")
                        throw ExitCode.failure
                    }
                    written.append(path)
                }
            }
        }
        print(
            "wrote \(Program.count(written.count, "file")) to \(directory)"
                + (written.contains(directory + "/report.md") ? ": \(directory)/report.md" : ""))
        try ExitRule.check(run.failures, strict: strict)
    }
}

extension Lineup {
    /// The analysis of the record in `directory` (or of its older files, saying so on standard error), with
    /// `reference`; a folder with neither, a malformed record or one of another version ends the command with one
    /// line and exit 65, an unknown reference with exit 64.
    func analysis(of directory: String, reference: String?) throws -> RunAnalysis {
        let loaded: (record: RunRecord, legacy: Bool)
        do { loaded = try RunRecord.load(directory, workloads: workloads, lineup: records) } catch {
            writeError("\(Program.name): \(error)")
            throw ExitCode(RecordError.exitCode)
        }
        if loaded.legacy {
            writeError(
                "\(Program.name): '\(directory)' has no run record (\(RunRecord.fileName)): read from its Google Benchmark "
                    + "JSON, written before records (no conformance, no seed, repetitions paired by position)")
        }
        do { return try RunAnalysis(record: loaded.record, known: workloads, reference: reference) } catch {
            throw ValidationError("\(error)")
        }
    }
}
