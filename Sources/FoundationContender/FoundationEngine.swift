import ArenaContract
import Contenders

/// Foundation's own `OperationQueue`, the reference for operation queues: a contender whose operation layer is
/// Foundation's (`FoundationOperations`) and whose GCD objects are the system engine's, which Foundation runs on.
///
/// Its column in the conformance matrix is about operation queues only: it lacks `dispatch-objects`, so the GCD
/// rules, which are the system engine's to keep, are reported unsupported here rather than run twice. Every GCD
/// call it gets is the system engine's, at the system engine's cost.
public struct FoundationEngine: GCDBorrower {
    /// The engine whose GCD Foundation runs on here.
    public let lender = SystemEngine()

    public init() {}

    public var name: String { "foundation" }

    public var summary: String {
        "Foundation's OperationQueue and BlockOperation (swift-corelibs-foundation), the reference for operation queues; its GCD is the system engine's."
    }

    public var limits: [Capability: String] {
        // The GCD capabilities are the system engine's, and moot here: without dispatch-objects none is checked.
        var limits: [Capability: String] = [:]
        limits[.dispatchObjects] = """
            the foundation contender is Foundation's OperationQueue, checked on the operation-queue rules; its \
            queues, groups and sources are libdispatch's, which the system column checks
            """
        limits[.removeDependency] = """
            swift-corelibs-foundation's Operation.removeDependency lowers the count of unfinished dependencies only \
            when the removed one is finished and the operation cancelled (`if canidate._state == .finished && \
            _isCancelled { _decrementUnfinishedDependencyCount() }`), so removing an unfinished dependency never makes \
            the operation ready: op.remove-dependency run with the capability claimed failed 3 runs of 3 and 10 of 10 \
            direct runs ("the operation reporting isReady after its last unfinished dependency was removed did not \
            happen within 2.0 seconds")
            """
        limits[.executors] = """
            the foundation contender is about operation queues; its executors would be the system engine's, which \
            the system column checks
            """
        return limits
    }

    /// Foundation's `OperationQueue`, behind the layer protocol. A cheap value.
    public var operations: FoundationOperations { FoundationOperations() }
}
