import Bench

/// What the generated blocks of README.md, docs/ and the sources say (`GeneratedBlocks`), each made from a committed
/// record: the 2-core reference run (results/reference), the 16-core run beside it (results/reference-16-cores, the two
/// as results/machines puts them), and the counts of this program's catalog and workloads. A figure a reader meets in
/// the docs is one of these, so it is what the record says; `arena docs` writes them and a test checks them. Making
/// one reads only what it names; the records are read once, by the caller.
///
/// The names (what a block's markers say):
/// - `count.rules`, `count.workloads`, `count.contenders`: the catalog's rules, the workloads `arena bench all` runs,
///   the built-in contenders (inline);
/// - `reference.provenance`: the reference run's commit, date, machine, matrix and rounds (inline);
/// - `reference.conformance`: its rules kept per contender (a table);
/// - `reference.table WORKLOAD [NAME:VALUE]`: the workload's headline table, the points with that parameter value only
///   when one is given;
/// - `reference.counters WORKLOAD ENGINE COUNTER...`: the named counters' medians per point of one engine (a table);
/// - `reference.ranges WORKLOAD [NAME:VALUE]`: each contender's point medians, lowest to highest, with the unit (inline);
/// - `reference.standings WORKLOAD`: each contender's ratio to the reference over the workload (inline);
/// - `reference.verdict WORKLOAD`: the summary's verdict of the workload, in a sentence (inline);
/// - `reference.verdicts`: the summary's verdict table, a row per workload;
/// - `reference.answer WORKLOAD`: the workload's own summary answer (queue, actor or lock?);
/// - `reference.extra WORKLOAD`: the workload's own tables (`Workload.extraTables`);
/// - `reference.noise`: the summary's noise line;
/// - `reference.peer-suite`: the peer's test suite on each engine (`PeerSuiteRecord`), a row per variant;
/// - `reference.server`: the server under load on each engine (`ServerLoadRecord`): the latency table and the target
///   at each endpoint;
/// - `reference.instructions`: instructions and heap allocations per operation, a cell each;
/// - `machines.differences`: the verdicts that differ between the two machines, and the answers per machine;
/// - `machines.differing`: how many workloads' verdicts differ, of how many ("9 of 19", inline);
/// - `machines.provenance`: the two runs, each's commit and size (inline);
/// - `machines.known`: the lines of `known-core-counts.md` (`KnownCoreCounts`): the verdicts that differ and each
///   machine's answers, tab-separated.
public struct DocFigures: Sendable {
    /// The committed 2-core reference run.
    public let reference: RunAnalysis
    /// The committed runs side by side (results/reference and results/reference-16-cores).
    public let machines: MachinesReport
    /// How many rules, workloads and contenders this program has, by name (`rules`, `workloads`, `contenders`).
    public let counts: [String: Int]

    public init(reference: RunAnalysis, machines: MachinesReport, counts: [String: Int]) {
        self.reference = reference
        self.machines = machines
        self.counts = counts
    }

    /// A name no block can be made for, or that names what the records lack.
    public struct UnknownFigure: Error, Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let reason: String
        public var description: String { "'\(name)': \(reason)" }
    }

    /// The text of the block called `name`.
    public func text(for name: String) throws(UnknownFigure) -> String {
        let words = name.split(separator: " ").map(String.init)
        let arguments = Array(words.dropFirst())
        func workload() throws(UnknownFigure) -> WorkloadAnalysis {
            guard let wanted = arguments.first, let found = reference.workloads.first(where: { $0.name == wanted }) else {
                throw UnknownFigure(name: name, reason: "no workload '\(arguments.first ?? "")' in results/reference")
            }
            return found
        }
        switch words.first ?? "" {
        case let kind where kind.hasPrefix("count."):
            guard let count = counts[String(kind.dropFirst("count.".count))] else {
                throw UnknownFigure(name: name, reason: "counts are of \(counts.keys.sorted().joined(separator: ", "))")
            }
            return "\(count)"
        case "reference.provenance": return provenance(reference)
        case "reference.conformance": return try conformance()
        case "reference.table":
            let analysis = try workload()
            var table = ConsoleReport.headlineTable(analysis)
            if arguments.count > 1 {
                let filter = arguments[1]
                table.rows = table.rows.filter { $0[0].split(separator: "/").contains { $0 == filter } }
                guard !table.rows.isEmpty else { throw UnknownFigure(name: name, reason: "no point of \(arguments[0]) has \(filter)") }
            }
            return ConsoleReport.markdownRows(table)
        case "reference.counters": return try counters(try workload(), arguments: arguments, name: name)
        case "reference.ranges":
            let analysis = try workload()
            return try ranges(analysis, filter: arguments.count > 1 ? arguments[1] : nil, name: name)
        case "reference.standings":
            let analysis = try workload()
            return analysis.standings.filter { $0.engine != analysis.reference }.map {
                "`\($0.engine)` \(ConsoleReport.summaryText($0.ratio))"
            }.joined(separator: ", ") + " the reference `\(analysis.reference ?? "none")` over the points each shares with it"
        case "reference.verdict": return verdictSentence(try workload())
        case "reference.verdicts": return SummaryReport.verdictTable(reference)
        case "reference.answer":
            let analysis = try workload()
            guard let code = analysis.workload,
                let answer = code.summaryAnswer(
                    WorkloadResults(results: analysis.results, engines: analysis.engines, reference: analysis.reference))
            else { throw UnknownFigure(name: name, reason: "\(analysis.name) gives no summary answer") }
            return answer
        case "reference.extra":
            let analysis = try workload()
            guard let code = analysis.workload else { throw UnknownFigure(name: name, reason: "no code for \(analysis.name)") }
            let tables = code.extraTables(
                WorkloadResults(results: analysis.results, engines: analysis.engines, reference: analysis.reference))
            return tables.map(ConsoleReport.markdownRows).joined(separator: "\n")
        case "reference.noise": return SummaryReport.noiseLine(reference)
        case "reference.peer-suite":
            guard let peer = reference.record.peerSuite else {
                throw UnknownFigure(name: name, reason: "the reference run has no peer suite (arena report --peer-suite)")
            }
            return peer.markdownTable()
        case "reference.server":
            guard let server = reference.record.server else {
                throw UnknownFigure(name: name, reason: "the reference run has no server load (arena report --server)")
            }
            return server.latencyAndTargets()
        case "reference.instructions": return try instructions()
        case "machines.differences": return machines.differencesMarkdown()
        case "machines.known": return KnownCoreCounts.lines(machines)
        case "machines.differing":
            let differing = machines.workloads.filter { !$0.verdictsAgree }.count
            return "\(differing) of \(machines.workloads.count)"
        case "machines.provenance":
            return machines.machines.map { machine in
                "\(machine.folder) (\(machine.cores) cores, \(machine.settings), commit \(Self.shortCommit(machine.run.record.commit)))"
            }.joined(separator: " and ")
        default:
            throw UnknownFigure(name: name, reason: "not a figure `arena docs` makes (DocFigures lists them)")
        }
    }

    // MARK: The figures

    /// "commit 9b308fd, 2026-12-02, 2 cores at 2596 MHz (Linux 6.18.44, Swift 6.3, release); 202 rules, 3 runs each;
    /// 19 workloads at full size, 4 to 24 paired rounds per point, 19 min 53 s of benchmarks".
    func provenance(_ run: RunAnalysis) -> String {
        var parts = ["commit \(Self.shortCommit(run.record.commit))"]
        if let machine = run.machine {
            parts[0] +=
                ", \(machine.date.prefix(10)), \(machine.numCPUs) cores at \(machine.mhzPerCPU) MHz (Linux "
                + "\(machine.kernel.split(separator: "-").first ?? ""), Swift \(machine.swiftVersion), \(machine.libraryBuildType))"
        }
        if let conformance = run.record.conformance {
            parts.append(
                "\(conformance.report.rules.count) rules, \(conformance.repeats) \(conformance.repeats == 1 ? "run" : "runs") each")
        }
        if let benchmarks = run.record.benchmarks {
            let counts = benchmarks.points.map { $0.results.map(\.repetitions.count).max() ?? 0 }.filter { $0 > 0 }
            let rounds = counts.min() == counts.max() ? "\(counts.min() ?? 0)" : "\(counts.min() ?? 0) to \(counts.max() ?? 0)"
            parts.append(
                "\(benchmarks.workloads.count) workloads at \(benchmarks.settings.quick ? "quick" : "full") size, \(rounds) paired rounds "
                    + "per point, \(Self.minutes(benchmarks.seconds)) of benchmarks")
        }
        return parts.joined(separator: "; ")
    }

    /// The rules kept per contender: pass, unsupported, and not its layer (blank where none).
    func conformance() throws(UnknownFigure) -> String {
        guard let report = reference.record.conformance?.report else {
            throw UnknownFigure(name: "reference.conformance", reason: "results/reference has no conformance matrix")
        }
        var text = "| contender | pass | unsupported (with the reason) | failed | not its layer |\n| --- | ---: | ---: | ---: | ---: |\n"
        for count in SummaryReport.ruleCounts(report) {
            func cell(_ value: Int) -> String { value == 0 ? "" : "\(value)" }
            text +=
                "| `\(count.engine)` | \(cell(count.kept)) | \(cell(count.unsupported)) | \(cell(count.failed)) | "
                + "\(cell(count.notChecked)) |\n"
        }
        return text
    }

    /// The medians of `COUNTER...` of engine `arguments[1]` at every point of the workload.
    func counters(_ workload: WorkloadAnalysis, arguments: [String], name: String) throws(UnknownFigure) -> String {
        guard arguments.count >= 3 else { throw UnknownFigure(name: name, reason: "name a workload, an engine and counters") }
        let engine = arguments[1]
        let wanted = Array(arguments.dropFirst(2))
        var text = "| point | " + wanted.map { "`\($0)`" }.joined(separator: " | ") + " |\n| --- |"
        text += String(repeating: " ---: |", count: wanted.count) + "\n"
        for path in workload.paths {
            guard let result = workload.result(engine, at: path) else { continue }
            let statistics = PointStatistics(result, headline: workload.headline)
            let cells = try wanted.map { counter throws(UnknownFigure) -> String in
                guard let summary = statistics.counters[counter] else {
                    throw UnknownFigure(name: name, reason: "\(engine) has no counter \(counter) at \(path)")
                }
                return Figures.format(summary.median)
            }
            text += "| \(path) | " + cells.joined(separator: " | ") + " |\n"
        }
        return text
    }

    /// "**lockfree** leads: ×30.8 (26.6–35.7) the reference `system` over its 10 points, ×3.62 (3.39–3.86) the
    /// runner-up `mutex`, round by round"; a tie or a lone contender said as such.
    func verdictSentence(_ workload: WorkloadAnalysis) -> String {
        let standings = workload.standings
        let reference = workload.reference ?? "none"
        let best = standings.first
        let toReference =
            best.map { best in
                best.engine == reference
                    ? "" : ": \(ConsoleReport.summaryText(best.ratio)) the reference `\(reference)` over its \(best.points) points"
            } ?? ""
        switch workload.judgement.verdict {
        case .leader(let leader, let runnerUp, let margin):
            return "**\(leader) leads**\(toReference), \(ConsoleReport.summaryText(margin)) the runner-up `\(runnerUp)`, round by round"
        case .tie(let first, let second, let margin):
            return "**a tie** between `\(first)` and `\(second)`\(toReference)"
                + (margin.map { ", \(ConsoleReport.summaryText($0)) the one over the other, round by round" } ?? "")
        case .alone(let engine): return "`\(engine)` alone"
        case .noReference: return "no verdict (no reference measured it)"
        }
    }

    /// "`system` 61.0k–10.4M, `mutex` 9.71M–27.1M ops/s": each contender's point medians, lowest to highest (one
    /// figure where they are one), over the points with `filter`'s parameter value when one is given.
    func ranges(_ workload: WorkloadAnalysis, filter: String?, name: String) throws(UnknownFigure) -> String {
        let paths = workload.paths.filter { path in filter.map { wanted in path.split(separator: "/").contains { $0 == wanted } } ?? true }
        guard !paths.isEmpty else { throw UnknownFigure(name: name, reason: "no point of \(workload.name) has \(filter ?? "")") }
        let parts = workload.engines.compactMap { engine -> String? in
            let medians = paths.compactMap { path in
                workload.result(engine, at: path).flatMap { PointStatistics($0, headline: workload.headline).headlineSummary?.median }
            }
            guard let low = medians.min(), let high = medians.max() else { return nil }
            let (a, b) = (Figures.format(low), Figures.format(high))
            return "`\(engine)` " + (a == b ? a : "\(a)–\(b)")
        }
        return parts.joined(separator: ", ") + " \(workload.headline.title)"
    }

    /// Instructions and heap allocations per operation, `instructions / allocations` a cell.
    func instructions() throws(UnknownFigure) -> String {
        guard let table = reference.record.instructions else {
            throw UnknownFigure(name: "reference.instructions", reason: "results/reference has no instruction counts")
        }
        var text = "| path | " + table.engines.joined(separator: " | ") + " |\n| --- |"
        text += String(repeating: " ---: |", count: table.engines.count) + "\n"
        for path in table.paths {
            text +=
                "| `\(path.rawValue)` | "
                + table.engines.map { "\(table.cell(path, $0)) / \(table.allocationCell(path, $0))" }.joined(separator: " | ")
                + " |\n"
        }
        return text
    }

    // MARK: Helpers

    /// A duration as the docs write it: "19 min 53 s", or "42 s" under a minute.
    static func minutes(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    /// A commit as the docs write it: its first 7 characters, or "unknown".
    static func shortCommit(_ commit: String?) -> String { commit.map { String($0.prefix(7)) } ?? "unknown" }
}
