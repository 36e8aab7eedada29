/// The table `pool-ramp` gets beside its headline: per number of blocks and engine, the round's figures (medians over
/// repetitions), whether they meet the target the workload recorded, and how the pool met its blocked workers. It
/// formats counters `PoolRampWorkload` measured and judges them; it measures nothing.
extension PoolRampWorkload {
    public func extraTables(_ results: WorkloadResults) -> [ResultTable] {
        PoolRampTable.table(self, results.results, engines: results.engines).map { [$0] } ?? []
    }
}

/// `pool-ramp`'s table and its verdicts.
enum PoolRampTable {
    /// How an engine's pool met K blocked workers, judged from one point's medians.
    enum Verdict: String {
        /// Faster than a pool that never grows, within the thread bound: it added threads for the blocked workers.
        case ramps
        /// No faster than a pool of `cores` threads that never grows (`fixed_pool_ms`).
        case starves
        /// More threads than `target_threads`: threads no block needed.
        case explodes

        /// The verdict on a point's medians. Threads are judged first: a pool that finishes in time by starting
        /// many more threads than blocks still explodes.
        init(finish: Double, peakThreads: Double, targetThreads: Double, fixedPool: Double) {
            if peakThreads > targetThreads {
                self = .explodes
            } else if finish >= fixedPool {
                self = .starves
            } else {
                self = .ramps
            }
        }
    }

    /// The grid: a row per point and engine (engines in `engines` order), or `nil` when no point has a row.
    static func table(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> ResultTable? {
        var paths: [String] = []
        for result in results where !paths.contains(result.point.parameterPath) { paths.append(result.point.parameterPath) }
        var rows: [[String]] = []
        for path in paths {
            for engine in engines {
                guard let result = results.first(where: { $0.engine == engine && $0.point.parameterPath == path }) else { continue }
                rows.append(row(result, label: result.point["blocks"] ?? path, headline: workload.headline))
            }
        }
        guard !rows.isEmpty else { return nil }
        let notes = [
            "finish: from the first submission until the last block's sleep ended; first start: from the trivial "
                + "block's submission (right after the K) until it started; engine threads: the most the process had "
                + "during the round, less those it had just before (3 in `arena bench`'s child: the caller and two samplers)",
            "target: finish within twice the blocking time plus 50 ms, with at most K + cores + 2 engine threads; "
                + "fixed pool: what cores threads that never grow take (⌈K / cores⌉ blocking times)",
            "pool: explodes = more engine threads than K + cores + 2; starves = no faster than the fixed pool; "
                + "ramps = faster, within the thread bound",
        ]
        return ResultTable(
            title: "\(workload.name): the round's figures, median over repetitions, against the target",
            header: [
                "blocks", "engine", "finish (ms)", "first start (ms)", "engine threads", "target", "meets target",
                "fixed pool (ms)", "pool",
            ],
            rows: rows, notes: notes, leftAligned: [1, 5, 6, 8])
    }

    /// One row: the medians with their verdicts, or the failure's kind where the point has no number.
    static func row(_ result: PointResult, label: String, headline: Headline) -> [String] {
        if let failure = result.failure { return [label, result.engine, "", "", "", "", "", "", failure.kind.rawValue] }
        let medians = PointStatistics(result, headline: headline).counters.mapValues(\.median)
        guard let finish = medians["finish_ms"], let start = medians["first_start_ms"],
            let threads = medians["peak_engine_threads"], let target = medians["target_ms"],
            let targetThreads = medians["target_threads"], let fixedPool = medians["fixed_pool_ms"]
        else {
            return [label, result.engine, "", "", "", "", "", "", "counters missing"]
        }
        let meets = finish <= target && threads <= targetThreads
        let verdict = Verdict(finish: finish, peakThreads: threads, targetThreads: targetThreads, fixedPool: fixedPool)
        return [
            label, result.engine, Figures.format(finish), Figures.format(start), Figures.fixed(threads, 0),
            "≤ \(Figures.fixed(target, 0)) ms, ≤ \(Figures.fixed(targetThreads, 0)) threads",
            meets ? "yes" : "no", Figures.format(fixedPool), verdict.rawValue,
        ]
    }
}
