/// The table `actor-contention` gets beside its headline, answering "queue, actor or lock?": per task count and
/// engine, each guard's increments per second (median over repetitions), how many times slower than the engine's
/// fastest guard at that task count it is, and which guard that is; and the summary's answer from it. It formats
/// what the workload measured; it measures nothing.
extension ActorContentionWorkload {
    public func extraTables(_ results: WorkloadResults) -> [ResultTable] {
        GuardTable.table(self, results.results, engines: results.engines).map { [$0] } ?? []
    }

    public func summaryAnswer(_ results: WorkloadResults) -> String? {
        GuardTable.answer(self, results.results, engines: results.engines, reference: results.reference)
    }
}

/// The guard rows of `actor-contention` and their renderings.
enum GuardTable {
    /// One engine at one task count: its points there, each guard's median and the fastest of them.
    struct Row {
        var tasks: String
        var engine: String
        var points: [PointResult]
        /// Increments per second, median over repetitions, per guard that has a number.
        var medians: [String: Double]
        /// The guard with the highest median, and that median; `nil` when no guard has a number.
        var fastest: (guarding: String, median: Double)?
    }

    /// A row per task count (in the order first met) and engine (in `engines` order) with points there.
    static func rows(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> [Row] {
        var taskCounts: [String] = []
        for result in results {
            if let tasks = result.point["tasks"], !taskCounts.contains(tasks) { taskCounts.append(tasks) }
        }
        var rows: [Row] = []
        for tasks in taskCounts {
            for engine in engines {
                let points = results.filter { $0.engine == engine && $0.point["tasks"] == tasks }
                guard !points.isEmpty else { continue }
                let medians = Dictionary(
                    points.compactMap { result -> (String, Double)? in
                        guard result.failure == nil, let guarding = result.point["guard"],
                            let median = PointStatistics(result, headline: workload.headline).headlineSummary?.median
                        else { return nil }
                        return (guarding, median)
                    }, uniquingKeysWith: { first, _ in first })
                let fastest = medians.max { $0.value < $1.value }.map { (guarding: $0.key, median: $0.value) }
                rows.append(Row(tasks: tasks, engine: engine, points: points, medians: medians, fastest: fastest))
            }
        }
        return rows
    }

    /// The grid: a row per task count and engine (engines in `engines` order), or `nil` when no point has a row.
    static func table(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> ResultTable? {
        let guards = ActorContentionWorkload.guards
        let rows = rows(workload, results, engines: engines).map { row in
            let cells = guards.map { guarding -> String in
                if let failure = row.points.first(where: { $0.point["guard"] == guarding })?.failure { return failure.kind.rawValue }
                guard let median = row.medians[guarding], let fastest = row.fastest, median > 0 else { return "" }
                let slower = fastest.median / median
                return Figures.format(median)
                    + (guarding == fastest.guarding ? " (fastest)" : " (÷" + Figures.format(slower) + ")")
            }
            return [row.tasks, row.engine] + cells + [row.fastest.map { ActorContentionWorkload.title(of: $0.guarding) } ?? ""]
        }
        guard !rows.isEmpty else { return nil }
        let notes = [
            "each cell: increments per second, median over repetitions (÷N: N times slower than the fastest guard of "
                + "that engine at that task count); higher is better",
            "an empty cell: not measured there; queue-sync needs dispatch-objects and blocking-in-blocks (a task waiting "
                + "in sync blocks a thread of the engine's pool), which swift and actor lack",
            "Synchronization.Mutex is the standard library's lock (points `guard:mutex`), not the engine `mutex`",
        ]
        return ResultTable(
            title: "\(workload.name): queue, actor or lock? Each guard's increments/s per engine and task count",
            header: ["tasks", "engine"] + guards.map(ActorContentionWorkload.title(of:)) + ["fastest"], rows: rows, notes: notes,
            leftAligned: [1, 2 + guards.count])
    }

    /// Two sentences from the guard table: which guard is fastest in how many of its rows (engine and task count), and
    /// each guard's increments/s at the largest task count on `reference` (or the first engine measured there).
    /// `nil` without a number.
    static func answer(_ workload: any Workload, _ results: [PointResult], engines: [String], reference: String?) -> String? {
        let rows = rows(workload, results, engines: engines).filter { $0.fastest != nil }
        guard !rows.isEmpty else { return nil }
        var wins: [(guarding: String, count: Int)] = []
        for row in rows {
            guard let fastest = row.fastest?.guarding else { continue }
            if let index = wins.firstIndex(where: { $0.guarding == fastest }) { wins[index].count += 1 } else { wins.append((fastest, 1)) }
        }
        // Most rows first; a tie keeps the order the guards were first met in.
        wins = wins.enumerated().sorted { ($0.element.count, $1.offset) > ($1.element.count, $0.offset) }.map(\.element)
        var text =
            "**Queue, actor or lock?** (`actor-contention`) The fastest guard is "
            + wins.map { "\(ActorContentionWorkload.title(of: $0.guarding)) in \($0.count)" }.joined(separator: ", ")
            + " of the \(rows.count) rows of engine and task count."
        let largest = rows.map(\.tasks).max { (Int($0) ?? 0) < (Int($1) ?? 0) }!
        let atLargest = rows.filter { $0.tasks == largest }
        if let row = atLargest.first(where: { $0.engine == reference }) ?? atLargest.first, let fastest = row.fastest {
            let ordered = row.medians.sorted { $0.value > $1.value }
            let figures = ordered.map { guarding, median in
                "\(ActorContentionWorkload.title(of: guarding)) \(Figures.format(median))"
                    + (guarding == fastest.guarding || median <= 0 ? "" : " (÷\(Figures.format(fastest.median / median)))")
            }
            text += " At \(largest) tasks on \(row.engine): " + figures.joined(separator: ", ") + " increments/s."
        }
        return text
    }
}
