/// A dispatch queue: blocks submitted to it run on the engine's threads, one at a time (serial) or several at once
/// (concurrent), and always start in submission order.
///
/// Blocks of a queue with a target run as part of the target: a queue targeting a serial queue is serialised with
/// it. Specific values set on a queue are visible from its blocks and from blocks of queues targeting it.
public protocol EngineQueue: AnyObject, Sendable {
    /// The engine's work items, which this queue can run.
    associatedtype WorkItem: EngineWorkItem where WorkItem.Queue == Self

    /// The label given at creation; diagnostics name the queue by it.
    var label: String { get }

    /// Serial or concurrent.
    var kind: QueueKind { get }

    /// Submits `block` and returns at once.
    func async(_ block: @escaping @Sendable () -> Void)

    /// Submits a Swift job (`JobRunner`): in its turn, the queue calls `runner.runJob(job)` where it would run a
    /// block, in order with the blocks. The default submits a block that makes the call (one closure allocated per
    /// job, which retains the runner); a queue that carries the job and the runner in a job node of its own
    /// allocates nothing (lockfree's) and need not retain the runner: the actor an executor serves, or the task that
    /// prefers it, keeps it alive while its jobs wait. The runner comes as an existential its executor made once
    /// (a stored reference to itself): the runtime reaches an executor's `enqueue` unspecialised, where a generic runner
    /// would cost a witness-table lookup for the executor's generic class on every job.
    func async(job: UnownedJob, runner: any JobRunner)

    /// Submits `block` as a barrier: it starts after every earlier block finished and runs alone. On a serial queue
    /// it is a plain block.
    func barrierAsync(_ block: @escaping @Sendable () -> Void)

    /// Runs `block` on the queue, after every earlier block, and returns its value or rethrows its error. Calling it
    /// from a block of this serial queue (or of a queue targeting it) is misuse and stops the process.
    func sync<T>(_ block: () throws -> T) rethrows -> T

    /// As `sync`, as a barrier.
    func barrierSync<T>(_ block: () throws -> T) rethrows -> T

    /// Submits a work item.
    func async(_ item: WorkItem)

    /// Submits `block` once `deadline` passed (never earlier); a past deadline behaves as `async`.
    func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void)

    /// Submits a work item once `deadline` passed; an item cancelled before then never runs its body.
    func asyncAfter(deadline: Deadline, _ item: WorkItem)

    /// Makes `target` the queue this queue's blocks run through. On an inactive queue the change applies to every
    /// block, including those already submitted. On an active queue it takes effect between two blocks, never during
    /// one; an engine without the `retarget-active-queues` capability treats that as misuse and stops the process.
    func setTarget(_ target: Self)

    /// Stops the queue from starting blocks; a running block finishes. Suspensions nest.
    func suspend()

    /// Undoes one `suspend()`. Resuming more often than suspended is misuse and stops the process.
    func resume()

    /// Lets a queue created inactive run; further calls do nothing.
    func activate()

    /// Sets (or, with `nil`, removes) the value for `key` on this queue. The value replaced or removed is released
    /// (its destructor runs, at once or soon on another thread; libdispatch runs it on a global queue), and every
    /// value still set is released once when the queue goes.
    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?)

    /// The value for `key` set on this queue itself (targets are not consulted).
    func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value?

    /// The object the queue hands its finalizer (`dispatch_set_context`); `nil` until set.
    var context: QueueContext? { get set }

    /// Sets the block run once the queue is gone (`dispatch_set_finalizer_f`): after its last reference was released
    /// and every block submitted to it ran, it is submitted to the queue's target with the context. It never runs
    /// when the context is `nil` at that moment. The global queue is never gone.
    func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?)
}

/// What a queue's context may be: any object that can cross threads.
public typealias QueueContext = AnyObject & Sendable
