import ArgumentParser
import Bench
import Glibc
import Reporting

/// `arena docs [--check] [FILE...]`, run from the repository root: rewrites the generated blocks of the documents
/// (`GeneratedBlocks`: README.md, docs/*.md and the known core counts, Sources/Reporting/Analysis/known-core-counts.md, by default) from the committed
/// records (`DocFigures`: results/reference, results/reference-16-cores) and this program's catalog and workloads; with
/// `--check`, changes nothing and exits 1 naming every block that differs from what it would write, every command
/// option or `--format` value a document names that the command does not take, and every count of the whole catalog,
/// workloads or contenders written by hand that differs from this program's (`DocOptions`). Exit 0 when current
/// (or rewritten), 1 on a stale block or option under `--check`, 64 on a usage error (a file missing, a marker
/// unclosed, a block no figure is made for), 65 when a record cannot be read.
struct DocsCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Write the docs' generated figures from the committed records; --check says what is stale.")

    /// The documents with generated blocks, from the repository root.
    static let defaultFiles =
        ["README.md"] + Files.names(in: "docs").filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        + ["Sources/Reporting/Analysis/known-core-counts.md"]

    @Argument(help: "The documents (default: README.md, docs/*.md and Sources/Reporting/Analysis/known-core-counts.md).")
    var files: [String] = []

    @Flag(
        help: "Change nothing; exit 1 naming every stale block, and every option or format a document names that its command does not take."
    )
    var check = false

    func validate() throws {
        for file in files where Files.read(file) == nil { throw ValidationError("'\(file)' is not a readable file") }
    }

    func run(on lineup: Lineup) throws {
        let chosen = files.isEmpty ? Self.defaultFiles : files
        let figures = try Self.figures(lineup)
        var stale: [String] = []
        for file in chosen {
            guard let text = Files.read(file) else { throw ValidationError("'\(file)' is not a readable file") }
            let blocks: [GeneratedBlocks.Block]
            do { blocks = try GeneratedBlocks.blocks(in: text) } catch { throw ValidationError("\(file): \(error)") }
            var made: [String: String] = [:]
            for block in blocks {
                do { made[block.name] = try figures.text(for: block.name) } catch {
                    throw ValidationError("\(file):\(block.line): \(error)")
                }
            }
            if check {
                for block in blocks where block.content != GeneratedBlocks.placed(made[block.name]!, inline: block.inline) {
                    stale.append("\(file):\(block.line): the block \(block.name) differs from what the records say")
                }
                if file.hasSuffix(".md") {
                    stale += DocOptions.problems(in: text, file: file)
                    stale += DocOptions.countProblems(in: text, file: file, counts: figures.counts)
                }
                continue
            }
            let rewritten = GeneratedBlocks.rewriting(text) { block in made[block.name]! }
            if rewritten != text {
                do { try Files.writeWhole(rewritten, to: file) } catch {
                    writeError("\(Program.name): \(error)")
                    throw ExitCode.failure
                }
                print("wrote \(file)")
            }
        }
        for line in stale { writeError("\(Program.name): \(line)") }
        if !stale.isEmpty {
            writeError("\(Program.name): \(stale.count) stale; 'arena docs' (from the repository root) rewrites the blocks")
            throw ExitCode.failure
        }
    }

    /// The figures from the committed records under the current folder, and the lineup's counts; a record that
    /// cannot be read ends the command with one line and exit 65.
    static func figures(_ lineup: Lineup) throws -> DocFigures {
        let reference = try lineup.analysis(of: "results/reference", reference: nil)
        let sixteen = try lineup.analysis(of: "results/reference-16-cores", reference: nil)
        let machines = MachinesReport([
            MachinesReport.Machine(folder: "results/reference", run: reference),
            MachinesReport.Machine(folder: "results/reference-16-cores", run: sixteen),
        ])
        return DocFigures(
            reference: reference, machines: machines,
            counts: [
                "rules": lineup.catalog.rules.count, "workloads": lineup.workloads.count,
                "contenders": lineup.contenders.count,
            ])
    }
}
