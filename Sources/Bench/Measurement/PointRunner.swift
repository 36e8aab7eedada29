import ArenaContract

/// Measures one point of a workload on one engine, in this process: the warm-up that sizes a trial, then the
/// repetitions. A child process runs this for `arena bench`; tests run it directly.
public struct PointRunner: Sendable {
    /// The counter every repetition of a measured point gets: the most threads the engine had at once during the
    /// point, warm-up included (`ThreadCensus`: the process's threads less the main one and the harness's). The same
    /// in every repetition of a point measured in one process; its own in each of a fresh-engine point's children.
    public static let engineThreadsCounter = "engine_threads"

    public let settings: BenchSettings
    let spinner: Spinner

    public init(settings: BenchSettings, spinner: Spinner = .calibrated()) {
        self.settings = settings
        self.spinner = spinner
    }

    /// Measures `point` of `workload` on `engine`. The warm-up grows the operation count (as Google Benchmark does)
    /// until a trial lasts `minimumSeconds`; those trials warm caches, threads and the engine's pools. Every measured
    /// repetition then runs that count. A wrong answer in any trial, warm-up included, ends the point with an error.
    /// A workload that `needsFreshEngine` gets no warm-up: it would grow the very pools the trial is to meet cold.
    ///
    /// Inlinable, so that the module naming both concrete types compiles the trial specialised for them; from there
    /// on the runner is not generic and costs one closure call per trial.
    @inlinable
    public func measure<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E) -> PointResult {
        measure(point, of: workload, engine: engine.name) { operations, context throws(WorkloadError) in
            try workload.trial(point, operations: operations, on: engine, context: context)
        }
    }

    /// Measures `point` with `trial`, a trial of `workload` on the engine called `engine` already compiled for both.
    public func measure(
        _ point: Point, of workload: any Workload, engine: String,
        trial: (Int, TrialContext) throws(WorkloadError) -> Trial
    ) -> PointResult {
        let start = Deadline.now()
        let context = TrialContext(deadline: start + .milliseconds(Int64(settings.budgetSeconds * 1000)), spinner: spinner)
        var result = PointResult(engine: engine, point: point, settings: settings)
        let sampler = ResourceSampler()
        do throws(WorkloadError) {
            let operations =
                workload.needsFreshEngine
                ? max(1, workload.initialOperations(point))
                : try warmUp(point, of: workload, context: context, trial: trial)
            let baseline = try workload.baseline(point, operations: operations, context: context)
            let usageBefore = ResourceSampler.usage()
            var merged: LatencyRecorder?
            for _ in 0..<settings.repetitions {
                let measured = try trial(operations, context)
                if let latencies = measured.latencies {
                    if merged == nil { merged = latencies } else { merged!.merge(latencies) }
                }
                var repetition = Repetition(
                    operations: measured.operations, items: measured.items,
                    wallNanoseconds: measured.elapsed.wallNanoseconds, cpuNanoseconds: measured.elapsed.cpuNanoseconds,
                    latency: measured.latencies?.percentiles, counters: measured.counters)
                if let baseline {
                    repetition.counters["baseline_ns_per_op"] = baseline
                    repetition.counters["speedup"] = baseline / repetition.nanosecondsPerOperation
                }
                result.repetitions.append(repetition)
                if Deadline.now() >= context.deadline, result.repetitions.count < settings.repetitions {
                    throw WorkloadError(
                        "exceeded the time budget of \(settings.budgetSeconds) s after "
                            + "\(result.repetitions.count) of \(settings.repetitions) repetitions", timedOut: true)
                }
            }
            result.latency = merged?.percentiles
            let peaks = sampler.stop()
            result.resources = ResourceSampler.figures(from: usageBefore, to: ResourceSampler.usage(), peakThreads: peaks.all)
            for index in result.repetitions.indices { result.repetitions[index].counters[Self.engineThreadsCounter] = Double(peaks.engine) }
        } catch {
            result.failure = Failure(error.timedOut ? .stopped : .error, error.message)
            result.repetitions = []
            _ = sampler.stop()
        }
        result.seconds = (Deadline.now() - start).seconds
        return result
    }

    /// Runs trials with growing operation counts until one lasts `minimumSeconds`; returns that count.
    private func warmUp(
        _ point: Point, of workload: any Workload, context: TrialContext,
        trial: (Int, TrialContext) throws(WorkloadError) -> Trial
    ) throws(WorkloadError) -> Int {
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
}
