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
                """,
                .cancelAroundBarriers: """
                swift-corelibs-foundation mishandles cancelled operations around a barrier block that waits: \
                addOperation of an operation cancelled before it is added never returns (0 of 20 calls returned within \
                2 s; controls, not cancelled or no barrier: 20 of 20 each), and cancelAllOperations on such a queue \
                crashes the process now and then (SIGSEGV in 15 of 20 processes of 200 rounds; control, no barrier: 0 \
                of 20): docs/FINDINGS.md §15, first met by arena explore (seeds op:5 and op:48)
                """,
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
