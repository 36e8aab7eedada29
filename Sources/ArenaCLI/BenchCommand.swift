import ArenaContract
import ArgumentParser
import Bench
import Contenders
import Glibc
import Reporting

/// `arena bench`: measures workloads on engines, one child process per point, and writes per workload a file in each
/// results format (Google Benchmark JSON, CSV, pytest-benchmark JSON; `--results-format` chooses) into `--out`.
/// `--point NAME:VALUE` keeps the points whose parameter has that value (`PointSelection`), checked against what the
/// chosen workloads declare (`Workload.parameters(_:)`).
/// Exit 0 when every point has a number, 1 when one has an error or was stopped, 64 on a usage error (nothing written),
/// such as engines lacking what every chosen workload needs, so that nothing would be measured, or a `--point` naming
/// a parameter or value no chosen workload declares, or keeping no point.
struct BenchCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure workloads on engines; write Google Benchmark JSON, CSV and pytest-benchmark JSON.")

    @Argument(help: "Workloads to run, or 'all' (default); 'list --workloads' names them.")
    var workloads: [String] = []

    @Option(name: .customLong("engine"), help: "An engine to measure (repeatable; default: all; 'list --engines' names them).")
    var engines: [String] = []

    @Option(help: "Thread counts for the workloads that take one, comma-separated (default 1,2,4,8,16; quick 1,2,4,8).")
    var threads: String?

    @Option(
        name: .customLong("point"),
        help: ArgumentHelp(
            "Keep the points whose parameter NAME has VALUE, written as in benchmark names (mode:sync; repeatable: values of one name are alternatives, different names must all hold; 'list --workloads --format markdown' names them).",
            valueName: "NAME:VALUE"))
    var pointItems: [String] = []

    @Option(help: "Measured repetitions per point (default 5; quick 3).")
    var repetitions: Int?

    @Option(name: .customLong("min-time"), help: "Seconds each repetition lasts at least (default 0.2; quick 0.05).")
    var minimumSeconds: Double?

    @Option(name: .customLong("budget"), help: "Seconds one point may take before it is stopped (default 120; quick 30).")
    var budgetSeconds: Double?

    @Flag(help: "Shrink every workload so that 'bench all' on every engine ends within minutes.")
    var quick = false

    @Option(help: "The directory for the results files, <workload>.json, <workload>.csv, … (created if needed).")
    var out = "results/latest"

    @Option(
        name: .customLong("results-format"),
        help: "The files to write per workload, comma-separated (default: all): \(ResultsFormats.names.joined(separator: ", ")).")
    var resultsFormats: [String] = []

    @Option(
        help:
            "Google Benchmark JSON of the native C floor (scripts/native/run.sh): its points that match this run's join the files and the summary as engines \(NativeFloor.engines.joined(separator: " and "))."
    )
    var floor: String?

    @Flag(help: "No progress line on standard error.")
    var quiet = false

    @Option(help: BenchSummary.formatHelp)
    var format: OutputFormat?

    func validate() throws {
        if let threads { _ = try Self.threadList(threads) }
        _ = try Self.selection(pointItems)
        if let repetitions, repetitions < 1 { throw ValidationError("--repetitions must be at least 1, not \(repetitions)") }
        if let minimumSeconds, !(minimumSeconds > 0 && minimumSeconds.isFinite) {
            throw ValidationError("--min-time must be a positive number of seconds")
        }
        if let budgetSeconds, !(budgetSeconds > 0 && budgetSeconds.isFinite) {
            throw ValidationError("--budget must be a positive number of seconds")
        }
        if let problem = ResultsWriter.problem(with: out) { throw ValidationError("--out: \(problem)") }
        if !resultsFormats.isEmpty {
            do { _ = try ResultsFormats.parse(resultsFormats) } catch { throw ValidationError("--results-format: \(error)") }
        }
        if let floor { _ = try Self.floorDocument(floor) }
        try BenchSummary.check(format)
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
        if let minimumSeconds { settings.minimumSeconds = minimumSeconds }
        if let budgetSeconds { settings.budgetSeconds = budgetSeconds }
        return settings
    }

    func run(on lineup: Lineup) throws {
        try lineup.checkEngines(engines)
        try lineup.checkWorkloads(workloads)
        let chosenWorkloads =
            workloads.isEmpty || workloads.contains("all")
            ? lineup.workloads : lineup.workloads.filter { workloads.contains($0.name) }
        // Validated above; an undeclared name or value, or a selection that keeps no point, is a usage error here.
        let selection = try Self.selection(pointItems)
        do { try selection.check(against: chosenWorkloads, settings: settings) } catch { throw ValidationError(error.message) }
        let plan = BenchPlan(
            workloads: chosenWorkloads, engines: lineup.chosen(engines).map(\.profile), settings: settings, selection: selection)
        guard !plan.entries.isEmpty else {
            // Every chosen engine lacks what every chosen workload needs: a usage error, found before anything is written.
            let reasons = plan.omissions.map { String(describing: $0).split(whereSeparator: \.isNewline).joined(separator: " ") }
            writeError("arena: nothing to measure: " + reasons.joined(separator: "; "))
            throw ExitCode(64)
        }
        let writer: ResultsWriter
        do {
            // Validated above.
            let formats = resultsFormats.isEmpty ? ResultsFormats.all : try! ResultsFormats.parse(resultsFormats)
            writer = try ResultsWriter(
                directory: out, context: MachineContext.current(executable: CommandLine.arguments[0]),
                formats: formats)
        } catch {
            writeError("arena: \(error)")
            throw ExitCode(64)
        }
        let display = ProgressDisplay(quiet: quiet)
        var results: [(PointResult, any Workload)] = []
        try BenchSession(plan: plan).run(
            measure: BenchChild.run,
            progress: display.show,
            record: { result, workload in
                results.append((result, workload))
                do { try writer.record(result, of: workload) } catch {
                    writeError("arena: \(error)")
                    throw ExitCode.failure
                }
            })
        display.finish()
        if let floor {
            // Validated above; read again here so the run uses the file as it is now.
            let document = try Self.floorDocument(floor)
            for workload in chosenWorkloads {
                let (matching, unmatched) = NativeFloor.points(of: workload, in: document, settings: settings)
                // The floor's points that `--point` left out of the run are not in it: neither joined nor reported.
                for result in matching where selection.keeps(result.point) {
                    results.append((result, workload))
                    do { try writer.record(result, of: workload) } catch {
                        writeError("arena: \(error)")
                        throw ExitCode.failure
                    }
                }
                if !unmatched.isEmpty {
                    writeError(
                        "arena: --floor: \(unmatched.count) \(workload.name) points not in this run left out (first: \(unmatched[0]))")
                }
            }
        }
        let shownEngines = EngineOrder.sorted(plan.entries.map(\.engine) + results.map(\.0.engine))
        try BenchSummary(results: results, engines: shownEngines).print(format)
        print("wrote \(writer.files.count) files to \(out)")
        if results.contains(where: { !$0.0.succeeded }) { throw ExitCode.failure }
    }
}

/// The progress of a run on standard error: one live line on a terminal, a plain line per point otherwise.
final class ProgressDisplay {
    private let quiet: Bool
    private let live = isatty(2) != 0

    init(quiet: Bool) { self.quiet = quiet }

    func show(_ progress: BenchProgress) {
        guard !quiet else { return }
        let entry = progress.entry
        var line =
            "[\(progress.index)/\(progress.count)] \(entry.point.benchmarkName(engine: entry.engine))"
            + "  \(Self.duration(progress.elapsed)) elapsed"
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
