import ArenaContract

/// The nio contender's executor layer: each actor executor one of the group's event loops, taken in turn; the pool the
/// group itself (`EventLoopGroupExecutor`); beside each actor executor, a task executor on its loop
/// (`EventLoopTaskExecutor`). A cheap value: it holds the shared loops.
public struct NIOExecutors: ExecutorLayer {
    /// The event loops behind every executor the layer hands out.
    public let loops: EventLoops

    /// The layer over `loops`. Free.
    public init(loops: EventLoops) { self.loops = loops }

    /// NIO's executor of the next loop in turn, labelled `label`: with two loops or more, two executors made one after
    /// the other are on different loops; beyond the group's size, executors share loops, as actors on a channel's
    /// loop do. Never `nil`.
    public func makeActorExecutor(label: String) -> EventLoopActorExecutor? {
        EventLoopActorExecutor(loops.nextActorLoop(), label: label)
    }

    /// The task executor over the whole group. Shared; free to read.
    public var poolExecutor: EventLoopGroupExecutor { loops.pool }

    /// A task executor on `executor`'s loop, whose jobs run isolated to NIO's executor of that loop. One small
    /// allocation; never `nil`.
    public func colocatedExecutor(for executor: EventLoopActorExecutor) -> EventLoopTaskExecutor? {
        EventLoopTaskExecutor(beside: executor)
    }
}
