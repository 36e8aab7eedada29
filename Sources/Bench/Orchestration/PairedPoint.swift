import ArenaContract

/// The schedule of one point on its contenders: which process runs what, when.
///
/// Interleaved (`TrialOrder.interleaved`, the default): round r runs repetition r of every contender once, in the
/// order `RoundOrder` shuffles for the round. Before the round's trials each contender's process is started (the
/// round's new processes together) and warmed up, one at a time (a fresh process per round by default,
/// `ProcessLifetime.round`; the first round's warm-up grows the operation count and measures the workload's baseline,
/// and later processes warm with that count and take that baseline). Then the trials run one after another, never two
/// at once; while one runs, the others' processes block on their standard input, and the CPU they use anyway is
/// measured from /proc and recorded with the round. A run takes each point a round at a time (`runRound`), so it can
/// spread a point's rounds over its whole length (`BenchSession`), and once its first rounds ran, give it more or fewer
/// than it was planned with (`plan(rounds:)`, `RoundAllocation`). Sequential (`TrialOrder.sequential`): each
/// contender's repetitions back to back in one process, the contenders one after another, as runs were ordered before.
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
    /// The point's rounds: `settings.repetitions`, or more for a workload of few points (`BenchSettings.rounds`), until
    /// a run shares out its later rounds (`plan(rounds:)`).
    public private(set) var rounds: Int
    /// The first warm-up, in seconds, beyond which a contender keeps its process (`slowStartSeconds` by default).
    public var slowStart = PairedPoint.slowStartSeconds

    /// Each contender's state across the rounds.
    private var state: [String: Contender]
    /// The rounds run so far.
    private var records: [RoundRecord] = []
    /// The wall seconds each round run so far took, its processes' start, warm-up and finish included.
    private var roundSeconds: [Double] = []
    /// The next round `runRound` runs (under the interleaved order); `rounds` once every round ran.
    public private(set) var nextRound = 0

    /// The schedule of `point` on `engines`, `rounds` rounds (`settings.repetitions` by default).
    public init(
        point: Point, workload: any Workload, engines: [String], settings: BenchSettings, order: TrialOrder = .interleaved,
        lifetime: ProcessLifetime = .round, seed: UInt64, rounds: Int? = nil
    ) {
        self.rounds = rounds ?? settings.repetitions
        self.point = point
        self.workload = workload
        self.engines = engines
        self.settings = settings
        self.order = order
        self.lifetime = lifetime
        self.seed = seed
        state = Dictionary(uniqueKeysWithValues: engines.map { ($0, Contender()) })
    }

    /// One contender's state across the rounds.
    private struct Contender {
        var process: (any TrialProcess)?
        /// The first warm-up's choice, handed to the contender's later processes.
        var warm: WarmUp?
        var parts: [PointResult] = []
        var failure: Failure?
        var used = 0.0
        /// How long the first warm-up took, and whether the contender keeps its first process for every round.
        var firstWarmUpSeconds: Double?
        var keepsProcess = false
    }

    /// A contender whose first warm-up took longer than this many of its trials, and at least
    /// `slowStartSeconds`, keeps that process for the point's later rounds: it pays its start-up once rather than
    /// once per round (`system` at `read-mostly-cache`'s `guard:barrier-queue/tasks:16`: 14 s before the first trial
    /// of a fresh process, while libdispatch's pool grows under tasks blocked in `sync`, then 3 ms a trial). Its rounds
    /// then share one process's luck, and the point's record says so (`MeasuredPoint.keptProcesses`).
    public static let slowStartTrials = 10.0
    public static let slowStartSeconds = 1.0

    /// Whether a process of this point stays alive between its rounds (one per contender for the point): a run then
    /// takes the point's rounds back to back rather than spreading them.
    public var keepsProcesses: Bool { lifetime == .point && !workload.needsFreshEngine }

    /// Whether a contender keeps its first process for every round (its start-up cost more than
    /// `slowStartTrials` trials): a run then takes the point's remaining rounds back to back, since a process idle
    /// for minutes lets its pool's threads go and would pay its start-up again.
    public var keepsSlowStarter: Bool { engines.contains { state[$0]!.keepsProcess && state[$0]!.process != nil } }

    /// What a round of the point costs, in seconds: the mean of its rounds after the first (whose warm-up sizes the
    /// trials), or the first's; `nil` before any.
    public var secondsPerRound: Double? {
        let later = roundSeconds.dropFirst()
        if !later.isEmpty { return later.reduce(0, +) / Double(later.count) }
        return roundSeconds.first
    }

    /// The most rounds the point can take with every contender still in it kept within its time budget
    /// (`BenchSettings.budgetSeconds`, its own processes' time): the rounds run, and as many more as half of what each
    /// has left affords at its pace so far (a contender's rounds vary: `system`'s contended `sync` from 38 ms to 1.4 s
    /// a trial), the fewest over the contenders; `nil` before any round or with no contender left.
    public var roundsWithinBudget: Int? {
        guard nextRound > 0 else { return nil }
        let more = engines.compactMap { engine -> Int? in
            let contender = state[engine]!
            guard contender.failure == nil, contender.used > 0 else { return nil }
            let pace = contender.used / Double(nextRound)
            return Int(min(1e9, max(0, settings.budgetSeconds - contender.used) / pace / 2))
        }
        return more.min().map { nextRound + $0 }
    }

    /// Sets the point's rounds to `rounds`, at least those it ran: what a run decides once every point had its first
    /// rounds (`RoundAllocation`).
    public mutating func plan(rounds: Int) {
        precondition(rounds >= nextRound, "\(point.benchmarkName(engine: "*")) ran \(nextRound) rounds, more than \(rounds)")
        self.rounds = rounds
    }

    /// Whether every round ran (or every contender failed).
    public var isDone: Bool {
        nextRound >= rounds || engines.allSatisfy { state[$0]!.failure != nil }
    }

    /// Runs the whole schedule; `start(engine, budgetLeft)` starts a contender's process with the seconds of its
    /// budget left.
    public mutating func run(start: (String, Double) -> any TrialProcess) -> MeasuredPoint {
        if order == .sequential { return sequential(start: start) }
        while !isDone { runRound(start: start) }
        return finish()
    }

    /// The point as measured so far: each contender's finished processes merged (or its failure), and the rounds.
    public var measured: MeasuredPoint {
        let kept = engines.filter { state[$0]!.keepsProcess }
        return MeasuredPoint(
            point: point, results: engines.map { result(state[$0]!, engine: $0) }, rounds: records,
            keptProcesses: kept.isEmpty ? nil : kept)
    }

    /// Ends the processes still alive (one per contender for the point) and returns the point.
    public mutating func finish() -> MeasuredPoint {
        for engine in engines where state[engine]!.process != nil { finish(&state[engine]!) }
        return measured
    }

    // MARK: Interleaved

    /// Runs round `nextRound` of the interleaved order: starts and warms up the processes the round needs, runs each
    /// contender's trial in the round's order, and, with a process per round, collects and ends them.
    public mutating func runRound(start: (String, Double) -> any TrialProcess) {
        guard !isDone else { return }
        let round = nextRound
        nextRound += 1
        let began = Deadline.now()
        defer { roundSeconds.append((Deadline.now() - began).seconds) }
        // A fresh engine per repetition is what such a workload measures: a process cannot serve two rounds.
        let freshEachRound = !keepsProcesses
        let turn = RoundOrder.order(engines, seed: seed, point: point.benchmarkName(engine: ""), round: round)
        // Start the round's new processes together (a process loads while the others do, or warm up: nothing is
        // measured yet), then warm them up one at a time.
        var started: [String: any TrialProcess] = [:]
        for engine in turn where state[engine]!.failure == nil && state[engine]!.process == nil {
            let left = settings.budgetSeconds - state[engine]!.used
            guard left > 0 else {
                state[engine]!.failure = exhausted(after: round)
                continue
            }
            timed(&state[engine]!) { _ in started[engine] = start(engine, left) }
        }
        for engine in turn {
            guard let process = started[engine] else { continue }
            timed(&state[engine]!) { contender in
                let began = Deadline.now()
                switch process.warmUp(operations: contender.warm?.operations, baseline: contender.warm?.baseline) {
                case .success(let warm):
                    contender.warm = contender.warm ?? warm
                    contender.firstWarmUpSeconds = contender.firstWarmUpSeconds ?? (Deadline.now() - began).seconds
                    contender.process = process
                case .failure(let failure):
                    contender.failure = failure
                    _ = process.finish()
                }
            }
        }
        let running = turn.filter { state[$0]!.process != nil }
        guard !running.isEmpty else { return }
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
            let trial = (Deadline.now() - trialStart).seconds
            trialSeconds += trial
            if round == 0, let warm = state[engine]!.firstWarmUpSeconds,
                warm >= slowStart && warm > Self.slowStartTrials * trial, !workload.needsFreshEngine
            {
                state[engine]!.keepsProcess = true
            }
            for (process, first) in zip(others, before) {
                // A thread that exits takes its time out of the sum: a drop counts as nothing.
                if let first, let last = process.cpuNanoseconds() {
                    waitingCPU += last > first ? last - first : 0
                } else {
                    readable = false
                }
            }
        }
        records.append(
            RoundRecord(
                order: running, trialSeconds: trialSeconds,
                waitingCPUSeconds: running.count > 1 && readable ? Double(waitingCPU) / 1e9 : nil,
                waitingProcesses: running.count - 1))
        if freshEachRound { for engine in running where !state[engine]!.keepsProcess { finish(&state[engine]!) } }
    }

    // MARK: Sequential

    private mutating func sequential(start: (String, Double) -> any TrialProcess) -> MeasuredPoint {
        var results: [PointResult] = []
        for engine in engines {
            var contender = Contender()
            // One process for every repetition, or one per repetition for a fresh-engine workload.
            let processes = workload.needsFreshEngine ? rounds : 1
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
                    let last = processes == 1 ? rounds : round + 1
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
        nextRound = rounds
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
            "exceeded the time budget of \(settings.budgetSeconds) s after \(round) of \(rounds) repetitions")
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
