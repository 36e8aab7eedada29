import ArenaContract
import Contenders

/// SwiftNIO's event loops as a contender, `nio`: actors run on NIO's own event-loop executor (`EventLoop.executor` of
/// a `MultiThreadedEventLoopGroup`, NIO's `enqueue` running their jobs), tasks on a task executor over the same group
/// (`EventLoopGroupExecutor`). It brings only an executor layer (`NIOExecutors`); every GCD object it hands out is the
/// system engine's, so its column in the conformance matrix is the executor rules.
///
/// A cheap value: the event loops are made on the first use of its executors (`NIOExecutors`).
public struct NIOEngine: GCDBorrower {
    /// The engine whose GCD objects this contender hands out (never used by the executor rules and workloads).
    public let lender = SystemEngine()
    /// The executor layer, over the shared loops or a test's. A cheap value.
    public let executors: NIOExecutors

    /// The contender on the process's shared event loops (`EventLoops.shared`).
    public init() { executors = NIOExecutors() }

    /// The contender on `loops`: a test's group, counting its loops' work through a metrics delegate.
    public init(loops: EventLoops) { executors = NIOExecutors(loops: loops) }

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

    /// On one of the contender's loops, the loop's value for `key` (`NIOExecutors.currentSpecific`); elsewhere the
    /// lender's.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        executors.currentSpecific(key) ?? lender.currentSpecific(key)
    }
}
