import ArenaContract
import Bench
import Synchronization

/// `read-mostly-cache`: a workload a user brings, measured on every contender beside the built-in ones.
///
/// T tasks on the engine's pool share one cache (a dictionary of 256 keys); each call looks a key up, and one call in
/// 32 stores a new value instead. The cache is guarded four ways, the choice this workload is for:
/// - `serial-queue`: an engine serial queue, every call a `sync`;
/// - `barrier-queue`: an engine concurrent queue, lookups a `sync` (several at once), stores a `barrierAsync`;
/// - `actor`: an actor on one of the engine's serial executors (a default actor on the `swift` contender);
/// - `mutex`: `Synchronization.Mutex`, the same on every engine, for scale.
///
/// It checks its own answer, so a wrong engine gets an error rather than a number: every value a lookup returns
/// must belong to its key (values are `key + 256 × n`), and once the tasks are done the cache must have taken every
/// store the tasks made (a lost barrier block, or a store that overlapped another, is caught there).
public struct ReadMostlyCacheWorkload: Workload {
    public let name = "read-mostly-cache"
    public let summary =
        "T tasks on the engine's pool read a shared cache and store into it one call in 32: serial queue, concurrent queue with barrier stores, actor or Mutex"
    public let headline = Headline.throughput(unit: "calls/s")
    /// Tasks on the engine's pool need its executor layer.
    public var requirements: Set<Capability> { [.executors] }

    /// The guards, in the order tables and plots list them.
    public static let guards = ["serial-queue", "barrier-queue", "actor", "mutex"]
    /// The keys the cache holds.
    public static let keys = 256
    /// One call in this many is a store.
    public static let storeEvery = 32

    public init() {}

    /// guard × tasks: each guard with 1, 4 and 16 tasks.
    public func points(_ settings: BenchSettings) -> [Point] {
        Self.guards.flatMap { guarding in
            [1, 4, 16].map { tasks in Point(workload: name, parameters: [Parameter("guard", guarding), Parameter("tasks", tasks)]) }
        }
    }

    /// The queue guards need the engine's own queues, and a pool that may block in a `sync`.
    public func requirements(of point: Point) -> Set<Capability> {
        point["guard"]?.hasSuffix("-queue") == true ? requirements.union([.dispatchObjects, .blockingInBlocks]) : requirements
    }

    public func initialOperations(_ point: Point) -> Int { 1_000 }

    /// Runs `operations` calls spread over the point's tasks, through the point's guard.
    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let tasks = point.integer("tasks")
        let each = max(Self.storeEvery, (operations + tasks - 1) / tasks)
        switch point["guard"] {
        case "serial-queue":
            return try Self.run(SerialQueueCache(engine.makeQueue(label: "cache.serial", kind: .serial)), tasks, each, on: engine, context)
        case "barrier-queue":
            return try Self.run(
                BarrierQueueCache(engine.makeQueue(label: "cache.barrier", kind: .concurrent)), tasks, each, on: engine, context)
        case "actor":
            if let executor = engine.executors.makeActorExecutor(label: "cache.actor") {
                return try Self.run(ExecutorActorCache(executor), tasks, each, on: engine, context)
            }
            return try Self.run(DefaultActorCache(), tasks, each, on: engine, context)
        default:
            return try Self.run(MutexCache(), tasks, each, on: engine, context)
        }
    }

    /// `tasks` child tasks on the engine's pool, each making `each` calls on `cache`; then the answer is checked.
    @inlinable
    public static func run<Cache: CacheGuard, E: Engine>(
        _ cache: Cache, _ tasks: Int, _ each: Int, on engine: E,
        _ context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let (elapsed, strays, stores) = try AsyncTrial.run(
            preferring: engine.executors.poolExecutor, until: context.deadline, waitingFor: "\(tasks) tasks of \(each) calls"
        ) { () async throws(WorkloadError) -> (Stopwatch.Reading, Int, Int) in
            let watch = Stopwatch()
            let strays = await withTaskGroup(of: Int.self) { group in
                for task in 0..<tasks { group.addTask { await Self.calls(on: cache, each, seed: task) } }
                return await group.reduce(0, +)
            }
            let elapsed = watch.read()
            return (elapsed, strays, await cache.storesTaken())
        }
        try WorkloadError.check("lookups that returned another key's value", strays, expected: 0)
        try WorkloadError.check("stores the cache took", stores, expected: tasks * (each / storeEvery))
        return Trial(operations: tasks * each, elapsed: elapsed)
    }

    /// One task's calls: lookups of keys spread by a cheap generator, a store every `storeEvery`-th call. Returns how
    /// many lookups returned a value of another key.
    @inlinable
    static func calls<Cache: CacheGuard>(on cache: Cache, _ count: Int, seed: Int) async -> Int {
        var state = UInt64(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
        var strays = 0
        for call in 1...count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = Int(truncatingIfNeeded: state >> 33) % keys
            if call % storeEvery == 0 {
                await cache.store(key + keys * call, for: key)
            } else if let value = await cache.lookUp(key), value % keys != key {
                strays &+= 1
            }
        }
        return strays
    }
}

/// A cache behind some guard: what each of the workload's guards implements.
public protocol CacheGuard: Sendable {
    /// The value stored for `key`, if any.
    func lookUp(_ key: Int) async -> Int?
    /// Stores `value` for `key` (it may land later, as a barrier block does).
    func store(_ value: Int, for key: Int) async
    /// How many stores the cache took, once every store made before this call landed.
    func storesTaken() async -> Int
}

/// The cache's contents and its count of stores; a class, so a queue's blocks can share it (the guard orders them).
public final class CacheTable: @unchecked Sendable {
    @usableFromInline var values: [Int: Int] = [:]
    @usableFromInline var stores = 0

    @inlinable public init() {}

    @inlinable func store(_ value: Int, for key: Int) {
        values[key] = value
        stores &+= 1
    }
}

/// Every call a `sync` on an engine serial queue.
public struct SerialQueueCache<Queue: EngineQueue>: CacheGuard {
    @usableFromInline let queue: Queue
    @usableFromInline let table = CacheTable()

    @inlinable public init(_ queue: Queue) { self.queue = queue }

    @inlinable public func lookUp(_ key: Int) async -> Int? { queue.sync { table.values[key] } }
    @inlinable public func store(_ value: Int, for key: Int) async { queue.sync { table.store(value, for: key) } }
    @inlinable public func storesTaken() async -> Int { queue.sync { table.stores } }
}

/// Lookups a `sync` on an engine concurrent queue, several at once; stores a barrier block, alone on the queue.
public struct BarrierQueueCache<Queue: EngineQueue>: CacheGuard {
    @usableFromInline let queue: Queue
    @usableFromInline let table = CacheTable()

    @inlinable public init(_ queue: Queue) { self.queue = queue }

    @inlinable public func lookUp(_ key: Int) async -> Int? { queue.sync { table.values[key] } }
    @inlinable public func store(_ value: Int, for key: Int) async {
        let table = table
        queue.barrierAsync { table.store(value, for: key) }
    }
    /// A barrier `sync`: it runs once every barrier block before it ran.
    @inlinable public func storesTaken() async -> Int { queue.barrierSync { table.stores } }
}

/// An actor on one of the engine's serial executors: each call is a job on the queue behind it.
public actor ExecutorActorCache<Executor: LayerSerialExecutor>: CacheGuard {
    @usableFromInline let executor: Executor
    @usableFromInline var values: [Int: Int] = [:]
    @usableFromInline var stores = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    @inlinable public init(_ executor: Executor) { self.executor = executor }

    @inlinable public func lookUp(_ key: Int) -> Int? { values[key] }
    @inlinable public func store(_ value: Int, for key: Int) {
        values[key] = value
        stores &+= 1
    }
    @inlinable public func storesTaken() -> Int { stores }
}

/// A default actor, on the runtime's own executor: the `swift` contender's actors.
public actor DefaultActorCache: CacheGuard {
    @usableFromInline var values: [Int: Int] = [:]
    @usableFromInline var stores = 0

    @inlinable public init() {}

    @inlinable public func lookUp(_ key: Int) -> Int? { values[key] }
    @inlinable public func store(_ value: Int, for key: Int) {
        values[key] = value
        stores &+= 1
    }
    @inlinable public func storesTaken() -> Int { stores }
}

/// `Synchronization.Mutex` around the table: the task holds its thread for the call.
public final class MutexCache: CacheGuard {
    @usableFromInline let mutex = Mutex<(values: [Int: Int], stores: Int)>(([:], 0))

    @inlinable public init() {}

    @inlinable public func lookUp(_ key: Int) async -> Int? { mutex.withLock { $0.values[key] } }
    @inlinable public func store(_ value: Int, for key: Int) async {
        mutex.withLock {
            $0.values[key] = value
            $0.stores &+= 1
        }
    }
    @inlinable public func storesTaken() async -> Int { mutex.withLock { $0.stores } }
}
