import Bench

/// The summary `arena bench` prints: one table per workload, a row per point, a column per engine, each cell the
/// headline median with its spread and its ratio to `system` (measured in the same run). Plain text for a terminal
/// or Markdown for a README; both read the same grid.
public enum ConsoleReport {
    /// Aligned plain-text tables.
    public static func table(_ results: [(PointResult, any Workload)], engines: [String]) -> String {
        grids(results, engines: engines).map { grid in
            let lines = TextTable.lines([grid.header] + grid.rows, leftAligned: grid.leftAligned)
            return "\(grid.title)\n" + lines.joined(separator: "\n") + "\n" + grid.notes.map { "  \($0)\n" }.joined() + "\n"
        }.joined()
    }

    /// GitHub-flavoured Markdown tables.
    public static func markdown(_ results: [(PointResult, any Workload)], engines: [String]) -> String {
        grids(results, engines: engines).map { grid in
            var text = "**\(grid.title)**\n\n| " + grid.header.joined(separator: " | ") + " |\n"
            text += "|" + grid.header.indices.map { grid.leftAligned.contains($0) ? " --- |" : " ---: |" }.joined() + "\n"
            for row in grid.rows { text += "| " + row.joined(separator: " | ") + " |\n" }
            return text + grid.notes.map { "\n- \($0)" }.joined() + (grid.notes.isEmpty ? "\n" : "\n\n")
        }.joined()
    }

    struct Grid {
        var title: String
        var header: [String]
        var rows: [[String]]
        var notes: [String]
        /// The columns aligned left (text); the others are numbers, aligned right.
        var leftAligned: Set<Int> = [0]
    }

    static func grids(_ results: [(PointResult, any Workload)], engines: [String]) -> [Grid] {
        var order: [String] = []
        var byWorkload: [String: (workload: any Workload, results: [PointResult])] = [:]
        for (result, workload) in results {
            if byWorkload[workload.name] == nil { order.append(workload.name); byWorkload[workload.name] = (workload, []) }
            byWorkload[workload.name]!.results.append(result)
        }
        return order.flatMap { name in
            let (workload, results) = byWorkload[name]!
            var grids = [headlineGrid(workload, results, engines: engines)]
            if let baseline = baselineGrid(workload, results, engines: engines) { grids.append(baseline) }
            if workload is PoolRampWorkload, let ramp = PoolRampReport.grid(workload, results, engines: engines) { grids.append(ramp) }
            if workload is ActorContentionWorkload, let guards = GuardReport.grid(workload, results, engines: engines) {
                grids.append(guards)
            }
            return grids
        }
    }

    /// The speedup over the workload's baseline (the same work without the engine, a plain loop measured in the same
    /// process: `apply`'s loop, `io-throughput`'s blocking copy), median over repetitions; nil when no point has one.
    static func baselineGrid(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> Grid? {
        let speedups = results.filter { $0.failure == nil }.compactMap { result in
            PointStatistics(result, headline: workload.headline).counters["speedup"].map { (result, $0.median) }
        }
        guard !speedups.isEmpty else { return nil }
        let shown = engines.filter { engine in speedups.contains { $0.0.engine == engine } }
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
        return Grid(title: title, header: ["point"] + shown, rows: rows, notes: [])
    }

    /// The headline per point and engine: median ±CV over repetitions, with the ratio to `system`.
    static func headlineGrid(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> Grid {
        let shown = engines.filter { engine in results.contains { $0.engine == engine } }
        var points: [String] = []
        for result in results where !points.contains(result.point.parameterPath) { points.append(result.point.parameterPath) }
        var notes: [String] = []
        var noisy = false
        let rows = points.map { path in
            let reference = results.first { $0.engine == "system" && $0.point.parameterPath == path }
                .map { PointStatistics($0, headline: workload.headline) }?.headlineSummary?.median
            return [path.isEmpty ? "-" : path]
                + shown.map { engine in
                    guard let result = results.first(where: { $0.engine == engine && $0.point.parameterPath == path }) else { return "" }
                    if let failure = result.failure {
                        notes.append("\(result.name): \(failure.kind.rawValue): \(failure.message)")
                        return failure.kind.rawValue
                    }
                    let statistics = PointStatistics(result, headline: workload.headline)
                    guard let summary = statistics.headlineSummary else { return "" }
                    var cell = Figures.format(summary.median) + " ±" + Figures.percent(summary.coefficientOfVariation)
                    if statistics.isNoisy { cell += "!"; noisy = true }
                    if engine != "system", let reference, reference > 0 { cell += " (" + Figures.ratio(summary.median / reference) + ")" }
                    return cell
                }
        }
        let direction = workload.headline.higherIsBetter ? "higher is better" : "lower is better"
        let title = "\(workload.name): \(workload.headline.title), median ±CV over repetitions, (×system); \(direction)"
        if noisy {
            notes.append("! marks a CV above \(Int(Summary.cvThreshold * 100))%: the machine was noisy, read that number loosely")
        }
        return Grid(title: title, header: ["point"] + shown, rows: rows, notes: notes)
    }
}
