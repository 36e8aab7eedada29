import Contenders

/// Measures one point of a workload on one engine, in this process: the warm-up that sizes a trial, then the
/// repetitions. A child process runs this for `arena bench`; tests run it directly.
public struct PointRunner: Sendable {
    public let settings: BenchSettings
    let spinner: Spinner

    public init(settings: BenchSettings, spinner: Spinner = .calibrated()) {
        self.settings = settings
        self.spinner = spinner
    }

    /// Measures `point` of `workload` on `engine`. The warm-up grows the operation count (as Google Benchmark does)
    /// until a trial lasts `minimumSeconds`; those trials warm caches, threads and the engine's pools. Every measured
    /// repetition then runs that count. A wrong answer in any trial, warm-up included, ends the point with an error.
    public func measure<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E) -> PointResult {
        let start = Deadline.now()
        let context = TrialContext(deadline: start + .milliseconds(Int64(settings.budgetSeconds * 1000)), spinner: spinner)
        var result = PointResult(engine: engine.name, point: point, settings: settings)
        let sampler = ResourceSampler()
        do throws(WorkloadError) {
            let operations = try warmUp(point, of: workload, on: engine, context: context)
            let baseline = try workload.baseline(point, operations: operations, context: context)
            let usageBefore = ResourceSampler.usage()
            var merged: LatencyRecorder?
            for _ in 0..<settings.repetitions {
                let trial = try workload.trial(point, operations: operations, on: engine, context: context)
                if let latencies = trial.latencies {
                    if merged == nil { merged = latencies } else { merged!.merge(latencies) }
                }
                var repetition = Repetition(
                    operations: trial.operations, items: trial.items,
                    wallNanoseconds: trial.elapsed.wallNanoseconds, cpuNanoseconds: trial.elapsed.cpuNanoseconds,
                    latency: trial.latencies?.percentiles, counters: trial.counters)
                if let baseline {
                    repetition.counters["baseline_ns_per_op"] = baseline
                    repetition.counters["speedup"] = baseline / repetition.nanosecondsPerOperation
                }
                result.repetitions.append(repetition)
                if Deadline.now() >= context.deadline, result.repetitions.count < settings.repetitions {
                    throw WorkloadError("exceeded the time budget of \(settings.budgetSeconds) s after "
                        + "\(result.repetitions.count) of \(settings.repetitions) repetitions", timedOut: true)
                }
            }
            result.latency = merged?.percentiles
            result.resources = ResourceSampler.figures(from: usageBefore, to: ResourceSampler.usage(), peakThreads: sampler.stop())
        } catch {
            result.failure = Failure(error.timedOut ? .stopped : .error, error.message)
            result.repetitions = []
            _ = sampler.stop()
        }
        result.seconds = (Deadline.now() - start).seconds
        return result
    }

    /// Runs trials with growing operation counts until one lasts `minimumSeconds`; returns that count.
    private func warmUp<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E,
                                                context: TrialContext) throws(WorkloadError) -> Int {
        let target = settings.minimumSeconds
        var operations = max(1, workload.initialOperations(point))
        while true {
            let trial = try workload.trial(point, operations: operations, on: engine, context: context)
            let seconds = trial.elapsed.wallSeconds
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
