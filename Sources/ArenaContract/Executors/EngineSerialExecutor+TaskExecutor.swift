// MARK: - The default layer's co-located task executors

extension EngineExecutors {
    /// A task executor over `executor`'s own serial queue (`EngineColocatedExecutor`): one small allocation per call.
    /// Never `nil`.
    public func colocatedExecutor(for executor: EngineSerialExecutor<E>) -> EngineColocatedExecutor<E>? {
        EngineColocatedExecutor(beside: executor)
    }
}

// MARK: - A serial queue as a task executor

/// A serial executor's queue as a Swift task executor (SE-0417): a task run with `withTaskExecutorPreference` on it runs
/// its non-isolated code, and its child tasks', as blocks of the queue behind `serial`, one at a time among the
/// actor's jobs, and isolated to `serial` (`runSynchronously(isolatedTo:taskExecutor:)`). So an actor on `serial` is
/// already current when such a task calls it, and Swift's runtime runs the call inline: no enqueue, no hand-off. Only
/// the way back to the task's own code is a job, enqueued here, onto the same queue.
/// Cost per job: what the queue's `async(job:runner:)` costs (a closure per job by default; nothing more where the
/// queue carries jobs natively, as lockfree's does).
public final class EngineColocatedExecutor<E: Engine>: LayerTaskExecutor, JobRunner, @unchecked Sendable {
    /// The serial executor whose queue runs the jobs, and to which they run isolated.
    public let serial: EngineSerialExecutor<E>
    /// This executor and `serial` as the runtime names them, made once (made per job, each is a witness-table lookup
    /// for the generic class).
    private var unownedSelf: UnownedTaskExecutor!
    private let unownedSerial: UnownedSerialExecutor
    /// The serial queue and this executor as the job seam takes them, made once (see `EngineSerialExecutor`).
    private let jobQueue: any EngineQueue
    private unowned(unsafe) var runner: (any JobRunner)?

    /// A task executor over `serial`'s queue.
    public init(beside serial: EngineSerialExecutor<E>) {
        self.serial = serial
        unownedSerial = serial.asUnownedSerialExecutor()
        jobQueue = serial.queue
        unownedSelf = UnownedTaskExecutor(ordinary: self)
        runner = self
    }

    /// This executor as the runtime names it: a stored value.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { unownedSelf }

    /// Submits the job to the serial queue, which calls `runJob` in its turn.
    public func enqueue(_ job: consuming ExecutorJob) {
        jobQueue.async(job: UnownedJob(job), runner: runner.unsafelyUnwrapped)
    }

    /// Runs a job of this executor on it, isolated to `serial` (the queue calls it, in a block of its own).
    public func runJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: unownedSerial, taskExecutor: unownedSelf)
    }

    /// Whether the caller runs in a block of the serial queue (a job of this executor's or of the actor's alike: they
    /// run in the same place): one `currentSpecific` lookup, inlinable as the serial executor's.
    @inlinable
    public var isCurrent: Bool { serial.isIsolatingCurrentContext() == true }
}
