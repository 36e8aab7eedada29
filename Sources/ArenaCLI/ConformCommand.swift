import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Contenders
import Glibc
import Harness
import Reporting

/// `arena conform`: runs the catalog on engines and prints the matrix; with `--out DIR`, keeps it in DIR's run record
/// (`run.json`), where `arena report` finds it. Exit 0 when nothing failed or timed out but a reference's documented
/// deviation (named on standard error), 1 otherwise (`ExitRule`; with `--strict`, any failure), 64 on a usage error, 65
/// when DIR holds a record that cannot be read (it is not overwritten).
struct ConformCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform", abstract: "Check engines against the conformance catalog.")

    @Option(name: .customLong("engine"), help: "An engine to check (repeatable; default: all; 'list --engines' names them).")
    var engines: [String] = []

    @Option(name: .customLong("rule"), help: "Rules to run, as an id or a shell pattern such as 'barrier.*' (repeatable; default: all).")
    var rules: [String] = []

    @Option(name: .customLong("repeat"), help: "Run every rule this many times; it passes only if every run passes.")
    var repeats: Int = 1

    @Option(help: "Seconds one run of one rule may take before it counts as timed out.")
    var timeout: Double = 10

    @Flag(
        help:
            "Run every rule under load, in the rule's process: a spinning thread per core and as many real-time preempters waking at random, so the engine's threads are preempted at unlucky moments."
    )
    var stress = false

    @Option(
        help:
            "Rules run at once, each in its child (default 1: one after another). More overlap the rules' sleeps and start-ups; each child then meets the others' load, which --stress's load dwarfs."
    )
    var jobs: Int = 1

    @Option(help: ConformanceReport.formatHelp)
    var format: OutputFormat?

    @Option(help: "A results folder whose run record (run.json) keeps the matrix, for 'arena report' (created if needed).")
    var out: String?

    @Flag(help: ArgumentHelp(ExitRule.strictHelp))
    var strict = false

    func validate() throws {
        guard repeats >= 1 else { throw ValidationError("--repeat must be at least 1, not \(repeats)") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        try ConformanceReport.check(format)
        if let out, let problem = RecordWriter.problem(with: out) { throw ValidationError("--out: \(problem)") }
    }

    func run(on lineup: Lineup) throws {
        try lineup.checkEngines(engines)
        for pattern in rules where lineup.catalog.rules(matching: pattern).isEmpty {
            throw ValidationError("no rule matches '\(pattern)' (see 'arena rules')")
        }
        if stress && !StressLoad.realTimeAvailable {
            writeError(
                "\(Program.name): --stress: this process may not use real-time priority (run as root or grant CAP_SYS_NICE); the preempters run at normal priority and preempt far less often"
            )
        }
        let chosenEngines = lineup.chosen(engines).map(\.profile)
        let chosenRules = rules.isEmpty ? lineup.catalog.rules : lineup.catalog.rules(matchingAny: rules)
        let runner = ConformanceRunner(
            timeout: .milliseconds(Int(timeout * 1000)), repeats: repeats, stress: stress,
            launcher: ReexecLauncher())
        // A contender standing for one layer only (`foundation`, `swift`) keeps that layer's rules: the others are
        // not its to keep, and its cells stay empty rather than read `unsupported` a hundred times.
        func applicable(_ engine: EngineProfile) -> [Rule] {
            chosenRules.filter { engine.has([$0.layer]) }
        }
        let progress = Progress(total: chosenEngines.reduce(0) { $0 + applicable($1).count })
        let cells = chosenEngines.flatMap { engine in applicable(engine).map { (engine, $0) } }
        let results = Threads.map(cells.count, jobs: jobs) { index in
            let (engine, rule) = cells[index]
            progress.show("\(engine.name) \(rule.id)")
            return runner.run(rule, on: engine)
        }
        progress.finish()
        let report = ConformanceReport(
            engines: chosenEngines.map(EngineDescription.init), rules: chosenRules, results: results,
            references: lineup.references)
        try report.print(format)
        if let out {
            let context = MachineContext.current(executable: CommandLine.arguments[0])
            do {
                _ = try RunRecord.update(out) { record in
                    record.machine = record.machine ?? context
                    record.commit = record.commit ?? Program.commit()
                    record.merge(contenders: lineup.records.filter { contender in chosenEngines.contains { $0.name == contender.name } })
                    record.conformance = ConformanceRecord(
                        command: Program.commandLine, date: context.date, repeats: repeats, stress: stress, report: report)
                }
            } catch let error as RecordError {
                writeError("\(Program.name): \(error)")
                throw ExitCode(RecordError.exitCode)
            } catch {
                writeError("\(Program.name): \(error)")
                throw ExitCode.failure
            }
        }
        let failures = RunFailures(
            contenders: lineup.records.filter { contender in chosenEngines.contains { $0.name == contender.name } },
            conformance: report)
        ExitRule.name(failures)
        try ExitRule.check(failures, strict: strict)
    }
}

/// A one-line progress indicator on standard error, shown only on a terminal.
final class Progress: @unchecked Sendable {
    private let total: Int
    /// The steps shown so far; several threads may show steps.
    private let done = Locked(0)
    private let enabled = isatty(2) != 0

    init(total: Int) { self.total = total }

    func show(_ what: String) {
        let done = self.done.withLock { value in
            value += 1
            return value
        }
        guard enabled else { return }
        let line = "\u{1B}[2K\r[\(done)/\(total)] \(what)"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    func finish() {
        guard enabled else { return }
        _ = "\u{1B}[2K\r".withCString { write(2, $0, strlen($0)) }
    }
}
