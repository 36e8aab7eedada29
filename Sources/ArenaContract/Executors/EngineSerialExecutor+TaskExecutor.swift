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
/// Cost per job: one closure allocated for the block, and what the engine's `async` costs.
public final class EngineColocatedExecutor<E: Engine>: LayerTaskExecutor, @unchecked Sendable {
    /// The serial executor whose queue runs the jobs, and to which they run isolated.
    public let serial: EngineSerialExecutor<E>

    /// A task executor over `serial`'s queue.
    public init(beside serial: EngineSerialExecutor<E>) { self.serial = serial }

    /// Submits the job to the serial queue as a block that runs it on this executor, isolated to `serial`.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        serial.queue.async {
            job.runSynchronously(isolatedTo: self.serial.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    /// Whether the caller runs in a block of the serial queue (a job of this executor's or of the actor's alike: they
    /// run in the same place): one `currentSpecific` lookup.
    public var isCurrent: Bool { serial.isIsolatingCurrentContext() == true }
}
