import ArenaContract

/// Swift's default executors, the reference for tasks and the baseline for actors: a contender whose task executor
/// is Swift's global concurrent executor and whose actors are default actors.
///
/// Its column in the conformance matrix is about executors only: it lacks `dispatch-objects` and `operation-queues`
/// (its GCD would be the system engine's, checked in that column), and `serial-executors`, since a default actor's
/// executor is the runtime's own. On Linux the global concurrent executor is libdispatch's root-queue pool, the same
/// threads the system engine's global queue runs on.
public struct SwiftDefaultEngine: GCDBorrower {
    /// The engine whose GCD objects this contender hands out (never used by the executor rules and workloads).
    public let lender = SystemEngine()

    public init() {}

    public var name: String { "swift" }

    public var summary: String {
        "Swift's default executors: the global concurrent executor for tasks and default actors, the reference for tasks; its GCD is the system engine's."
    }

    public var limits: [Capability: String] {
        // The GCD capabilities are the system engine's, and moot here: without dispatch-objects none is checked.
        var limits: [Capability: String] = [:]
        limits[.dispatchObjects] = """
            the swift contender is Swift's default executors, checked on the executor rules; its queues, groups and \
            sources would be libdispatch's, which the system column checks
            """
        limits[.operationQueues] = """
            the swift contender is Swift's default executors; an operation-queue layer over it would be the system \
            engine's, which the system column checks
            """
        limits[.serialExecutors] = """
            a default actor runs on the runtime's own executor, which is no object one can make, hand to another \
            actor or submit a plain block to (an actor without an `unownedExecutor` of its own has no public \
            executor value); the serial-executor rules' reference is the system engine's Dispatch queue behind the \
            adapter, and the actor workloads run default actors here
            """
        return limits
    }

    /// Swift's default executors behind the layer protocol. A cheap value.
    public var executors: SwiftDefaultExecutors { SwiftDefaultExecutors() }
}
