import ArenaContract
import Contenders

/// Foundation's own `OperationQueue`, the reference for operation queues: the `foundation` contender, a
/// `LayerContender` bringing only its operation-queue layer (`FoundationOperations`), whose GCD objects are the system
/// engine's, which Foundation runs on.
///
/// Its column in the conformance matrix is about operation queues only: as a layer contender it lacks
/// `dispatch-objects` and `executors`, so the GCD rules, which are the system engine's to keep, are not run twice.
/// Every GCD call it gets is the system engine's, at the system engine's cost.
public typealias FoundationEngine = LayerContender<FoundationOperations, SystemEngine.Executors>

extension LayerContender where Operations == FoundationOperations, Executors == SystemEngine.Executors {
    /// The `foundation` contender.
    public init() {
        self.init(
            name: "foundation",
            summary:
                "Foundation's OperationQueue and BlockOperation (swift-corelibs-foundation), the reference for operation queues; its GCD is the system engine's.",
            operations: FoundationOperations(),
            limits: [
                .removeDependency: """
                swift-corelibs-foundation's Operation.removeDependency lowers the count of unfinished dependencies only \
                when the removed one is finished and the operation cancelled (`if canidate._state == .finished && \
                _isCancelled { _decrementUnfinishedDependencyCount() }`), so removing an unfinished dependency never \
                makes the operation ready: op.remove-dependency run with the capability claimed failed 3 runs of 3 and \
                10 of 10 direct runs ("the operation reporting isReady after its last unfinished dependency was removed \
                did not happen within 2.0 seconds")
                """
            ],
            deviations: [
                KnownDeviation(
                    .rule("op.dependency-cycle"),
                    finding: """
                        docs/FINDINGS.md §3: now and then swift-corelibs-foundation keeps a cancelled dependency cycle \
                        counted once both operations finished, and waitUntilAllOperationsAreFinished never returns
                        """),
                KnownDeviation(
                    .symptom(.readyOperationNotStarted),
                    finding: """
                        docs/FINDINGS.md §12: swift-corelibs-foundation strands an operation whose last dependency \
                        finishes while addOperation adds it: ready and counted, it is not started until the queue is \
                        made to look again
                        """),
            ])
    }
}
