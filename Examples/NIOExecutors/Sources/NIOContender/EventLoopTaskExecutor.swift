import ArenaContract
import NIOCore

/// A Swift task executor on the event loop of one actor executor: a task preferring it runs its non-isolated code as
/// blocks of that loop (`EventLoop.execute`), isolated to NIO's executor of the loop
/// (`runSynchronously(isolatedTo:taskExecutor:)`): what a task on a channel's loop is to an actor on the same loop. An
/// actor on the loop is then the current executor when the task calls it, and Swift's runtime runs the call inline;
/// only the way back to the task's own code is a job, enqueued here, on the same loop, with no wake-up (NIO's `execute`
/// from the loop itself only takes its lock).
///
/// Cost per job: one closure allocated for the block and NIO's `execute`.
public final class EventLoopTaskExecutor: LayerTaskExecutor {
    /// The actor executor whose loop runs the jobs, and to whose NIO executor they run isolated.
    public let actorExecutor: EventLoopActorExecutor

    /// A task executor on `actorExecutor`'s loop.
    public init(beside actorExecutor: EventLoopActorExecutor) { self.actorExecutor = actorExecutor }

    /// Hands the job to the loop as a block that runs it on this executor, isolated to NIO's executor of the loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        actorExecutor.loop.execute {
            job.runSynchronously(
                isolatedTo: self.actorExecutor.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    /// Whether the caller runs on the loop (NIO's `inEventLoop`): this executor's jobs and the actors' on the loop
    /// alike, which run in the same place.
    public var isCurrent: Bool { actorExecutor.loop.inEventLoop }
}
