import ArenaContract
import Harness

/// Operation queues: Foundation's `OperationQueue` contract, checked on each contender's operation layer
/// (`Engine.operations`). Every wait a check makes has a deadline: the layer's own waits have none, so they are
/// called from a plain thread (`BlockingCall`) and the check waits for that thread.
enum OperationRules: RuleFamily {
    static let concept = Concept.operations
    static let rules: [any ConformanceRule.Type] = [
        OpStates.self, OpDependency.self, OpDependencyAcrossQueues.self, OpRemoveDependency.self, OpMaxConcurrent.self,
        OpSerialReadiness.self, OpPriority.self, OpPriorityChange.self, OpCancelUnstarted.self,
        OpCancelIgnoresDependencies.self, OpCancelRunning.self, OpCompletion.self, OpAsyncOperation.self,
        OpWaitUntilFinished.self, OpWaitWhileFinishing.self, OpWaitAll.self, OpAddWaiting.self, OpSuspend.self, OpBarrierAfterEarlier.self,
        OpBarrierBeforeLater.self, OpCancelAll.self, OpOperationCount.self, OpExecutionBlocks.self,
        OpDependencyCycle.self, OpDependencyOnFinished.self, OpBarrierWhileExecuting.self, OpCurrentQueue.self,
        OpOperationsList.self, OpUnderlyingQueue.self, OpUnderlyingQueueBusy.self, OpMainQueue.self, OpStartOutsideQueue.self,
        OpStartNotReady.self, OpWaitDeadline.self, OpAddTwice.self, OpStartEnqueued.self, OpStartExecuting.self,
        OpNegativeWidth.self, OpBlockWhileExecuting.self, OpBlockWhileEnqueued.self, OpBlockOnPlainOperation.self,
        OpFinishTwice.self,
    ]
}

/// The identities of `operations`, to compare lists of operations.
func identities<Operation: LayerOperation>(_ operations: [Operation]) -> [ObjectIdentifier] {
    operations.map(ObjectIdentifier.init)
}

/// An asynchronous operation's `finish`, kept until the check calls it; calling it a second time does nothing (the
/// contract makes a second call misuse, and a failing check may call it from its clean-up too).
final class FinishBox: Sendable {
    private let stored = Locked<(@Sendable () -> Void)?>(nil)
    private let started = Latch()

    func keep(_ finish: @escaping @Sendable () -> Void) {
        stored.withLock { $0 = finish }
        started.countDown()
    }

    /// Opens once `start` handed its `finish` over.
    var hasStarted: Latch { started }

    /// Calls the kept `finish` once; later calls, or a call before `start`, do nothing.
    func finish() {
        let finish = stored.withLock { stored in
            defer { stored = nil }
            return stored
        }
        finish?()
    }
}
