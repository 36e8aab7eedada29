import Bench

/// The report's thread section: per workload and engine, the most threads the engine had at once in any of the
/// workload's points (the `engine_threads` counter `PointRunner` records), held against `cores + 2` for workloads
/// whose blocks do not block; and every point over that bound. It formats what was counted; it counts nothing.
public enum ThreadReport {
    /// The bound for a workload whose blocks do not block: a worker per core, and two more for an engine's own
    /// threads (a starvation watch, a timer or reactor thread).
    public static func bound(cores: Int) -> Int { cores + 2 }

    /// The Markdown section body: the table, its notes, and the points over the bound.
    public static func markdown(_ workloads: [WorkloadAnalysis], engines: [String], cores: Int) -> String {
        let bound = bound(cores: cores)
        let shown = engines.filter { engine in
            workloads.contains { $0.results.contains { $0.engine == engine && peak(of: $0) != nil } }
        }
        guard !shown.isEmpty else { return "Not counted in this folder's results.\n" }
        var text =
            "The most threads each engine had at once in a workload's points: the process's threads, sampled "
            + "every 5 ms, less the main thread and the harness's own (the workload's callers, the sampler). An engine "
            + "whose blocks do not block needs a worker per core and at most two threads of its own: at most "
            + "\(bound) here (\(cores) cores + 2). **Bold**: over that bound.\n\n"
        text += "| workload | bound | " + shown.joined(separator: " | ") + " |\n"
        text += "| --- | --- |" + String(repeating: " ---: |", count: shown.count) + "\n"
        var over: [String] = []
        var blockingPoints = false
        // A workload another program measured (the server, whose threads are the server's) has no counts: no row.
        for workload in workloads where workload.results.contains(where: { peak(of: $0) != nil }) {
            let results = workload.results
            let limit = workload.entry.blocksInBlocks ? nil : bound
            // A point that needs blocking-in-blocks waits inside the engine's threads on purpose (a task in `sync`):
            // an engine rightly starts threads for it, so the bound holds for the workload's other points only.
            let bounded = { (result: PointResult) in !workload.entry.blockingPoints.contains(result.point.parameterPath) }
            if limit != nil && results.contains(where: { !bounded($0) }) { blockingPoints = true }
            let cells = shown.map { engine -> String in
                let mine = results.filter { $0.engine == engine }
                guard let most = mine.compactMap(peak(of:)).max() else { return "" }
                let boundedMost = mine.filter(bounded).compactMap(peak(of:)).max() ?? 0
                return limit.map { boundedMost > $0 } == true ? "**\(most)**" : "\(most)"
            }
            text +=
                "| \(workload.name) | " + (limit.map { "≤ \($0)" } ?? "none: its blocks block") + " | "
                + cells.joined(separator: " | ") + " |\n"
            guard let limit else { continue }
            for result in results where shown.contains(result.engine) && bounded(result) {
                if let most = peak(of: result), most > limit { over.append("- `\(result.name)`: \(most)") }
            }
        }
        if blockingPoints {
            text +=
                "\nPoints that need `blocking-in-blocks` (tasks waiting in an engine's `sync`) are shown but not held "
                + "to the bound: a pool rightly adds threads for them.\n"
        }
        text +=
            over.isEmpty
            ? "\nNo point of a workload whose blocks do not block went over the bound.\n"
            : "\nPoints over the bound:\n\n" + over.joined(separator: "\n") + "\n"
        return text
    }

    /// The most engine threads any repetition of `result` counted; nil when none was counted (a failed point, the
    /// native floor, results written before the count existed).
    static func peak(of result: PointResult) -> Int? {
        result.repetitions.compactMap { $0.counters[PointRunner.engineThreadsCounter] }.max().map { Int($0) }
    }
}
