import ArenaContract
import ArgumentParser
import Bench
import Contenders
import Glibc
import Reporting

/// `arena instructions`: counts the instructions and heap allocations per operation of the single-threaded paths
/// (`InstructionPath`) on engines under valgrind's callgrind, prints the table, and with `--out` keeps them in the
/// folder's run record (`run.json`) and writes `instructions.md` there; with `--check FILE`, holds them to the
/// thresholds in FILE (`InstructionThresholds`). Exit 0 when every cell has a count and none is over its threshold, 1
/// otherwise (each regression one line on stderr), 64 on a usage error (a thresholds file that cannot be read or
/// parsed among them) and 69 when valgrind is missing (nothing written in either case).
struct InstructionsCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "instructions",
        abstract: "Count instructions per operation of single-threaded paths under callgrind; keep them in DIR's run record.")

    @Option(name: .customLong("engine"), help: "An engine to count (repeatable; default: all).")
    var engines: [String] = []

    @Option(
        name: .customLong("path"),
        help: "A path to count (repeatable; default: all). Known: \(InstructionPath.allCases.map(\.rawValue).joined(separator: ", ")).")
    var paths: [InstructionPath] = []

    @Option(help: "The larger operation count of each pair (the smaller is half); default: each path's own.")
    var operations: Int?

    @Option(help: "Children under callgrind at once (default: the number of CPUs; counts do not depend on it).")
    var jobs: Int?

    @Option(
        help:
            "A results folder whose run record (run.json) keeps the counts, with instructions.md beside it (created if needed); default: print only."
    )
    var out: String?

    @Option(
        help:
            "A thresholds file (lines of: path engine instructions allocations): exit 1 naming every count over its line's."
    )
    var check: String?

    @Flag(help: "No progress lines on standard error.")
    var quiet = false

    @Option(help: InstructionTable.formatHelp)
    var format: OutputFormat?

    func validate() throws {
        if let operations, operations < 2 { throw ValidationError("--operations must be at least 2, not \(operations)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
        if let out, let problem = RecordWriter.problem(with: out) { throw ValidationError("--out: \(problem)") }
        try InstructionTable.check(format)
        _ = try thresholds()
    }

    /// The thresholds `--check` names, or `nil` without it; a file that cannot be read or parsed is a usage error.
    func thresholds() throws -> InstructionThresholds? {
        guard let check else { return nil }
        guard let text = Files.read(check) else { throw ValidationError("--check: cannot read '\(check)'") }
        do { return try InstructionThresholds(parsing: text) } catch {
            throw ValidationError("--check: \(check), \(error)")
        }
    }

    func run(on lineup: Lineup) throws {
        try lineup.checkEngines(engines)
        guard let valgrind = Callgrind.valgrind() else {
            writeError("\(Program.name): \(Callgrind.installHint)")
            throw ExitCode(69)
        }
        guard let executable = Program.executablePath else {
            writeError("\(Program.name): cannot find this program's own path in /proc/self/exe")
            throw ExitCode.failure
        }
        let quiet = quiet
        let counter = InstructionCounter(
            valgrind: valgrind, executable: executable,
            jobs: jobs ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let table = counter.count(
            // The paths are GCD calls: a contender without GCD objects of its own has none to count.
            engines: lineup.chosen(engines).filter { $0.profile.has([.dispatchObjects]) }.map(\.name),
            paths: paths.isEmpty ? InstructionPath.allCases : paths,
            operations: operations, tool: Callgrind.version(of: valgrind) ?? "valgrind"
        ) { done, total, line in
            if !quiet { writeError("[\(done)/\(total)] \(line)") }
        }
        try table.print(format)
        if let out {
            do {
                let record = try RunRecord.update(out) { record in
                    record.instructions = table
                    record.merge(contenders: lineup.records.filter { table.engines.contains($0.name) })
                }
                // instructions.md, made from the record as every file is.
                for output in InstructionsReporter().outputs(try RunAnalysis(record: record)) {
                    if case .file(let name) = output.destination { try Files.writeWhole(output.text, to: out + "/" + name) }
                }
            } catch let error as RecordError {
                writeError("\(Program.name): \(error)")
                throw ExitCode(RecordError.exitCode)
            } catch {
                writeError("\(Program.name): \(error)")
                throw ExitCode.failure
            }
        }
        if let thresholds = try thresholds() {
            let violations = thresholds.violations(in: table)
            for violation in violations { writeError("\(Program.name): over its threshold: \(violation)") }
            if violations.isEmpty, !quiet {
                writeError("\(Program.name): every count holds its threshold in \(check ?? "")")
            }
            if !violations.isEmpty { throw ExitCode.failure }
        }
        if !table.failures.isEmpty { throw ExitCode.failure }
    }

}

// The path names of `--path` are the enumeration's raw values; an unknown one is a usage error naming the known ones.
extension InstructionPath: ExpressibleByArgument {}
