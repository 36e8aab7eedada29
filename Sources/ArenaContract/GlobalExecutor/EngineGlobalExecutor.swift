/// An engine's global queues as Swift Concurrency's global executor: the default layer's (`EngineExecutors`)
/// `makeGlobalExecutor()`.
///
/// A job goes to the global queue of the class its priority maps to (`QoSClass(_:)`), through the queue's job seam
/// (`async(job:runner:)`: a closure per job by default, nothing where the queue carries jobs natively, as lockfree's
/// does); a job due later goes to the same queue's `asyncAfter`, a closure per job, so the engine's own timer keeps
/// the time. Each job runs with this executor as its task executor, the thread marked meanwhile as running a job of
/// the engine's default global queue (`RunningPool`), so `isCurrent` holds in it, and so does the layer's pool
/// executor's `isCurrent` (both read the same mark).
public final class EngineGlobalExecutor<E: Engine>: LayerGlobalExecutor, JobRunner, @unchecked Sendable {
    /// The engine whose queues run the jobs.
    public let engine: E
    /// The global queue of each class, by `QoSClass.rank`, as the job seam takes them, and as the engine types them
    /// (for `asyncAfter`).
    private let jobQueues: [any EngineQueue]
    private let queues: [E.Queue]
    /// The default global queue, whose identity marks the thread while a job runs.
    private let marked: E.Queue
    /// This executor as the runtime names it, made once.
    private var unownedSelf: UnownedTaskExecutor!
    /// This executor as the job seam takes it, made once.
    private unowned(unsafe) var runner: (any JobRunner)?
    /// The key whose value the main queue carries, so that `isOnMainLoop` is one specific lookup.
    private let mainMark = SpecificKey<Bool>("global-executor.main-loop")

    /// The global executor over `engine`'s global queues. Makes nothing the engine does not share already but the
    /// main queue's mark.
    public init(engine: E) {
        RunningPool.claim()
        self.engine = engine
        queues = QoSClass.allCases.sorted().map { engine.globalQueue(qos: $0) }
        jobQueues = queues
        marked = engine.globalQueue
        engine.mainQueue.setSpecific(mainMark, true)
        unownedSelf = UnownedTaskExecutor(ordinary: self)
        runner = self
    }

    /// This executor as the runtime names it: a stored value.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { unownedSelf }

    /// Submits the job to the global queue of its class, which calls `runJob` in its turn.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobQueues[QoSClass(job.priority).rank].async(job: job, runner: runner.unsafelyUnwrapped)
    }

    /// Submits the job to the global queue of its class once `deadline` passed (the queue's `asyncAfter`).
    public func enqueue(_ job: UnownedJob, at deadline: Deadline) {
        queues[QoSClass(job.priority).rank].asyncAfter(deadline: deadline) { [self] in runJob(job) }
    }

    /// Runs a job as Swift's default executor runs a global job: on the generic executor, with no task executor
    /// (`swift_job_run` with the generic executor, what libdispatch's worker calls), the thread marked as running one
    /// of the engine's global jobs meanwhile. Not `runSynchronously(on:)` this task executor: the runtime would then
    /// see every task without a preference running on a task executor it does not prefer, and switch at its next
    /// `await` (`mustSwitchToRun`), an enqueue where the default executor runs on; code that holds a lock across
    /// `withUnsafeThrowingContinuation`, whose body runs "straight away" on the default executor, then suspends holding
    /// it (measured: swift-async-algorithms' merge deadlocked against a cancellation in 4 of 40 runs of its test
    /// `test_merge_finishes_when_iteration_task_is_cancelled`, 0 of 40 on the default executor). Touches nothing of the
    /// executor after the job ran.
    public func runJob(_ job: UnownedJob) {
        let outer = RunningPool.enter(marked)
        job.runSynchronously(on: UnownedSerialExecutor.generic)
        RunningPool.leave(restoring: outer)
    }

    /// Whether the caller runs inside a job of the engine's global queues started by this executor or the layer's
    /// pool executor: one thread-local load.
    public var isCurrent: Bool { RunningPool.current == UnsafeMutableRawPointer(Unmanaged.passUnretained(marked).toOpaque()) }

    public var mainQueue: any EngineQueue { engine.mainQueue }

    public func runMainLoop() -> Never { engine.dispatchMain() }

    /// One specific lookup (`Engine.currentSpecific`).
    public var isOnMainLoop: Bool { engine.currentSpecific(mainMark) == true }
}
