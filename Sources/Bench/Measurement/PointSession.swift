import ArenaContract
import Glibc
import Harness

/// One point of one workload on one engine, measured in this process trial by trial: the warm-up that sizes a trial,
/// then each measured repetition when asked, then the result. `PointRunner.measure` drives one from start to end; a
/// benchmark child drives one from its parent's commands, so the parent can interleave the repetitions of several
/// contenders' processes (`PairedPoint`).
///
/// Between calls the session costs nothing: the thread sampler is paused, blocked, and the CPU and context-switch
/// counts cover the measured trials only. Every call's waits end at the point's time budget, counted over the time
/// spent inside this session's calls (a process waiting for its turn does not use its budget). Not thread-safe: one
/// thread drives it.
public final class PointSession {
    /// The point measured.
    public let point: Point
    /// The engine's registry name.
    public let engine: String
    /// The sizes the session measures under.
    public let settings: BenchSettings
    private let workload: any Workload
    private let spinner: Spinner
    private let trial: (Int, TrialContext) throws(WorkloadError) -> Trial
    private let sampler = ResourceSampler()
    private let started = Deadline.now()

    /// The operation count every measured trial runs, once the warm-up chose it.
    public private(set) var operations: Int?
    /// The workload's baseline (wall ns per operation without the engine), once the warm-up measured or was given it.
    public private(set) var baseline: Double?
    private var repetitions: [Repetition] = []
    private var latencies: LatencyRecorder?
    private var cpu = (user: 0.0, system: 0.0, voluntary: 0, involuntary: 0)
    private var used = 0.0

    /// A session on `point` of `workload` on the engine called `engine`, with `trial` (the workload's trial compiled
    /// for that engine's type: `PointRunner.session(_:of:on:)` makes it). Starts the thread sampler, then pauses it.
    public init(
        point: Point, workload: any Workload, engine: String, settings: BenchSettings, spinner: Spinner,
        trial: @escaping (Int, TrialContext) throws(WorkloadError) -> Trial
    ) {
        self.point = point
        self.workload = workload
        self.engine = engine
        self.settings = settings
        self.spinner = spinner
        self.trial = trial
        sampler.pause()
    }

    /// A process warmed with another's count runs one trial of that count divided by this (and never fewer than the
    /// workload's `initialOperations`): a few milliseconds in a quick run, enough to start the engine's threads and
    /// touch its memory, and an eighth of a repetition's cost (a run starts a process per contender and round).
    public static let knownWarmUpShare = 8

    /// A process warmed with another's count keeps it unless its warm-up says a trial of it would last more than
    /// this many times `minimumSeconds` here, or less than `minimumSeconds` over it (`fitted`).
    public static let processPaceFactor = 10.0

    /// A process warmed with another's count measures at a count of its own when a trial of `known` would last less
    /// than this share of `minimumSeconds` here (`fitted`).
    public static let fastProcessShare = 0.5

    /// The count a process warmed with `known` (another process's choice) measures at, given its own warm-up trial of
    /// `warmed` operations that took `seconds`: `known`, unless a trial of it would last more than
    /// `processPaceFactor` times `minimumSeconds` here, or less than `fastProcessShare` of it; then the count a trial
    /// of 20% past `minimumSeconds` takes at the warm-up's pace, never below `floor` nor above `processPaceFactor`
    /// times `known`. A contender's processes differ that much: the tutorial engine's serial queue under 16 tasks ran
    /// 2M calls/s in one process and 12k in the next, so the first process's count made 5 s trials that ran the point
    /// out of its budget; `rw-barrier` at 50% reads on one thread ran 1,000 operations in 95 ms in lockfree's first
    /// process and in 2 ms in the next (measured in one quick run: 160 of 2,181 trials under half the minimum, 63 of
    /// them `rw-barrier`'s), a trial too short to stand above the clock's and the wake-ups' noise. A rate is
    /// operations over time, so such a repetition still pairs with its round's others; its `operations` in the record
    /// says what it ran.
    public static func fitted(known: Int, warmed: Int, seconds: Double, minimumSeconds: Double, floor: Int) -> Int {
        guard warmed > 0, seconds > 0 else { return known }
        let projected = seconds * Double(known) / Double(warmed)
        guard projected > processPaceFactor * minimumSeconds || projected < fastProcessShare * minimumSeconds else {
            return known
        }
        let aimed = Double(warmed) * minimumSeconds * 1.2 / seconds
        let ceiling = Double(known) * processPaceFactor
        return max(floor, Int(min(aimed, ceiling).rounded(.up)))
    }

    /// Seconds of the point's budget left: the budget less the time spent in this session's calls.
    public var remainingSeconds: Double { settings.budgetSeconds - used }

    // MARK: Warm-up

    /// Chooses the operation count and warms the engine. Without `known`, trials grow the count (as Google Benchmark
    /// does) until one lasts `minimumSeconds`; with it (the count another process of this contender chose), one trial
    /// of an eighth of that count (`knownWarmUpShare`) warms caches, threads, pools and lazily made state, and says whether this process is so much slower or faster that it must measure
    /// at a count of its own (`fitted`). A workload that `needsFreshEngine` gets no trial at all: its
    /// repetitions are to meet the engine as a process starts it, so every one runs `initialOperations`. Then the
    /// workload's baseline, if it has one, is measured once, unless `knownBaseline` gives the one another process of
    /// this contender measured. Returns the count; throws on a wrong answer or when the budget ran out.
    @discardableResult
    public func warmUp(operations known: Int? = nil, baseline knownBaseline: Double? = nil) throws(WorkloadError) -> Int {
        try active { context throws(WorkloadError) in
            let count: Int
            if workload.needsFreshEngine {
                count = max(1, workload.initialOperations(point))
            } else if let known {
                let floor = max(1, workload.initialOperations(point))
                let warmed = max(floor, known / Self.knownWarmUpShare)
                let seconds = try trial(warmed, context).elapsed.wallSeconds
                count = Self.fitted(
                    known: known, warmed: warmed, seconds: seconds, minimumSeconds: settings.minimumSeconds, floor: floor)
            } else {
                count = try grow(context)
            }
            operations = count
            if let knownBaseline {
                baseline = knownBaseline
            } else {
                baseline = try workload.baseline(point, operations: count, context: context)
            }
            return count
        }
    }

    /// Runs trials with growing operation counts until one lasts `minimumSeconds`; returns that count.
    private func grow(_ context: TrialContext) throws(WorkloadError) -> Int {
        let target = settings.minimumSeconds
        var operations = max(1, workload.initialOperations(point))
        while true {
            let seconds = try trial(operations, context).elapsed.wallSeconds
            if seconds >= target || operations >= 1 << 40 { return operations }
            if Deadline.now() >= context.deadline {
                throw WorkloadError("exceeded the time budget of \(settings.budgetSeconds) s while warming up", timedOut: true)
            }
            // Aim 20% past the target, growing at most tenfold per step, as Google Benchmark does.
            let factor = seconds > 0 ? min(10, target * 1.2 / seconds) : 10
            operations = max(operations + 1, Int(Double(operations) * factor))
        }
    }

    // MARK: Repetitions

    /// Measures one repetition, `round` of the point (the round of the parent's schedule it belongs to), at the
    /// warm-up's count, and keeps it. Throws on a wrong answer, and when the budget ran out before it started.
    @discardableResult
    public func measure(round: Int) throws(WorkloadError) -> Repetition {
        let count: Int
        if let chosen = operations { count = chosen } else { count = try warmUp() }
        return try active { context throws(WorkloadError) in
            guard Deadline.now() < context.deadline else {
                throw WorkloadError(
                    "exceeded the time budget of \(settings.budgetSeconds) s after \(repetitions.count) of "
                        + "\(settings.repetitions) repetitions", timedOut: true)
            }
            let before = ResourceSampler.usage()
            let measured = try trial(count, context)
            let after = ResourceSampler.usage()
            let figures = ResourceSampler.figures(from: before, to: after, peakThreads: 0)
            cpu.user += figures.userSeconds
            cpu.system += figures.systemSeconds
            cpu.voluntary += figures.voluntarySwitches
            cpu.involuntary += figures.involuntarySwitches
            if let recorded = measured.latencies {
                if latencies == nil { latencies = recorded } else { latencies!.merge(recorded) }
            }
            var repetition = Repetition(
                operations: measured.operations, items: measured.items,
                wallNanoseconds: measured.elapsed.wallNanoseconds, cpuNanoseconds: measured.elapsed.cpuNanoseconds,
                latency: measured.latencies?.percentiles, counters: measured.counters, round: round)
            if let baseline {
                repetition.counters["baseline_ns_per_op"] = baseline
                repetition.counters["speedup"] = baseline / repetition.nanosecondsPerOperation
            }
            repetitions.append(repetition)
            return repetition
        }
    }

    /// The result: every repetition measured, each with the engine's peak thread count over the session
    /// (`PointRunner.engineThreadsCounter`), the merged latencies, and the CPU and switches of the trials. Stops the
    /// sampler; call once, last.
    public func finish() -> PointResult {
        let peaks = sampler.stop()
        var result = PointResult(engine: engine, point: point, settings: settings, seconds: (Deadline.now() - started).seconds)
        result.repetitions = repetitions.map { repetition in
            var repetition = repetition
            repetition.counters[PointRunner.engineThreadsCounter] = Double(peaks.engine)
            return repetition
        }
        result.latency = latencies?.percentiles
        result.resources = ResourceUsage(
            peakThreads: peaks.all, userSeconds: cpu.user, systemSeconds: cpu.system, voluntarySwitches: cpu.voluntary,
            involuntarySwitches: cpu.involuntary, peakResidentKiB: ResourceSampler.usage().ru_maxrss)
        return result
    }

    /// The result of a session that ended with `error`: its failure and no repetitions. Stops the sampler.
    public func fail(_ error: WorkloadError) -> PointResult {
        _ = sampler.stop()
        return PointResult(
            engine: engine, point: point, settings: settings,
            failure: Failure(error.timedOut ? .stopped : .error, error.message, symptom: error.symptom),
            seconds: (Deadline.now() - started).seconds)
    }

    /// Runs `body` with the sampler running and a context whose deadline is what is left of the budget, and counts
    /// the time it took against the budget.
    private func active<T>(_ body: (TrialContext) throws(WorkloadError) -> T) throws(WorkloadError) -> T {
        let start = Deadline.now()
        let context = TrialContext(deadline: start + .milliseconds(Int64(max(0, remainingSeconds) * 1000)), spinner: spinner)
        sampler.resume()
        defer {
            sampler.pause()
            used += (Deadline.now() - start).seconds
        }
        return try body(context)
    }
}
