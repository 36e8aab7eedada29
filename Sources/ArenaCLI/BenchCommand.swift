import ArenaContract
import ArgumentParser
import Bench
import Contenders
import Glibc
import Reporting

/// `arena bench`: measures workloads on engines, each point's contenders in paired rounds (`PairedPoint`: a round
/// runs one repetition of every contender, one after another, in a shuffled order, each in a fresh process), and
/// keeps the run's record (`run.json`) and the chosen reporters' files (Google Benchmark JSON, CSV, pytest-benchmark
/// JSON per workload by default; `--results-format` chooses) in `--out`, rewritten after every point. `--point
/// NAME:VALUE` keeps the points whose parameter has that value (`PointSelection`), checked against what the chosen
/// workloads declare (`Workload.parameters(_:)`). Exit 0 when every point has a number but a reference's documented
/// deviation (named on standard error), 1 when another has an error or was stopped (`ExitRule`; with `--strict`, any),
/// 64 on a usage error (nothing written), such as engines lacking what every chosen workload needs, so
/// that nothing would be measured, or a `--point` naming a parameter or value no chosen workload declares, or keeping
/// no point.
struct BenchCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure workloads on engines in paired rounds; write the run record and its files (JSON, CSV, pytest-benchmark).")

    @Argument(help: "Workloads to run, or 'all' (default); 'list --workloads' names them.")
    var workloads: [String] = []

    /// The sizings the help quotes: a full run's and a quick run's.
    private static let full = BenchSettings(), quick = BenchSettings.quickDefaults()

    @Option(name: .customLong("engine"), help: "An engine to measure (repeatable; default: all; 'list --engines' names them).")
    var engines: [String] = []

    @Option(
        help:
            "Thread counts for the workloads that take one, comma-separated (default \(Self.full.threads.map { "\($0)" }.joined(separator: ",")); quick \(Self.quick.threads.map { "\($0)" }.joined(separator: ",")))."
    )
    var threads: String?

    @Option(
        name: .customLong("point"),
        help: ArgumentHelp(
            "Keep the points whose parameter NAME has VALUE, written as in benchmark names (mode:sync; repeatable: values of one name are alternatives, different names must all hold; 'list --workloads --format markdown' names them).",
            valueName: "NAME:VALUE"))
    var pointItems: [String] = []

    @Option(
        help:
            "Measured repetitions per point: rounds, one repetition of every contender each (default \(Self.full.repetitions); quick \(Self.quick.repetitions); more for a workload of fewer than \(BenchSettings.evidencePoints) points). Past --first-rounds, what the run spends: the time of the other rounds goes to the points whose ratios vary most."
    )
    var repetitions: Int?

    @Option(
        name: .customLong("first-rounds"),
        help:
            "Rounds every point gets before the time its other rounds would take goes to the points whose ratios vary most (default \(BenchSettings.defaultFirstRounds); at least --repetitions gives every point the same rounds; paired rounds in fresh processes only)."
    )
    var firstRounds: Int?

    @Option(
        name: .customLong("min-time"),
        help: "Seconds each repetition lasts at least (default \(Self.full.minimumSeconds); quick \(Self.quick.minimumSeconds)).")
    var minimumSeconds: Double?

    @Option(
        name: .customLong("budget"),
        help:
            "Seconds one point may take per contender before it is stopped (default \(Int(Self.full.budgetSeconds)); quick \(Int(Self.quick.budgetSeconds)))."
    )
    var budgetSeconds: Double?

    @Flag(help: "Shrink every workload so that 'bench all' on every engine ends within minutes.")
    var quick = false

    @Option(
        help: """
            How a point's repetitions are ordered: interleaved (default: paired rounds, an order shuffled per round) or \
            sequential (each contender's repetitions back to back, one contender after another, as before paired rounds).
            """)
    var order: TrialOrder = .interleaved

    @Option(
        name: .customLong("process-per"),
        help: """
            Under the interleaved order, a fresh process per contender and 'round' (default: the rounds vary as runs do) \
            or one per contender and 'point' (cheaper; its processes wait, blocked, between their turns).
            """)
    var lifetime: ProcessLifetime = .round

    @Option(help: "The seed of the rounds' orders (default: a random one, printed and kept in run.json); replays a run's orders.")
    var seed: UInt64?

    @Option(help: "The contender every ratio is taken against (default: each workload's layer's reference).")
    var reference: String?

    @Option(help: "The directory for the run record (run.json) and its files (created if needed).")
    var out = "results/latest"

    @Option(
        name: .customLong("results-format"),
        help: "The reporters whose files to write, comma-separated (default: json, csv, pytest-benchmark; 'list --reporters' names them).")
    var resultsFormats: [String] = []

    @Option(
        help:
            "Google Benchmark JSON of the native C floor (scripts/native/run.sh): its points that match this run's join the record as engines \(NativeFloor.engines.joined(separator: " and "))."
    )
    var floor: String?

    @Flag(help: "No progress line, seed or debug-build warning on standard error (the tables still open with the warning).")
    var quiet = false

    @Flag(help: ArgumentHelp(ExitRule.strictHelp))
    var strict = false

    @Option(help: "Output format of the tables: table (default) or markdown.")
    var format: OutputFormat?

    func validate() throws {
        if let threads { _ = try Self.threadList(threads) }
        _ = try Self.selection(pointItems)
        if let repetitions, repetitions < 1 { throw ValidationError("--repetitions must be at least 1, not \(repetitions)") }
        if let firstRounds, firstRounds < 2 {
            throw ValidationError("--first-rounds must be at least 2 (a spread needs two rounds), not \(firstRounds)")
        }
        if let minimumSeconds, !(minimumSeconds > 0 && minimumSeconds.isFinite) {
            throw ValidationError("--min-time must be a positive number of seconds")
        }
        if let budgetSeconds, !(budgetSeconds > 0 && budgetSeconds.isFinite) {
            throw ValidationError("--budget must be a positive number of seconds")
        }
        if let problem = RecordWriter.problem(with: out) { throw ValidationError("--out: \(problem)") }
        if let floor { _ = try Self.floorDocument(floor) }
        if let format, format == .json { throw ValidationError("--format json is not offered here (table, markdown)") }
    }

    /// The floor's JSON, read; a missing or unreadable file is a usage error, found before anything is measured.
    static func floorDocument(_ path: String) throws -> GoogleBenchmarkReader.Document {
        guard let text = Files.read(path) else { throw ValidationError("--floor: cannot read '\(path)'") }
        do { return try GoogleBenchmarkReader.read(text) } catch {
            throw ValidationError("--floor: '\(path)': \(error)")
        }
    }

    /// The `--point` items as a selection; an item that is not `NAME:VALUE` is a usage error. Whether the names and
    /// values are declared is checked against the chosen workloads when the run starts (`run(on:)`).
    static func selection(_ items: [String]) throws -> PointSelection {
        do { return try PointSelection(parsing: items) } catch { throw ValidationError(error.message) }
    }

    /// `1,2,4` as thread counts: positive, at most 256, no repeats.
    static func threadList(_ text: String) throws -> [Int] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        let counts = items.compactMap { Int($0.filter { $0 != " " }) }
        guard !items.isEmpty, counts.count == items.count, counts.allSatisfy({ (1...256).contains($0) }),
            Set(counts).count == counts.count
        else {
            throw ValidationError("--threads wants distinct counts from 1 to 256, comma-separated, such as 1,2,4; not '\(text)'")
        }
        return counts
    }

    var settings: BenchSettings {
        var settings = quick ? BenchSettings.quickDefaults() : BenchSettings()
        if let threads { settings.threads = try! Self.threadList(threads) }
        if let repetitions { settings.repetitions = repetitions }
        if let firstRounds { settings.firstRounds = firstRounds }
        if let minimumSeconds { settings.minimumSeconds = minimumSeconds }
        if let budgetSeconds { settings.budgetSeconds = budgetSeconds }
        return settings
    }

    func run(on lineup: Lineup) throws {
        try lineup.checkEngines(engines)
        try lineup.checkWorkloads(workloads)
        let reporters: [any RunReporter]
        do {
            reporters =
                resultsFormats.isEmpty
                ? lineup.reporters.filter(\.writtenByBench) : try Reporters.parse(resultsFormats, from: lineup.reporters)
        } catch { throw ValidationError("--results-format: \(error)") }
        let chosen = lineup.chosen(engines)
        if let reference, !chosen.contains(where: { $0.name == reference }) {
            throw ValidationError(
                "--reference: '\(reference)' is not an engine of this run (measured: \(chosen.map(\.name).joined(separator: ", ")))")
        }
        let chosenWorkloads =
            workloads.isEmpty || workloads.contains("all")
            ? lineup.workloads : lineup.workloads.filter { workloads.contains($0.name) }
        let settings = settings
        // Validated above; an undeclared name or value, or a selection that keeps no point, is a usage error here.
        let selection = try Self.selection(pointItems)
        do { try selection.check(against: chosenWorkloads, settings: settings) } catch { throw ValidationError(error.message) }
        let plan = BenchPlan(workloads: chosenWorkloads, engines: chosen.map(\.profile), settings: settings, selection: selection)
        guard !plan.entries.isEmpty else {
            // Every chosen engine lacks what every chosen workload needs: a usage error, found before anything is written.
            let reasons = plan.omissions.map { String(describing: $0).split(whereSeparator: \.isNewline).joined(separator: " ") }
            writeError("\(Program.name): nothing to measure: " + reasons.joined(separator: "; "))
            throw ExitCode(64)
        }
        let context = MachineContext.current(executable: CommandLine.arguments[0])
        if !quiet && context.libraryBuildType == "debug" {
            writeError(
                "\(Program.name): warning: this is a \(context.libraryBuildType) build: its numbers are not worth comparing "
                    + "(many times slower than release); build with 'swift build -c release'")
        }
        let seed = seed ?? RoundOrder.freshSeed()
        if !quiet && order == .interleaved { writeError("\(Program.name): seed \(seed) (--seed \(seed) replays the rounds' orders)") }
        let spinner = Spinner.calibrated()
        let measured = Set(plan.entries.map(\.engine))
        var record: RunRecord
        do { record = try RunRecord.load(out, workloads: [], lineup: []).record } catch  where error.kind == .missing {
            record = RunRecord()
        } catch {
            writeError("\(Program.name): \(error)")
            throw ExitCode(RecordError.exitCode)
        }
        // A new run of benchmarks replaces the folder's benchmarks and floor; its conformance and counts stay.
        record.machine = context
        record.commit = Program.commit()
        record.merge(contenders: lineup.records.filter { measured.contains($0.name) })
        record.floor = nil
        record.benchmarks = BenchmarkRecord(
            command: Program.commandLine, date: context.date, seed: seed, order: order, lifetime: lifetime, settings: settings,
            spinnerStepsPerMicrosecond: spinner.stepsPerMicrosecond, reference: reference,
            workloads: chosenWorkloads.filter { workload in plan.entries.contains { $0.workload.name == workload.name } }
                .map { WorkloadRecord($0, settings: settings) },
            omissions: plan.omissions.map(\.description), finished: false)
        let writer: RecordWriter
        do {
            writer = try RecordWriter(directory: out, record: record, reporters: reporters, known: lineup.workloads)
        } catch {
            writeError("\(Program.name): \(error)")
            throw ExitCode(64)
        }
        let display = ProgressDisplay(quiet: quiet)
        let began = Deadline.now()
        try BenchSession(plan: plan, order: order, lifetime: lifetime, seed: seed).run(
            start: { ChildTrialProcess($0) },
            spinner: spinner,
            progress: display.show,
            record: { point, _, done in
                do { try writer.add(point, seconds: (Deadline.now() - began).seconds, files: done) } catch {
                    writeError("\(Program.name): \(error)")
                    throw ExitCode.failure
                }
            })
        display.finish()
        do {
            if let floor {
                // Validated above; read again here so the run uses the file as it is now.
                let document = try Self.floorDocument(floor)
                var matching: [PointResult] = []
                for workload in chosenWorkloads {
                    let found = NativeFloor.points(of: workload, in: document, settings: settings)
                    // The floor's points that `--point` left out of the run are not in it: neither joined nor reported.
                    matching += found.matching.filter { selection.keeps($0.point) }
                    if !found.unmatched.isEmpty {
                        writeError(
                            "\(Program.name): --floor: \(found.unmatched.count) \(workload.name) points not in this run left out "
                                + "(first: \(found.unmatched[0]))")
                    }
                }
                let engines = Set(matching.map(\.engine))
                try writer.update { record in
                    record.floor = FloorRecord(source: floor, results: matching)
                    record.merge(
                        contenders: NativeFloor.engines.filter(engines.contains).map {
                            ContenderRecord(profile: EngineProfile(name: $0, summary: NativeFloor.summary($0)), native: true)
                        })
                }
            }
            try writer.finish()
        } catch let error as FileError {
            writeError("\(Program.name): \(error)")
            throw ExitCode.failure
        }
        let analysis = writer.analysis()
        for output in TableReporter(markdown: format == .markdown).outputs(analysis) { print(output.text, terminator: "") }
        print("wrote \(Program.count(writer.files.count, "file")) to \(out)")
        let failures = analysis.failures
        ExitRule.name(failures)
        try ExitRule.check(failures, strict: strict)
    }
}

/// The progress of a run on standard error: one live line on a terminal, a plain line per point otherwise.
final class ProgressDisplay {
    private let quiet: Bool
    private let live = isatty(2) != 0

    init(quiet: Bool) { self.quiet = quiet }

    func show(_ progress: BenchProgress) {
        guard !quiet else { return }
        let group = progress.group
        var line =
            "[\(progress.index)/\(progress.count)] \(group.point.benchmarkName(engine: "*")) on \(group.engines.count)"
            + (progress.round.map { ", round \($0 + 1)" } ?? "") + "  \(Self.duration(progress.elapsed)) elapsed"
        if let remaining = progress.remaining { line += ", about \(Self.duration(remaining)) left" }
        let text = live ? "\u{1B}[2K\r" + line : line + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    func finish() {
        guard !quiet, live else { return }
        _ = "\u{1B}[2K\r".withCString { write(2, $0, strlen($0)) }
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole)s" : "\(whole / 60)m\(String(format2: whole % 60))s"
    }
}

extension String {
    /// Two digits, zero-padded.
    fileprivate init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}

// `--order` and `--process-per` take the enumerations' raw values; another is a usage error naming the known ones.
extension TrialOrder: ExpressibleByArgument {}
extension ProcessLifetime: ExpressibleByArgument {}
