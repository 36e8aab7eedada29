/// The table `actor-contention` gets beside its headline, answering "queue, actor or lock?": per task count and
/// engine, each guard's increments per second (median over repetitions), how many times slower than the engine's
/// fastest guard at that task count it is, and which guard that is. It formats what `ActorContentionWorkload` measured; it
/// measures nothing.
enum GuardReport {
    /// The grid: a row per task count and engine (engines in `engines` order), or `nil` when no point has a row.
    static func grid(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> ConsoleReport.Grid? {
        var taskCounts: [String] = []
        for result in results {
            if let tasks = result.point["tasks"], !taskCounts.contains(tasks) { taskCounts.append(tasks) }
        }
        let guards = ActorContentionWorkload.guards
        var rows: [[String]] = []
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
                let fastest = medians.max { $0.value < $1.value }
                let cells = guards.map { guarding -> String in
                    if let failure = points.first(where: { $0.point["guard"] == guarding })?.failure { return failure.kind.rawValue }
                    guard let median = medians[guarding], let fastest, median > 0 else { return "" }
                    let slower = fastest.value / median
                    return ConsoleReport.format(median)
                        + (guarding == fastest.key ? " (fastest)" : " (÷" + ConsoleReport.format(slower) + ")")
                }
                rows.append([tasks, engine] + cells + [fastest?.key ?? ""])
            }
        }
        guard !rows.isEmpty else { return nil }
        let notes = [
            "each cell: increments per second, median over repetitions (÷N: N times slower than the fastest guard of "
                + "that engine at that task count); higher is better",
            "an empty cell: not measured there; queue-sync needs dispatch-objects and blocking-in-blocks (a task waiting "
                + "in sync blocks a thread of the engine's pool), which swift and actor lack",
        ]
        return ConsoleReport.Grid(
            title: "\(workload.name): queue, actor or lock? Each guard's increments/s per engine and task count",
            header: ["tasks", "engine"] + guards + ["fastest"], rows: rows, notes: notes, leftAligned: [1, 2 + guards.count])
    }
}
