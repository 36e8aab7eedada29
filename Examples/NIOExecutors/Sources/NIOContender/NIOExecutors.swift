import ArenaContract
import NIOPosix

/// The nio contender's executor layer: each actor executor one of the group's event loops, taken in turn; the pool the
/// group itself (`EventLoopGroupExecutor`); beside each actor executor, a task executor on its loop
/// (`EventLoopTaskExecutor`). A cheap value: it holds at most a reference to its loops, and the shared ones are made
/// on the first use of an executor, so a process that never asks (a child measuring another engine) starts no loop.
public struct NIOExecutors: SpecificValueLayer {
    private let ownLoops: EventLoops?

    /// The layer over the process's shared loops (`EventLoops.shared`). Free.
    public init() { ownLoops = nil }

    /// The layer over `loops`: a test's group, counting its loops' work through a metrics delegate. Free.
    public init(loops: EventLoops) { ownLoops = loops }

    /// The event loops behind every executor the layer hands out; made on first use.
    public var loops: EventLoops { ownLoops ?? .shared }

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

    /// On one of the loops, the value an actor executor on that loop set for `key` (`EventLoopActorExecutor.setSpecific`:
    /// a table per loop, since NIO has no queue-specific values); `nil` on any other thread, where the contender asks
    /// the system engine. One thread-local load
    /// (NIO's current loop) off the loops; on a loop, a look at each loop's `inEventLoop`, a lock and a dictionary
    /// lookup.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        guard MultiThreadedEventLoopGroup.currentEventLoop != nil else { return nil }
        return loops.specificsOfCurrentLoop?.value(for: key)
    }
}
