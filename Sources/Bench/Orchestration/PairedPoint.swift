import ArenaContract

/// The schedule of one point on its contenders: which process runs what, when.
///
/// Interleaved (`TrialOrder.interleaved`, the default): round r runs repetition r of every contender once, in the
/// order `RoundOrder` shuffles for the round. Before the round's trials each contender's process is started and warmed
/// up, one at a time (a fresh process per round by default, `ProcessLifetime.round`; the first round's warm-up grows
/// the operation count and later processes warm with that count). Then the trials run one after another, never two
/// at once; while one runs, the others' processes block on their standard input, and the CPU they use anyway is
/// measured from /proc and recorded with the round. Sequential (`TrialOrder.sequential`): each contender's repetitions
/// back to back in one process, the contenders one after another, as runs were ordered before.
///
/// A contender whose process fails (a wrong answer, a crash, its budget) leaves the point with that failure and the
/// rounds go on without it; its repetitions are dropped, as a failed trial's always were. Each contender's budget
/// (`BenchSettings.budgetSeconds`) counts its own processes' time, never its waits.
public struct PairedPoint {
    public let point: Point
    public let workload: any Workload
    /// The contenders measuring the point, in lineup order.
    public let engines: [String]
    public let settings: BenchSettings
    public let order: TrialOrder
    public let lifetime: ProcessLifetime
    public let seed: UInt64

    public init(
        point: Point, workload: any Workload, engines: [String], settings: BenchSettings, order: TrialOrder = .interleaved,
        lifetime: ProcessLifetime = .round, seed: UInt64
    ) {
        self.point = point
        self.workload = workload
        self.engines = engines
        self.settings = settings
        self.order = order
        self.lifetime = lifetime
        self.seed = seed
    }

    /// One contender's state across the rounds.
    private struct Contender {
        var process: (any TrialProcess)?
        /// The first warm-up's choice, handed to the contender's later processes.
        var warm: WarmUp?
        var parts: [PointResult] = []
        var failure: Failure?
        var used = 0.0
    }

    /// Runs the schedule; `start(engine, budgetLeft)` starts a contender's process with the seconds of its budget left.
    public func run(start: (String, Double) -> any TrialProcess) -> MeasuredPoint {
        order == .interleaved ? interleaved(start: start) : sequential(start: start)
    }

    // MARK: Interleaved

    private func interleaved(start: (String, Double) -> any TrialProcess) -> MeasuredPoint {
        var state = Dictionary(uniqueKeysWithValues: engines.map { ($0, Contender()) })
        var rounds: [RoundRecord] = []
        // A fresh engine per repetition is what such a workload measures: a process cannot serve two rounds.
        let freshEachRound = lifetime == .round || workload.needsFreshEngine
        for round in 0..<settings.repetitions {
            let turn = RoundOrder.order(engines, seed: seed, point: point.benchmarkName(engine: ""), round: round)
            // Start and warm up, one process at a time.
            for engine in turn where state[engine]!.failure == nil && state[engine]!.process == nil {
                let left = settings.budgetSeconds - state[engine]!.used
                guard left > 0 else {
                    state[engine]!.failure = exhausted(after: round)
                    continue
                }
                timed(&state[engine]!) { contender in
                    let process = start(engine, left)
                    switch process.warmUp(operations: contender.warm?.operations, baseline: contender.warm?.baseline) {
                    case .success(let warm):
                        contender.warm = contender.warm ?? warm
                        contender.process = process
                    case .failure(let failure):
                        contender.failure = failure
                        _ = process.finish()
                    }
                }
            }
            let running = turn.filter { state[$0]!.process != nil }
            guard !running.isEmpty else { break }
            // The trials, one at a time; the others wait.
            var trialSeconds = 0.0
            var waitingCPU: UInt64 = 0
            var readable = true
            for engine in running {
                let others = running.filter { $0 != engine }.compactMap { state[$0]!.process }
                let before = others.map { $0.cpuNanoseconds() }
                let trialStart = Deadline.now()
                timed(&state[engine]!) { contender in
                    if let failure = contender.process!.measure(round: round) {
                        contender.failure = failure
                        _ = contender.process!.finish()  // reaps it
                        contender.process = nil
                    }
                }
                trialSeconds += (Deadline.now() - trialStart).seconds
                for (process, first) in zip(others, before) {
                    // A thread that exits takes its time out of the sum: a drop counts as nothing.
                    if let first, let last = process.cpuNanoseconds() {
                        waitingCPU += last > first ? last - first : 0
                    } else {
                        readable = false
                    }
                }
            }
            rounds.append(
                RoundRecord(
                    order: running, trialSeconds: trialSeconds,
                    waitingCPUSeconds: running.count > 1 && readable ? Double(waitingCPU) / 1e9 : nil,
                    waitingProcesses: running.count - 1))
            if freshEachRound { for engine in running { finish(&state[engine]!) } }
        }
        for engine in engines where state[engine]!.process != nil { finish(&state[engine]!) }
        return MeasuredPoint(point: point, results: engines.map { result(state[$0]!, engine: $0) }, rounds: rounds)
    }

    // MARK: Sequential

    private func sequential(start: (String, Double) -> any TrialProcess) -> MeasuredPoint {
        var results: [PointResult] = []
        for engine in engines {
            var contender = Contender()
            // One process for every repetition, or one per repetition for a fresh-engine workload.
            let processes = workload.needsFreshEngine ? settings.repetitions : 1
            var round = 0
            for _ in 0..<processes where contender.failure == nil {
                let left = settings.budgetSeconds - contender.used
                guard left > 0 else {
                    contender.failure = exhausted(after: round)
                    break
                }
                timed(&contender) { contender in
                    let process = start(engine, left)
                    let warmed = process.warmUp(operations: contender.warm?.operations, baseline: contender.warm?.baseline)
                    if case .success(let warm) = warmed { contender.warm = contender.warm ?? warm }
                    if case .failure(let failure) = warmed {
                        contender.failure = failure
                        _ = process.finish()
                        return
                    }
                    contender.process = process
                    let last = processes == 1 ? settings.repetitions : round + 1
                    while round < last {
                        if let failure = process.measure(round: round) {
                            contender.failure = failure
                            _ = process.finish()  // reaps it
                            contender.process = nil
                            return
                        }
                        round += 1
                    }
                }
                finish(&contender)
            }
            results.append(result(contender, engine: engine))
        }
        return MeasuredPoint(point: point, results: results, rounds: [])
    }

    // MARK: Contenders

    /// Runs `body` on `contender`, counting its time against the contender's budget.
    private func timed(_ contender: inout Contender, _ body: (inout Contender) -> Void) {
        let start = Deadline.now()
        body(&contender)
        contender.used += (Deadline.now() - start).seconds
    }

    /// Collects the contender's process's result and ends it.
    private func finish(_ contender: inout Contender) {
        guard let process = contender.process else { return }
        timed(&contender) { contender in
            let part = process.finish()
            contender.process = nil
            if let failure = part.failure { contender.failure = failure } else { contender.parts.append(part) }
        }
    }

    private func exhausted(after round: Int) -> Failure {
        Failure(
            .stopped,
            "exceeded the time budget of \(settings.budgetSeconds) s after \(round) of \(settings.repetitions) repetitions")
    }

    /// A contender's result: its processes' parts merged, or its failure.
    private func result(_ contender: Contender, engine: String) -> PointResult {
        let seconds = contender.used
        if let failure = contender.failure {
            return PointResult(engine: engine, point: point, settings: settings, failure: failure, seconds: seconds)
        }
        guard !contender.parts.isEmpty else {
            return PointResult(
                engine: engine, point: point, settings: settings, failure: Failure(.error, "no repetitions"), seconds: seconds)
        }
        return PointResult(merging: contender.parts, settings: settings, seconds: seconds)
    }
}
