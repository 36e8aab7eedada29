/// One deliberate defect. A mutant engine is a base engine (the system engine unless `Mutants.base(for:)` says
/// otherwise) with exactly one fault; every conformance rule must be failed by at least one of them, or the rule
/// cannot tell a broken engine from a good one. Each fault's bug, in one line, is its `summary` (after the cases).
package enum Fault: String, CaseIterable, Codable, Sendable {
    // Queues
    case serialOverlaps
    case asyncHops
    case concurrentIsSerial
    case startsLastFirst
    case syncLosesErrors
    case syncInline
    case syncHoldsEngineLock
    case globalIsSerial
    case asyncDropsBlocks
    case syncOnOwnQueueAllowed
    case queuesWaitForGlobal
    // Barriers
    case barrierIgnored
    // Targets
    case targetIgnored
    case retargetIgnored
    // Suspension
    case suspendIgnored
    case inactiveIgnored
    case releasesSuspendedSilently
    case suspendSkipsTargeters
    // Specific values
    case specificLeaks
    case specificKeepsReplaced
    case specificOutlivesQueue
    // Context and finalizers
    case finalizerEarly
    case finalizerLostAfterDrain
    case finalizerWithoutContext
    // Registration handlers, work item flags
    case registrationIgnored
    case registrationDespiteCancel
    case barrierFlagIgnored
    case groupNotifyItemEarly
    // Quality of service (the item and user-interactive faults wrap the mutex engine, which keeps work-item-qos and
    // user-interactive-class: see `Mutants.base(for:)`)
    case globalClassIgnored
    case userInteractiveDemoted
    case queueClassIgnored
    case targetClassIgnored
    case itemClassAlwaysEnforced
    case itemClassIgnored
    case priorityUnordered
    // Groups
    case groupNotifiesEarly
    case notifyDuplicated
    case groupWaitReturnsAtOnce
    case waitLosesWakeup
    case unbalancedLeaveIgnored
    // Semaphores
    case semaphoreOverAdmits
    case semaphoreTimeoutTakes
    case timeoutSwallowsSignal
    case signalAlwaysWakes
    case negativeAccepted
    // Once
    case onceRacy
    case onceRecursionAllowed
    // Apply
    case applySkipsLast
    case applyZeroRunsOnce
    case applySerial
    case applyWaitsForWorkers
    case applyRepeatsIndex
    // After
    case afterEarly
    case afterDropsPast
    // Work items
    case cancelIgnored
    case workItemNotifyEarly
    case workItemWaitAtOnce
    case doubleWaitAllowed
    case notifyLostWhileFinishing
    // Sources
    case sourceNoCoalescing
    case sourceMergesAsAdd
    case sourceDropsMerges
    case sourceHandlerOffQueue
    case cancelLate
    case cancelHandlerOnRelease
    // Timers
    case timerEarly
    case timerDrifts
    case timerLateRearms
    case timerLeewayIgnoredLate
    case timerDataAlwaysOne
    case rescheduleIgnored
    case oneShotRepeats
    case timerArmedAfterCancel
    // The main queue (these wrap the mutex engine, whose main loop runs on any thread: see `Mutants.base(for:)`)
    case mainOffLoop
    case mainSyncInline
    case mainTargetBypassed
    case mainSyncOnSelfAllowed
    // Data
    case concatCopies
    case subrangeCopies
    case mapKeepsRegions
    case copyCorruptsAcrossRegions
    case nestedSubrangeLosesOffset
    case enumerateIgnoresStop
    case deallocatorOffQueue
    // I/O channels
    case readLosesFirstByte
    case writeCorruptsLastByte
    case lowWaterOne
    case highWaterIgnored
    case stopIgnored
    case closeStops
    case cleanupEarly
    case randomOffsetIgnored
    case pathOpenedEagerly
    case channelBarrierEarly
    case writesWaitForReads
    case intervalIgnored
    case sharedChannelDuplicates
    // Descriptors and signals
    case readDataOffByOne
    case endOfFileSilent
    case writeAlwaysReady
    case closesDescriptorOnCancel
    case signalCountedTwice
    // Process and file sources (these wrap the mutex engine: system lacks both, see `Mutants.base(for:)`)
    case exitReportedTwice
    case exitMissedForLaterObservers
    case exitMissedWhenExited
    case writeAlwaysExtends
    case renameMissed
    case deleteMissedWhileOpen
    case linkReportedAsAttrib
    case directoryEntriesIgnored
    case fileEventsUnmasked
    // Operation queues (the engine's operation layer, wrapped by `MutantOperations`; the GCD faults above leave it alone)
    case dependenciesIgnored
    case removeDependencyIgnored
    case widthIgnored
    case serialInAdditionOrder
    case queuePriorityIgnored
    case priorityFixedAtEnqueue
    case operationCancelIgnored
    case cancelRunsWork
    case cancelWaitsForDependencies
    case cancelAllIgnored
    case completionTwice
    case completionEarly
    case executingNeverReported
    case asyncFinishesOnReturn
    case operationWaitReturnsAtOnce
    case waitAllReturnsAtOnce
    case addWaitingReturnsAtOnce
    case operationSuspendIgnored
    case operationBarrierIgnored
    case barrierSkipsExecuting
    case executionBlocksDropped
    case operationCountIgnored
    case dependencyOnFinishedNeverReady
    case currentQueueNil
    case operationsReversed
    case underlyingQueueIgnored
    case underlyingSetWhileBusyAllowed
    case mainOperationsOffLoop
    case startOnAnotherThread
    case startIgnoresReadiness
    case timedWaitSucceedsAtOnce
    case enqueueTwiceIgnored
    case startWhileEnqueuedIgnored
    case startWhileExecutingIgnored
    case negativeWidthIgnored
    case blockWhileExecutingIgnored
    case blockOnPlainOperationIgnored
    case finishTwiceIgnored
    // Swift executors (the mutant's executor layer, `MutantExecutors`, over the base engine's own queues; every other
    // fault leaves it alone, and these leave the GCD and operation layers alone)
    case executorRunsNewestFirst
    case executorOnPool
    case executorOnTwoQueues
    case isolationAlwaysHeld
    case isolationOnAnyExecutor
    case isolationNeverHeld
    case poolBypassed
    case poolSerial
    case colocatedOnPool
    // Swift's global executor (the mutant's `MutantGlobalExecutor`, over the default one on the base engine's queues)
    case globalJobsLost
    case globalOffContender
    case globalTimerEarly
    case globalPriorityIgnored
    case globalMainOffLoop
    case globalExitWaits
    case globalRunsOnTaskExecutor

    /// The defect in one line, as an implementer would describe the bug (`arena explain` shows it beside the mutant).
    package var summary: String {
        switch self {
        // Queues
        case .serialOverlaps: "serial queues run blocks concurrently"
        case .asyncHops: "serial-queue async arrives after a random delay: order lost"
        case .concurrentIsSerial: "concurrent queues run one block at a time"
        case .startsLastFirst: "concurrent queues start the newest pending block first"
        case .syncLosesErrors: "sync replaces the block's error with another"
        case .syncInline: "sync runs on the caller at once, ahead of earlier blocks"
        case .syncHoldsEngineLock: "every sync holds one engine-wide lock: nested syncs deadlock"
        case .globalIsSerial: "the global queue runs one block at a time"
        case .asyncDropsBlocks: "every 64th block submitted without waiting (async, barrier, after, group) is lost"
        case .syncOnOwnQueueAllowed: "sync onto the queue the caller drains runs inline instead of stopping"
        case .queuesWaitForGlobal: "the pool serves the global queue first: a block of another queue waits while global blocks are pending"
        // Barriers
        case .barrierIgnored: "barriers are plain blocks"
        // Targets
        case .targetIgnored: "targets given at creation or by setTarget are dropped"
        case .retargetIgnored: "claims retarget-active-queues, then ignores the change"
        // Suspension
        case .suspendIgnored: "suspend and resume do nothing (so over-resume passes too)"
        case .inactiveIgnored: "queues created inactive start active"
        case .releasesSuspendedSilently: "a suspended queue is resumed on release instead of diagnosed"
        case .suspendSkipsTargeters: "a suspended queue holds back its own blocks only: queues targeting it run on"
        // Specific values
        case .specificLeaks: "a value set on any queue is visible everywhere"
        case .specificKeepsReplaced: "a replaced or removed value is kept for good: its destructor never runs"
        case .specificOutlivesQueue: "the values still set when a queue goes are kept for good"
        // Context and finalizers
        case .finalizerEarly: "the finalizer is submitted as soon as it is set, with the context of that moment"
        case .finalizerLostAfterDrain: "a queue released by the program with nothing queued forgets its finalizer"
        case .finalizerWithoutContext: "the finalizer runs when the queue goes, context or not"
        // Registration handlers, work item flags
        case .registrationIgnored: "a source's registration handler is dropped"
        case .registrationDespiteCancel: "the registration handler runs at activation even when cancelled before it"
        case .barrierFlagIgnored: "work items flagged barrier run as plain blocks"
        case .groupNotifyItemEarly: "a group's notify with a work item submits it at once"
        case .globalClassIgnored: "every global queue is the default one"
        case .userInteractiveDemoted: "user-interactive is user-initiated, as libdispatch on Linux has it"
        case .queueClassIgnored: "a queue's class given at creation is dropped"
        case .targetClassIgnored: "currentQoS reports the queue's own class only, never its target's"
        case .itemClassAlwaysEnforced: "every work item with a class enforces it"
        case .itemClassIgnored: "a work item's class is dropped"
        case .priorityUnordered: "claims priority-scheduling, and runs the classes as the system engine does"
        // Groups
        case .groupNotifiesEarly: "notify runs at once, work outstanding or not"
        case .notifyDuplicated: "notify runs its block twice"
        case .groupWaitReturnsAtOnce: "wait reports success at once"
        case .waitLosesWakeup: "wait checks, works 10 µs, then listens: a leave in between is lost (see MutantGroup)"
        case .unbalancedLeaveIgnored: "a leave without enter is dropped silently"
        // Semaphores
        case .semaphoreOverAdmits: "a semaphore of value N admits N + 1"
        case .semaphoreTimeoutTakes: "a timed-out wait still takes the next unit"
        case .timeoutSwallowsSignal: "a signal landing while a waiter leaves by timeout wakes it, and is lost"
        case .signalAlwaysWakes: "signal reports a woken waiter every time"
        case .negativeAccepted: "a negative initial value is accepted"
        // Once
        case .onceRacy: "racing callers may all run the body"
        case .onceRecursionAllowed: "a recursive call returns instead of stopping"
        // Apply
        case .applySkipsLast: "the last index never runs"
        case .applyZeroRunsOnce: "apply(0) runs index 0"
        case .applySerial: "apply is a plain loop on the caller"
        case .applyWaitsForWorkers: "the caller waits for the pool instead of taking part"
        case .applyRepeatsIndex: "index 0 runs a second time after the others"
        // After
        case .afterEarly: "asyncAfter runs at once"
        case .afterDropsPast: "asyncAfter with a past deadline never runs"
        // Work items
        case .cancelIgnored: "cancel does nothing"
        case .workItemNotifyEarly: "notify runs at once"
        case .workItemWaitAtOnce: "wait reports success at once"
        case .doubleWaitAllowed: "a second wait returns instead of stopping"
        case .notifyLostWhileFinishing: "a notify registered while the item's body ends is lost (check, then append)"
        // Sources
        case .sourceNoCoalescing: "every merge is its own handler call, at once, on the queue"
        case .sourceMergesAsAdd: "or and replace sources add"
        case .sourceDropsMerges: "every tenth merge is lost"
        case .sourceHandlerOffQueue: "handlers run on the global queue, not the source's queue"
        case .cancelLate: "cancel runs the cancel handler at once and stops the source later"
        case .cancelHandlerOnRelease: "releasing a source runs its cancel handler"
        // Timers
        case .timerEarly: "timers fire 5 ms before their deadline"
        case .timerDrifts: "repeating timers re-arm from the handler's end"
        case .timerLateRearms: "a handler that overruns the interval re-arms the timer from its end: missed fires are dropped"
        case .timerLeewayIgnoredLate: "timers fire four leeways after their deadline"
        case .timerDataAlwaysOne: "a timer's data is 1 whatever was missed"
        case .rescheduleIgnored: "only the first schedule counts"
        case .oneShotRepeats: "a timer without interval repeats every 10 ms"
        case .timerArmedAfterCancel: "a cancelled timer stays armed: its fires keep waking a thread, which drops them"
        case .mainOffLoop: "the main queue is a plain serial queue on the pool, not bound to the loop"
        case .mainSyncInline: "sync onto the main queue runs on the caller's thread"
        case .mainTargetBypassed: "a queue created targeting the main queue targets the global queue instead"
        case .mainSyncOnSelfAllowed: "sync onto the main queue from its own block runs inline instead of stopping"
        // Data
        case .concatCopies: "concatenation copies both buffers into one new region"
        case .subrangeCopies: "a subrange copies its bytes into a new region"
        case .mapKeepsRegions: "mapping returns the buffer as it is, regions and all"
        case .copyCorruptsAcrossRegions: "a copy that spans a region boundary gets its last byte wrong"
        case .nestedSubrangeLosesOffset: "a subrange of a subrange counts from the start of its shared region, not the offset in it"
        case .enumerateIgnoresStop: "enumeration visits every region whatever the applier returns"
        case .deallocatorOffQueue: "a buffer's deallocator runs on the global queue, not its own"
        // I/O channels
        case .readLosesFirstByte: "the first bytes a read delivers lose their first byte"
        case .writeCorruptsLastByte: "a write puts a wrong last byte"
        case .lowWaterOne: "the low water mark stays 1 byte, whatever is set: calls carry what arrived"
        case .highWaterIgnored: "setting the high water mark does nothing"
        case .stopIgnored: "closing with stop lets operations run on, as a plain close"
        case .closeStops: "a plain close stops operations under way, as close with stop"
        case .cleanupEarly: "the cleanup handler runs at close, before the operations ended"
        case .randomOffsetIgnored: "a random-access channel reads and writes at offset 0, whatever was asked"
        case .pathOpenedEagerly: "a path channel opens its file at creation"
        case .channelBarrierEarly: "a channel barrier runs at once, on the global queue"
        case .writesWaitForReads: "a write waits until no read is under way on its channel"
        case .intervalIgnored: "setting an interval does nothing"
        case .sharedChannelDuplicates: "a channel made from another gets a duplicate of its descriptor: a channel of its own"
        // Descriptors and signals
        case .readDataOffByOne: "a read source reports one byte more than available"
        case .endOfFileSilent: "a read source stays quiet at end of file"
        case .writeAlwaysReady: "a write source fires whether or not there is room"
        case .closesDescriptorOnCancel: "cancel closes the descriptor before the cancel handler"
        case .signalCountedTwice: "each signal counts twice"
        case .exitReportedTwice: "every handler call of a process source runs again 100 ms later"
        case .exitMissedForLaterObservers: "only the first process source made for a process hears of its exit"
        case .exitMissedWhenExited: "a process source made for a process that already exited never fires"
        case .writeAlwaysExtends: "every write is reported as extending the file, whether it grew or not"
        case .renameMissed: "file sources never ask the kernel for renames"
        case .deleteMissedWhileOpen: "deletion waits for the last descriptor to close (IN_DELETE_SELF alone): never seen"
        case .linkReportedAsAttrib: "a change of link count is reported as attrib (inotify's IN_ATTRIB taken at its word)"
        case .directoryEntriesIgnored: "entries created, renamed or removed in a watched directory are not reported"
        case .fileEventsUnmasked: "file sources report every event they see, asked for or not"
        case .dependenciesIgnored: "addDependency is listed but never reaches the layer: dependents start at once"
        case .removeDependencyIgnored: "removeDependency leaves the list but not the layer: the operation stays unready"
        case .widthIgnored: "maxConcurrentOperationCount reads back what was set, and the queue stays unlimited"
        case .serialInAdditionOrder: "at width 1 every operation waits for the one added before it, as a serial dispatch queue"
        case .queuePriorityIgnored: "queuePriority reads back what was set, and never reaches the layer"
        case .priorityFixedAtEnqueue: "queuePriority set after the operation was enqueued is ignored"
        case .operationCancelIgnored: "cancel does nothing: isCancelled stays false, the work runs"
        case .cancelRunsWork: "cancel sets isCancelled, and the operation runs its work anyway"
        case .cancelWaitsForDependencies: "a cancelled operation still waits for its unfinished dependencies, then skips its work"
        case .cancelAllIgnored: "cancelAllOperations does nothing"
        case .completionTwice: "the completion block runs twice"
        case .completionEarly: "the completion block runs when the operation is enqueued, not after it finished"
        case .executingNeverReported: "isExecuting is always false"
        case .asyncFinishesOnReturn: "an asynchronous operation finishes when start returns; its finish does nothing"
        case .operationWaitReturnsAtOnce: "waitUntilFinished returns at once"
        case .waitAllReturnsAtOnce: "waitUntilAllOperationsAreFinished returns at once"
        case .addWaitingReturnsAtOnce: "addOperations(_:waitUntilFinished: true) returns at once"
        case .operationSuspendIgnored: "isSuspended reads back what was set, and the queue goes on starting operations"
        case .operationBarrierIgnored: "a barrier block is a plain operation"
        case .barrierSkipsExecuting: "a barrier waits for the operations not yet started only, not for those executing"
        case .executionBlocksDropped: "addExecutionBlock drops the block: only the first block runs"
        case .operationCountIgnored: "operationCount is always 0"
        case .dependencyOnFinishedNeverReady: "a dependency on an operation that already finished never counts as met"
        case .currentQueueNil: "the layer's currentQueue is always nil"
        case .operationsReversed: "the operations list is in reverse order of addition"
        case .underlyingQueueIgnored: "underlyingQueue reads back what was set, and the operations run on the queue's own"
        case .underlyingSetWhileBusyAllowed: "setting underlyingQueue on a queue with operations is ignored, not stopped"
        case .mainOperationsOffLoop: "the main operation queue is a plain operation queue on the pool, not on the main loop"
        case .startOnAnotherThread: "start() runs the operation on a thread of its own and returns at once"
        case .startIgnoresReadiness: "start() on an operation that is not ready drops its dependencies and runs it"
        case .timedWaitSucceedsAtOnce: "the waits with a deadline report success at once"
        case .enqueueTwiceIgnored: "adding an operation already on a queue (or executing, or finished) does nothing"
        case .startWhileEnqueuedIgnored: "start() on an operation waiting on a queue does nothing"
        case .startWhileExecutingIgnored: "start() on an operation that is executing does nothing"
        case .negativeWidthIgnored: "a negative maxConcurrentOperationCount other than -1 is ignored"
        case .blockWhileExecutingIgnored: "addExecutionBlock on an operation that is executing or finished drops the block"
        case .blockOnPlainOperationIgnored: "addExecutionBlock on an operation that is not a block operation drops the block"
        case .finishTwiceIgnored: "an asynchronous operation's second finish does nothing"
        case .executorRunsNewestFirst: "a serial executor runs the newest pending job first"
        case .executorOnPool: "a serial executor hands its jobs to the engine's global (concurrent) queue"
        case .executorOnTwoQueues: "a serial executor hands its jobs to two serial queues of the base engine in turn: two threads"
        case .isolationAlwaysHeld: "a serial executor's isolation check always says isolated, and never traps"
        case .isolationOnAnyExecutor: "isolation holds in a block of any serial executor's queue, not only the actor's own"
        case .isolationNeverHeld: "a serial executor's isolation check always says not isolated"
        case .poolBypassed: "the task executor hands its jobs to Swift's global concurrent executor, off the pool"
        case .poolSerial: "the task executor runs its jobs one at a time, on a serial queue of the base engine"
        case .colocatedOnPool: "the task executor beside a serial executor runs its jobs on the base engine's global queue"
        case .globalJobsLost: "the global executor drops every 50th job it is handed"
        case .globalOffContender: "the global executor runs each job on a new plain thread, off the engine"
        case .globalTimerEarly: "the global executor runs a job due later at once"
        case .globalPriorityIgnored: "the global executor runs every job on the default class's queue, whatever its priority"
        case .globalMainOffLoop: "the main actor's executor runs its jobs on a serial queue of the engine, off the main loop"
        case .globalRunsOnTaskExecutor:
            "the global executor runs each job with itself as the task executor, so the runtime switches a task without a preference at every await"
        case .globalExitWaits: "the global executor holds the process's exit 300 ms, and runs the jobs that fall due meanwhile"
        }
    }
}
