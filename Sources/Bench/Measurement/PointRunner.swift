import ArenaContract

/// Measures one point of a workload on one engine, in this process, from start to end: the warm-up that sizes a
/// trial, then the repetitions (a `PointSession` driven in one go). Tests run it directly; `arena bench` drives the
/// same session from its parent, a repetition at a time.
public struct PointRunner: Sendable {
    /// The counter every repetition of a measured point gets: the most threads the engine had at once during the
    /// point's session, warm-up included (`ThreadCensus`: the process's threads less the main one and the harness's).
    /// The same in every repetition one process measured; its own in each process of a point measured in several.
    public static let engineThreadsCounter = "engine_threads"

    public let settings: BenchSettings
    public let spinner: Spinner

    /// A runner under `settings`, with `spinner` (calibrated here by default; `arena bench` hands every child the
    /// parent's, so every contender's simulated work is the same length).
    public init(settings: BenchSettings, spinner: Spinner = .calibrated()) {
        self.settings = settings
        self.spinner = spinner
    }

    /// A session on `point` of `workload` on `engine`, its trial compiled for both types.
    ///
    /// Inlinable, so that the module naming both concrete types compiles the trial specialised for them; from there
    /// on the session is not generic and costs one closure call per trial.
    @inlinable
    public func session<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E) -> PointSession {
        PointSession(
            point: point, workload: workload, engine: engine.name, settings: settings, spinner: spinner
        ) { operations, context throws(WorkloadError) in
            try workload.trial(point, operations: operations, on: engine, context: context)
        }
    }

    /// Measures `point` of `workload` on `engine`: the warm-up, then `settings.repetitions` repetitions (rounds 0,
    /// 1, …). A wrong answer in any trial, warm-up included, ends the point with an error; a workload that
    /// `needsFreshEngine` gets no warm-up.
    @inlinable
    public func measure<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E) -> PointResult {
        run(session(point, of: workload, on: engine))
    }

    /// Measures `point` with `trial`, a trial of `workload` on the engine called `engine` already compiled for both.
    public func measure(
        _ point: Point, of workload: any Workload, engine: String,
        trial: @escaping (Int, TrialContext) throws(WorkloadError) -> Trial
    ) -> PointResult {
        run(PointSession(point: point, workload: workload, engine: engine, settings: settings, spinner: spinner, trial: trial))
    }

    /// Drives `session` from start to end.
    public func run(_ session: PointSession) -> PointResult {
        do throws(WorkloadError) {
            try session.warmUp()
            for round in 0..<settings.repetitions { try session.measure(round: round) }
            return session.finish()
        } catch {
            return session.fail(error)
        }
    }
}
