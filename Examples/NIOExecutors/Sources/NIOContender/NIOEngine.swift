import ArenaContract
import Contenders
import NIOPosix

/// SwiftNIO's event loops as a contender, `nio`: actors run on NIO's own event-loop executor (`EventLoop.executor` of
/// a `MultiThreadedEventLoopGroup`, NIO's `enqueue` running their jobs), tasks on a task executor over the same group
/// (`EventLoopGroupExecutor`). It brings only an executor layer (`NIOExecutors`); every GCD object it hands out is the
/// system engine's, so its column in the conformance matrix is the executor rules.
///
/// A cheap value: the event loops are made on the first use of its executors (`EventLoops.shared`), so a process that
/// never asks, such as a child measuring another engine, starts no loop thread.
public struct NIOEngine: GCDBorrower {
    /// The engine whose GCD objects this contender hands out (never used by the executor rules and workloads).
    public let lender = SystemEngine()
    private let ownLoops: EventLoops?

    /// The contender on the process's shared event loops (`EventLoops.shared`).
    public init() { ownLoops = nil }

    /// The contender on `loops`: a test's group, counting its loops' work through a metrics delegate.
    public init(loops: EventLoops) { ownLoops = loops }

    /// The event loops the executors run on; made on first use.
    public var loops: EventLoops { ownLoops ?? .shared }

    public var name: String { "nio" }

    public var summary: String {
        "SwiftNIO 2.101's event loops: actors on NIO's own event-loop executor, tasks on a task executor over the same MultiThreadedEventLoopGroup; its GCD is the system engine's."
    }

    public var limits: [Capability: String] {
        var limits: [Capability: String] = [:]
        limits[.dispatchObjects] = """
            the nio contender brings only Swift executors over NIO's event loops, checked on the executor rules; its \
            queues, groups and sources are libdispatch's, which the system column checks
            """
        limits[.operationQueues] = """
            the nio contender brings only Swift executors over NIO's event loops; an operation-queue layer over it \
            would be the system engine's, which the system column checks
            """
        return limits
    }

    /// The executor layer over `loops`. A cheap value.
    public var executors: NIOExecutors { NIOExecutors(loops: loops) }

    /// On one of the contender's event loops, the value an actor executor on that loop set for `key`
    /// (`EventLoopActorExecutor.setSpecific`: a loop-local table, since NIO has no queue-specific values); elsewhere
    /// the lender's. One thread-local load, and on a loop a lock and a dictionary lookup.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil, let specifics = loops.specificsOfCurrentLoop {
            return specifics.value(for: key)
        }
        return lender.currentSpecific(key)
    }
}
