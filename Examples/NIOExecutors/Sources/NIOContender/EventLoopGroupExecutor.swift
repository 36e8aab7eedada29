import ArenaContract
import NIOCore
import NIOPosix

/// A Swift task executor (SE-0417) over a `MultiThreadedEventLoopGroup`, written as an author would (NIO 2.101 has no
/// task executor of its own for the group): each job goes to the group's next loop in turn (`next()`, NIO's round
/// robin) as a block (`EventLoop.execute`), which runs it on this executor. A task preferring it runs its non-isolated
/// code, and its child tasks', spread over the loops.
///
/// Cost per job: one closure allocated for the block, NIO's `execute` (a lock, and from another thread one write to
/// the loop's eventfd when the loop is not already due to look at its queue), and two thread-local stores around the
/// job (the mark `isCurrent` reads).
public final class EventLoopGroupExecutor: LayerTaskExecutor {
    /// NIO's group, whose loops run the jobs.
    public let group: MultiThreadedEventLoopGroup
    private let mark = ThreadMark()

    /// A task executor over `group`.
    public init(_ group: MultiThreadedEventLoopGroup) { self.group = group }

    /// Hands the job to the group's next loop, as a block that runs it on this executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.next().execute {
            let outer = self.mark.enter(self)
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.mark.leave(restoring: outer)
        }
    }

    /// Whether the caller runs inside a job this executor started (a thread-local load): not in an actor's job on the
    /// same loops, which NIO's executor runs.
    public var isCurrent: Bool { mark.marks(self) }
}
