import ArenaContract
import Harness

/// `actor-hop`: a task awaits a method of an actor on one of the layer's serial executors, N times, from one of two
/// places (`caller`):
/// - `pool`: the task prefers the engine's task executor (`Engine.executors.poolExecutor`), so each round trip hands it
///   to the actor's queue and back to the pool, two hand-offs, pingpong's pattern in Swift concurrency. On the `swift`
///   contender the actor is a default actor and the pool Swift's global concurrent executor.
/// - `co-located`: the task prefers a task executor that runs where the actor's executor runs
///   (`ExecutorLayer.colocatedExecutor(for:)`: the same serial queue, or the same event loop), what a NIO user has when
///   a task on a channel's event loop calls an actor on that loop. The call should need no hand-off to another thread.
///   Only for layers with such executors (`colocated-executors`).
///
/// The headline is time per round trip; each round trip is also timed on its own (around the `await`), for the
/// latency percentiles. The answer checked: the actor counted exactly N calls; every call ran isolated to the actor's
/// serial executor (its `isIsolatingCurrentContext`, asked inside the method, where the layer has one); and after every
/// call the task was back on the executor it prefers (`isCurrent`). A miss of either fails the point.
public struct ActorHopWorkload: Workload {
    public let name = "actor-hop"
    public let summary =
        "a task on the engine's pool, or co-located with the actor, awaits into an actor on the engine's serial executor and back; time per round trip"
    public let headline = Headline.timePerOperation
    public let figure = PlotFigure.bundled("actor-hop.gp")
    public var requirements: Set<Capability> { [.executors] }

    public init() {}

    /// Where the calling task runs, in the order tables and plots list them.
    public enum Caller: String, ParameterChoice {
        /// On the engine's task executor: two hand-offs per round trip.
        case pool
        /// On a task executor beside the actor's executor: no hand-off to another thread.
        case colocated = "co-located"
        public static let parameterName = "caller"
    }

    /// The callers' names, in the order tables and plots list them.
    public static let callers = Caller.allCases.map(\.rawValue)

    /// One parameter, the caller.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.choice(Caller.self)] }

    /// One point per caller: the pattern has no size but the round-trip count, which the runner chooses.
    public func points(_ settings: BenchSettings) -> [Point] {
        Caller.allCases.map { Point(workload: name, parameters: [Parameter($0)]) }
    }

    /// The co-located caller needs a serial executor and a task executor beside it. (A point read back from results
    /// may carry a caller no longer declared: it needs what the workload needs.)
    public func requirements(of point: Point) -> Set<Capability> {
        switch Caller(point) {
        case .colocated: requirements.union([.serialExecutors, .colocatedExecutors])
        case .pool, nil: requirements
        }
    }

    /// 500 round trips, as pingpong: two hand-offs each, a few µs.
    public func initialOperations(_ point: Point) -> Int { 500 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let layer = engine.executors
        switch point.choice(Caller.self) {
        case .colocated:
            guard let executor = layer.makeActorExecutor(label: "actor-hop"), let caller = layer.colocatedExecutor(for: executor)
            else {
                throw WorkloadError(
                    "the layer made no serial executor or no task executor beside it, yet its engine lists neither serial-executors nor colocated-executors in its limits"
                )
            }
            return try Self.roundTrips(operations, to: ExecutorCounter(executor), from: caller, context: context)
        case .pool:
            if let executor = layer.makeActorExecutor(label: "actor-hop") {
                return try Self.roundTrips(operations, to: ExecutorCounter(executor), from: layer.poolExecutor, context: context)
            }
            return try Self.roundTrips(operations, to: DefaultCounter(), from: layer.poolExecutor, context: context)
        }
    }

    /// `count` round trips from a task preferring `pool` (the layer's pool, or a task executor beside the actor) into
    /// `actor`, timed and checked.
    @inlinable
    static func roundTrips<A: CountingActor, P: LayerTaskExecutor>(
        _ count: Int, to actor: A, from pool: P,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let run = try AsyncTrial.run(
            preferring: pool, until: context.deadline,
            waitingFor: "\(count) round trips into the actor"
        ) { () async -> HopRun in
            var latencies = LatencyRecorder()
            var offPool = 0
            let watch = Stopwatch()
            for _ in 0..<count {
                let sent = Deadline.now().nanoseconds
                await actor.checkedIncrement()
                latencies.record(nanoseconds: Deadline.now().nanoseconds &- sent)
                if !pool.isCurrent { offPool &+= 1 }
            }
            let elapsed = watch.read()
            return HopRun(
                elapsed: elapsed, latencies: latencies, offPool: offPool,
                calls: await actor.count, offExecutor: await actor.isolationMisses)
        }
        try WorkloadError.check("the calls the actor counted", run.calls, expected: count)
        try WorkloadError.check("calls that ran off the actor's serial executor", run.offExecutor, expected: 0)
        try WorkloadError.check("round trips that came back off the caller's executor", run.offPool, expected: 0)
        return Trial(operations: count, elapsed: run.elapsed, latencies: run.latencies)
    }
}

/// What the task of an actor-hop trial saw.
@usableFromInline struct HopRun: Sendable {
    @usableFromInline var elapsed: Stopwatch.Reading
    @usableFromInline var latencies: LatencyRecorder
    @usableFromInline var offPool: Int
    @usableFromInline var calls: Int
    @usableFromInline var offExecutor: Int

    @inlinable init(elapsed: Stopwatch.Reading, latencies: LatencyRecorder, offPool: Int, calls: Int, offExecutor: Int) {
        self.elapsed = elapsed
        self.latencies = latencies
        self.offPool = offPool
        self.calls = calls
        self.offExecutor = offExecutor
    }
}
