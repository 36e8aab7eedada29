import ArenaContract
import Glibc
import Harness
import Synchronization

/// `actor-contention`: T tasks preferring the engine's task executor (`Engine.executors.poolExecutor`) each increment
/// one shared counter K times, the counter guarded four ways: an actor on one of the layer's serial executors (a
/// default actor on the `swift` contender), `Synchronization.Mutex`, a pthread mutex, or a serial queue of the engine
/// entered with `sync`. Queue, actor or lock: what guarding shared state costs a task on each engine's pool.
///
/// The tasks are children of one task group, on the pool, so at most as many run at once as the pool has threads.
/// An actor call is a job on the actor's queue; in an optimised build (what `arena bench` runs) a task does not go
/// back to the pool between two calls, no non-isolated code running between them (measured on system and mutex: one
/// job on the actor's queue per increment, none on the pool; a debug build makes both). The locks' tasks hold their
/// thread.
/// The headline is increments per second over all tasks, from the first task's creation until the last one ended.
/// The answer checked: the counter equals T × K. `queue-sync` needs `dispatch-objects` besides `executors`, and
/// `blocking-in-blocks` (a task waiting in `sync` blocks a thread of the engine's own pool), so a run leaves it out
/// where the contender has no queues of its own (`swift`) or its pool cannot spare a blocked thread (`actor`, whose
/// pool wedged at 4 tasks).
public struct ActorContentionWorkload: Workload {
    public let name = "actor-contention"
    public let summary =
        "T tasks on the engine's pool increment one counter behind an actor, a Mutex, a pthread mutex or a serial queue's sync"
    public let headline = Headline.throughput(unit: "increments/s")
    public let figure = PlotFigure.bundled("actor-contention.gp")
    public var requirements: Set<Capability> { [.executors] }

    /// What guards the counter, in the order tables and plots list them.
    public enum Guard: String, ParameterChoice {
        /// An actor on one of the layer's serial executors (a default actor on `swift`).
        case actor
        /// A serial queue of the engine, entered with `sync`.
        case queueSync = "queue-sync"
        /// `Synchronization.Mutex`.
        case mutex
        /// A pthread mutex.
        case pthread
        public static let parameterName = "guard"
    }

    /// The guards' names, in the order tables and plots list them.
    public static let guards = Guard.allCases.map(\.rawValue)

    /// The guard named `name` as a reader reads it: `Synchronization.Mutex` for `mutex`, which beside an engine called
    /// `mutex` would be read as that engine's; the others as they are named. What tables, the summary and the plot say.
    public static func title(of name: String) -> String {
        switch Guard(rawValue: name) {
        case .mutex: "Synchronization.Mutex"
        case .pthread: "pthread mutex"
        default: name
        }
    }

    /// The task counts: one task (the guard uncontended), 4 and 16.
    static let taskCounts = [1, 4, 16]

    public init() {}

    /// guard × tasks.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.choice(Guard.self), .integer("tasks", Self.taskCounts)]
    }

    /// guard × tasks: each guard at 1, 4 and 16 tasks (one task: the guard uncontended).
    public func points(_ settings: BenchSettings) -> [Point] {
        Guard.allCases.flatMap { guarding in
            Self.taskCounts.map { tasks in
                Point(workload: name, parameters: [Parameter(guarding), Parameter("tasks", tasks)])
            }
        }
    }

    /// The serial queue's points need the engine's own queues, and a pool that may block in them. (A point read back
    /// from results may carry a guard no longer declared: it needs what the workload needs.)
    public func requirements(of point: Point) -> Set<Capability> {
        switch Guard(point) {
        case .queueSync: requirements.union([.dispatchObjects, .blockingInBlocks])
        case .actor, .mutex, .pthread, nil: requirements
        }
    }

    /// 1,000 increments: about 10 µs behind a lock, 0.2–20 ms behind an actor (a job per call).
    public func initialOperations(_ point: Point) -> Int { 1_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let tasks = point.integer("tasks")
        let each = max(1, (operations + tasks - 1) / tasks)
        let layer = engine.executors
        let pool = layer.poolExecutor
        let counted: (elapsed: Stopwatch.Reading, total: Int)
        switch point.choice(Guard.self) {
        case .actor:
            if let executor = layer.makeActorExecutor(label: "actor-contention") {
                counted = try Self.contend(ExecutorCounter(executor), tasks, each, on: pool, context: context)
            } else {
                counted = try Self.contend(DefaultCounter(), tasks, each, on: pool, context: context)
            }
        case .mutex:
            let counter = MutexCounter()
            counted = try Self.race(tasks, each, on: pool, context: context, total: { counter.mutex.withLock { $0 } }) { count in
                for _ in 0..<count { counter.mutex.withLock { $0 &+= 1 } }
            }
        case .pthread:
            let lock = Lock()
            let counter = SharedCounter()
            counted = try Self.race(tasks, each, on: pool, context: context, total: { lock.withLock { counter.value } }) { count in
                for _ in 0..<count {
                    pthread_mutex_lock(lock.pointer)
                    counter.value &+= 1
                    pthread_mutex_unlock(lock.pointer)
                }
            }
        case .queueSync:
            let queue = engine.makeQueue(label: "actor-contention", kind: .serial)
            let counter = SharedCounter()
            counted = try Self.race(tasks, each, on: pool, context: context, total: { queue.sync { counter.value } }) { count in
                for _ in 0..<count { queue.sync { counter.value &+= 1 } }
            }
        }
        try WorkloadError.check("the counter", counted.total, expected: tasks * each)
        return Trial(operations: tasks * each, elapsed: counted.elapsed)
    }

    /// `tasks` tasks calling `actor.increment()` `each` times.
    @inlinable
    static func contend<A: CountingActor, P: LayerTaskExecutor>(
        _ actor: A, _ tasks: Int, _ each: Int, on pool: P,
        context: TrialContext
    ) throws(WorkloadError) -> (Stopwatch.Reading, Int) {
        try race(tasks, each, on: pool, context: context, total: { await actor.count }) { count in
            for _ in 0..<count { await actor.increment() }
        }
    }

    /// Runs `body(each)` in `tasks` child tasks of one group preferring `pool`, then `total()` in the parent: the
    /// time from the first task's creation until the group ended, and the counter's total.
    @inlinable
    static func race<P: LayerTaskExecutor>(
        _ tasks: Int, _ each: Int, on pool: P, context: TrialContext,
        total: @escaping @Sendable () async -> Int,
        _ body: @escaping @Sendable (Int) async -> Void
    ) throws(WorkloadError) -> (Stopwatch.Reading, Int) {
        try AsyncTrial.run(preferring: pool, until: context.deadline, waitingFor: "\(tasks) tasks of \(each) increments") {
            let watch = Stopwatch()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks { group.addTask { await body(each) } }
            }
            let elapsed = watch.read()
            return (elapsed, await total())
        }
    }
}

/// A counter behind a `Synchronization.Mutex` (a class, so tasks can share it: the mutex cannot be copied).
@usableFromInline final class MutexCounter: Sendable {
    @usableFromInline let mutex = Mutex(0)

    @inlinable init() {}
}
