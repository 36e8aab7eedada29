import CLinux

/// An engine's global queue as a Swift task executor (SE-0417): a task run with
/// `withTaskExecutorPreference(executor)` runs its non-isolated code, and its child tasks', as blocks of the queue.
///
/// Cost per job: what the global queue's `async(job:runner:)` costs (by default a closure allocated per job around
/// the engine's `async`; nothing more where the queue carries jobs natively, as lockfree's does), and two
/// thread-local stores around the job (`RunningPool`, which `isCurrent` reads).
public final class EnginePoolExecutor<E: Engine>: LayerTaskExecutor, JobRunner, @unchecked Sendable {
    /// The engine's global queue, which runs the jobs.
    public let queue: E.Queue
    /// This executor as the runtime names it, made once (see `EngineSerialExecutor`).
    private var unownedSelf: UnownedTaskExecutor!
    /// The queue and this executor as the job seam takes them, made once (see `EngineSerialExecutor`).
    private let jobQueue: any EngineQueue
    private unowned(unsafe) var runner: (any JobRunner)?

    /// A task executor over `engine`'s global queue.
    public init(engine: E) {
        RunningPool.claim()
        queue = engine.globalQueue
        jobQueue = queue
        unownedSelf = UnownedTaskExecutor(ordinary: self)
        runner = self
    }

    /// This executor as the runtime names it: a stored value.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { unownedSelf }

    /// Submits the job to the global queue, which calls `runJob` in its turn.
    public func enqueue(_ job: consuming ExecutorJob) {
        jobQueue.async(job: UnownedJob(job), runner: runner.unsafelyUnwrapped)
    }

    /// Runs a job of this executor on it (the global queue calls it, in a block of its own), the thread marked as
    /// running one of its jobs meanwhile. Touches nothing of the executor after the job ran, which may have released
    /// the executor's last reference (the task's preference).
    public func runJob(_ job: UnownedJob) {
        let outer = RunningPool.enter(self.queue)
        job.runSynchronously(on: unownedSelf)
        RunningPool.leave(restoring: outer)
    }

    /// Whether the caller runs inside a job that an executor over this engine's global queue started.
    public var isCurrent: Bool { RunningPool.current == UnsafeMutableRawPointer(Unmanaged.passUnretained(queue).toOpaque()) }
}

/// The global queue whose job the calling thread runs, in a thread-local slot the slot does not own (the queue is
/// global, and outlives the job). Package: the mutant pool executors (`Sources/Mutants`) mark their jobs the same way.
package enum RunningPool {
    private static let slotIndex: Int32 = 4
    private static let claimed: Void = claimThreadSlot(slotIndex)

    /// Claims the slot, once per process (before the first executor runs a job).
    package static func claim() { claimed }

    /// Marks the thread as running a job of `queue`; returns the mark it replaced.
    @inline(__always)
    package static func enter<Queue: AnyObject>(_ queue: Queue) -> UnsafeMutableRawPointer? {
        let outer = clinux_thread_slot(slotIndex)
        clinux_set_thread_slot(slotIndex, Unmanaged.passUnretained(queue).toOpaque())
        return outer
    }

    /// Puts back the mark `enter` replaced.
    @inline(__always)
    package static func leave(restoring outer: UnsafeMutableRawPointer?) { clinux_set_thread_slot(slotIndex, outer) }

    /// The queue whose job the thread runs, if any.
    package static var current: UnsafeMutableRawPointer? { clinux_thread_slot(slotIndex) }
}
