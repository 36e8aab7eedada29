/// Swift executors over a contender: serial executors an actor can run on (SE-0392, custom actor executors) and a
/// task executor a task can prefer (SE-0417, `withTaskExecutorPreference`).
///
/// Every engine has one (`Engine.executors`): by default `EngineExecutors`, whose serial executors are the engine's
/// serial queues and whose task executor is its global queue, `system` included (a Dispatch queue behind the same
/// adapter). The `swift` contender's is Swift's own default executors, the reference for tasks. Rules and workloads are
/// generic over `L: ExecutorLayer`, so each runs specialised on every layer.
public protocol ExecutorLayer: Sendable {
    /// The serial executors the layer makes for actors.
    associatedtype ActorExecutor: LayerSerialExecutor
    /// The layer's task executor.
    associatedtype PoolExecutor: LayerTaskExecutor
    /// The task executors the layer makes beside one of its serial executors (`colocatedExecutor(for:)`);
    /// `NoColocatedExecutor` for a layer without them.
    associatedtype ColocatedExecutor: LayerTaskExecutor = NoColocatedExecutor
    /// The executor the layer installs as Swift Concurrency's global executor (`GlobalExecutorTakeover`);
    /// `NoGlobalExecutor` for a layer without one.
    associatedtype GlobalExecutor: LayerGlobalExecutor = NoGlobalExecutor

    /// A new serial executor over a queue of its own, labelled `label`; `nil` when the layer has none to hand out
    /// (Swift's default actors run on the runtime's own executor, which is no object one can make).
    func makeActorExecutor(label: String) -> ActorExecutor?

    /// The layer's task executor: what `withTaskExecutorPreference` is given to run tasks on the layer's pool. Shared
    /// by every caller; cheap to read.
    var poolExecutor: PoolExecutor { get }

    /// Whether the layer's task executor is Swift's global concurrent executor, where a task without a preference
    /// runs anyway (the reference's is); `false` for a pool of the layer's own.
    var poolIsDefault: Bool { get }

    /// A task executor whose jobs run where `executor` runs its own (its queue, or its thread), isolated to it: a task
    /// preferring it is already on the executor of an actor running on `executor`, so a call into that actor needs no
    /// hop there (Swift's runtime runs it inline, the executor being the current one), and only the way back to the
    /// task's own code is an enqueue, onto the same queue. What a NIO user has when a task on a channel's event loop
    /// calls an actor on that loop. `nil` for a layer without them (the default); a layer that has them does not list
    /// `colocated-executors` in its engine's limits. Its cost is the layer's to say.
    func colocatedExecutor(for executor: ActorExecutor) -> ColocatedExecutor?

    /// A new executor that takes every job of the process's tasks and default actors once installed
    /// (`GlobalExecutorTakeover.install`), over the layer's pool; `nil` for a layer without one (the default), or
    /// whose pool is Swift's default executor (`poolIsDefault`), which is the global executor already. A layer that
    /// has one does not list `global-executor` in its engine's limits.
    func makeGlobalExecutor() -> GlobalExecutor?
}

extension ExecutorLayer {
    public var poolIsDefault: Bool { false }
}

extension ExecutorLayer where GlobalExecutor == NoGlobalExecutor {
    /// None: the layer installs no global executor.
    public func makeGlobalExecutor() -> NoGlobalExecutor? { nil }
}

extension ExecutorLayer where ColocatedExecutor == NoColocatedExecutor {
    /// None: the layer has no co-located task executors (its engine lists `colocated-executors` in its limits).
    public func colocatedExecutor(for executor: ActorExecutor) -> NoColocatedExecutor? { nil }
}

/// The co-located task executor of a layer that has none: a type no one can make, so `colocatedExecutor(for:)` can
/// only answer `nil`.
public final class NoColocatedExecutor: LayerTaskExecutor {
    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        misuse("NoColocatedExecutor: a layer without co-located task executors was handed a job")
    }

    public var isCurrent: Bool { false }
}

/// A serial executor that is also a queue one can submit plain blocks to: jobs and blocks run one at a time, in the
/// order they were handed over, on the queue behind it.
public protocol LayerSerialExecutor: SerialExecutor {
    /// The label of the queue behind the executor; diagnostics name it.
    var label: String { get }

    /// Submits a plain block (not a job) to the executor's queue. Inside it, `assumeIsolated` on an actor running on
    /// this executor succeeds, as it does in the actor's own jobs.
    func submit(_ block: @escaping @Sendable () -> Void)

    /// Sets (or, with `nil`, removes) the value for `key` on the executor's queue, visible from its jobs and blocks
    /// through the engine's `currentSpecific`.
    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?)
}

extension LayerSerialExecutor {
    /// SE-0424's check from the executor's own answer: returns where `isIsolatingCurrentContext()` says isolated, and
    /// otherwise stops the process naming `label` (the standard library's default stops without naming anything). One
    /// `isIsolatingCurrentContext` call.
    public func checkIsolated() {
        if isIsolatingCurrentContext() != true {
            misuse("isolation check failed: the caller is not running on serial executor '\(label)'")
        }
    }
}

/// A task executor that can tell whether the caller runs on it.
public protocol LayerTaskExecutor: TaskExecutor {
    /// Whether the calling code runs inside a job this executor started, on the layer's pool. For rules and
    /// workloads checking where code ran; not free (a thread-local load, or for the reference a read of the thread's
    /// name).
    var isCurrent: Bool { get }
}
