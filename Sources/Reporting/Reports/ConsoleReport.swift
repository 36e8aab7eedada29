import Bench

/// The tables of a run: one per workload, a row per point, a column per contender, each cell the headline median
/// with its spread and its ratio to the workload's reference with the ratio's 95% interval (`RatioEstimate`); then
/// the speedup over a workload's baseline where it has one, and the workload's own tables (`Workload.extraTables`).
/// Plain text for a terminal (`arena bench`) or Markdown (report.md, `--format markdown`); both read the same tables.
public enum ConsoleReport {
    /// The line that opens the tables of a run a debug build measured; `nil` for a release build or an unknown one.
    public static func buildWarning(_ machine: MachineContext?) -> String? {
        guard let build = machine?.libraryBuildType, build == "debug" else { return nil }
        return "Warning: measured by a debug build. Its numbers are not worth comparing (a debug build runs many times "
            + "slower than release): build with `swift build -c release`."
    }

    /// Aligned plain-text tables.
    public static func table(_ workloads: [WorkloadAnalysis]) -> String {
        tables(workloads).map { table in
            let lines = TextTable.lines([table.header] + table.rows, leftAligned: table.leftAligned)
            return "\(table.title)\n" + lines.joined(separator: "\n") + "\n" + table.notes.map { "  \($0)\n" }.joined() + "\n"
        }.joined()
    }

    /// GitHub-flavoured Markdown tables.
    public static func markdown(_ workloads: [WorkloadAnalysis]) -> String {
        tables(workloads).map(markdown).joined()
    }

    /// One table in Markdown: its title in bold, the table, its notes as a list.
    public static func markdown(_ table: ResultTable) -> String {
        "**\(table.title)**\n\n" + markdownRows(table) + table.notes.map { "\n- \($0)" }.joined()
            + (table.notes.isEmpty ? "\n" : "\n\n")
    }

    /// The table's header, alignment line and rows in Markdown, without its title and notes.
    public static func markdownRows(_ table: ResultTable) -> String {
        var text = "| " + table.header.map(escaped).joined(separator: " | ") + " |\n"
        text += "|" + table.header.indices.map { table.leftAligned.contains($0) ? " --- |" : " ---: |" }.joined() + "\n"
        for row in table.rows { text += "| " + row.map(escaped).joined(separator: " | ") + " |\n" }
        return text
    }

    /// A cell's text with its pipes escaped, so it stays in one Markdown cell.
    static func escaped(_ text: String) -> String { text.replacing("|", with: "\\|") }

    /// Every table of `workloads`, in order.
    public static func tables(_ workloads: [WorkloadAnalysis]) -> [ResultTable] {
        workloads.flatMap { workload in
            var tables = [headlineTable(workload)]
            if let baseline = baselineTable(workload) { tables.append(baseline) }
            if let code = workload.workload {
                tables += code.extraTables(
                    WorkloadResults(results: workload.results, engines: workload.engines, reference: workload.reference))
            }
            return tables
        }
    }

    /// The headline per point and contender: median ±CV over the rounds, with the ratio to the reference and its 95%
    /// interval.
    static func headlineTable(_ workload: WorkloadAnalysis) -> ResultTable {
        let shown = workload.engines
        var notes: [String] = []
        var noisy = false
        var unstable = false
        let rows = workload.paths.map { path in
            [path.isEmpty ? "-" : path]
                + shown.map { engine in
                    guard let result = workload.result(engine, at: path) else { return "" }
                    if let failure = result.failure {
                        notes.append("\(result.name): \(failure.kind.rawValue): \(failure.message)")
                        return failure.kind.rawValue
                    }
                    let statistics = PointStatistics(result, headline: workload.headline)
                    guard let summary = statistics.headlineSummary else { return "" }
                    var cell = Figures.format(summary.median) + " ±" + Figures.percent(summary.coefficientOfVariation)
                    if workload.noiseMark.marks(summary) {
                        cell += "!"
                        noisy = true
                    }
                    guard let reference = workload.reference, engine != reference,
                        let ratio = workload.ratioToReference(engine, at: path)
                    else { return cell }
                    guard ratio.isUnstable else { return cell + " " + ratioText(ratio) }
                    unstable = true
                    // The spread may be the reference's rather than this point's: say so where it is.
                    let referenceCV = workload.result(reference, at: path).flatMap {
                        PointStatistics($0, headline: workload.headline).headlineSummary?.coefficientOfVariation
                    }
                    if let referenceCV, referenceCV > summary.coefficientOfVariation {
                        return cell + " " + ratioText(ratio, spreadBy: "\(reference) ±\(Figures.percent(referenceCV))")
                    }
                    return cell + " " + ratioText(ratio)
                }
        }
        let direction = workload.headline.higherIsBetter ? "higher is better" : "lower is better"
        let against =
            workload.reference.map { "×\($0) with its 95% interval over paired rounds" }
            ?? "no ratios: no reference measured this workload (name one with --reference)"
        let title = "\(workload.name): \(workload.headline.title), median ±CV over rounds, \(against); \(direction)"
        if noisy {
            notes.append(
                "! marks \(workload.noiseMark.rule): the rounds disagree more than this run's usually do, read that median loosely")
        }
        if unstable {
            notes.append(
                "unstable: the ratio's interval spans more than ×\(Figures.fixed(RatioEstimate.unstableWidth, 0)) (the rounds "
                    + "disagree: a contender flipping between modes, a round gone wrong), so a second run would give another "
                    + "number; the interval is given, not the ratio; where the reference's rounds spread more than the "
                    + "point's own, the cell names the reference and its CV (\"unstable by system ±172%\")")
        }
        return ResultTable(title: title, header: ["point"] + shown, rows: rows, notes: notes)
    }

    /// The speedup over the workload's baseline (the same work without the engine, a plain loop measured in the same
    /// process: `apply`'s loop, `io-throughput`'s blocking copy), median over repetitions; nil when no point has one.
    static func baselineTable(_ workload: WorkloadAnalysis) -> ResultTable? {
        let speedups = workload.results.filter { $0.failure == nil }.compactMap { result in
            PointStatistics(result, headline: workload.headline).counters["speedup"].map { (result, $0.median) }
        }
        guard !speedups.isEmpty else { return nil }
        let shown = workload.engines.filter { engine in speedups.contains { $0.0.engine == engine } }
        var points: [String] = []
        for (result, _) in speedups where !points.contains(result.point.parameterPath) { points.append(result.point.parameterPath) }
        let rows = points.map { path in
            [path.isEmpty ? "-" : path]
                + shown.map { engine in
                    speedups.first { $0.0.engine == engine && $0.0.point.parameterPath == path }.map { Figures.ratio($0.1) } ?? ""
                }
        }
        let title =
            "\(workload.name): speedup over the baseline without the engine (a plain loop, measured in the same "
            + "process: `baseline_ns_per_op`), median over repetitions; higher is better"
        return ResultTable(title: title, header: ["point"] + shown, rows: rows)
    }

    /// A workload's combined ratio with its interval, `×1.57 (1.07–2.29)`, always with its estimate, however wide
    /// (the verdict already weighs its width); the ratio alone when there is no interval.
    public static func summaryText(_ ratio: RatioEstimate) -> String {
        Figures.ratio(ratio.value) + (intervalText(ratio).map { " " + $0 } ?? "")
    }

    /// A point's ratio with its interval: `×0.59 (0.55–0.63)`; the ratio alone when there is no interval; `unstable
    /// (0.41–2.20)`, the interval alone, when it spans more than `RatioEstimate.unstableWidth`.
    public static func ratioText(_ ratio: RatioEstimate) -> String { ratioText(ratio, spreadBy: nil) }

    /// `ratioText`, saying of an unstable ratio whose spread it comes from (`unstable by system ±172% (0.41–2.20)`)
    /// when that is the reference's rather than the point's own.
    static func ratioText(_ ratio: RatioEstimate, spreadBy cause: String?) -> String {
        guard let interval = intervalText(ratio) else { return Figures.ratio(ratio.value) }
        guard ratio.isUnstable else { return Figures.ratio(ratio.value) + " " + interval }
        return "unstable " + (cause.map { "by \($0) " } ?? "") + interval
    }

    /// `(0.55–0.63)`; `nil` without an interval.
    private static func intervalText(_ ratio: RatioEstimate) -> String? {
        guard let low = ratio.low, let high = ratio.high else { return nil }
        return "(" + Figures.ratio(low).dropFirst() + "–" + Figures.ratio(high).dropFirst() + ")"
    }
}
