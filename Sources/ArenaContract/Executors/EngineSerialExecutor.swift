/// A serial queue of an engine as a Swift serial executor (SE-0392): an actor returning
/// `executor.asUnownedSerialExecutor()` from its `unownedExecutor` runs its methods as blocks of the queue, one at a
/// time, in the order the jobs were enqueued.
///
/// Isolation is the queue's: the executor sets a specific value on its queue naming itself, so its isolation checks
/// (`isIsolatingCurrentContext`, `checkIsolated`) hold in any block of the queue (or of a queue targeting it), a job
/// or a plain block, and `assumeIsolated` works there. Cost per job: what the queue's `async(job:runner:)` costs
/// (by default a closure allocated per job around the engine's `async`; nothing more where the queue carries jobs
/// natively, as lockfree's does).
public final class EngineSerialExecutor<E: Engine>: LayerSerialExecutor, JobRunner, @unchecked Sendable {
    /// The engine the queue belongs to.
    public let engine: E
    /// The serial queue the jobs run on.
    public let queue: E.Queue
    /// This executor as the runtime names it, made once: made per job, it cost a witness-table lookup for the generic
    /// class each time (`swift_getWitnessTable`, 101 instructions under callgrind).
    private var unownedSelf: UnownedSerialExecutor!
    /// The queue and this executor as the job seam takes them (`async(job:runner:)`), made once: the runtime calls
    /// `enqueue` unspecialised, where reaching the queue's conformance through `E` and this class's as a runner cost
    /// lookups on every job.
    private let jobQueue: any EngineQueue
    private unowned(unsafe) var runner: (any JobRunner)?

    /// A serial executor over a new serial queue labelled `label`.
    public init(engine: E, label: String) {
        self.engine = engine
        queue = engine.makeQueue(label: label, kind: .serial)
        jobQueue = queue
        queue.setSpecific(ExecutorIsolation.key, ObjectIdentifier(self))
        unownedSelf = UnownedSerialExecutor(ordinary: self)
        runner = self
    }

    /// This executor as the runtime names it: a stored value.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { unownedSelf }

    public var label: String { queue.label }

    /// Submits the job to the queue, which calls `runJob` in its turn.
    public func enqueue(_ job: consuming ExecutorJob) {
        jobQueue.async(job: UnownedJob(job), runner: runner.unsafelyUnwrapped)
    }

    /// Runs a job of this executor on it (the queue calls it, in a block of its own): the job runs isolated here.
    public func runJob(_ job: UnownedJob) { job.runSynchronously(on: unownedSelf) }

    public func submit(_ block: @escaping @Sendable () -> Void) { queue.async(block) }

    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) { queue.setSpecific(key, value) }

    /// Whether the caller runs in a block of this executor's queue: one `currentSpecific` lookup. Inlinable, so a
    /// caller that knows the engine (a workload's check after every call) asks the engine's own lookup, not the
    /// generic class's.
    @inlinable
    public func isIsolatingCurrentContext() -> Bool? {
        engine.currentSpecific(ExecutorIsolation.key) == ObjectIdentifier(self)
    }
}

/// The queue-specific key a serial executor marks its queue with (package: the mutant executors of `Sources/Mutants`
/// mark theirs).
@usableFromInline
package enum ExecutorIsolation {
    @usableFromInline package static let key = SpecificKey<ObjectIdentifier>("arena.executor.isolation")
}
