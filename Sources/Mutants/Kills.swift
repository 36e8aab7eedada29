/// One mutant expected to fail one rule: the rule, and the fault whose mutant (`Mutants.name(of:)`) it catches.
package struct Kill: Sendable, Equatable, CustomStringConvertible {
    package let rule: String
    package let fault: Fault

    package init(rule: String, fault: Fault) {
        self.rule = rule
        self.fault = fault
    }

    package var description: String { "\(rule) ← \(fault.rawValue)" }
}

/// The rule→fault table: for every rule of the catalog, the mutants it must fail. The tests check every entry
/// (`MutantTests`) and that every rule and every fault has one; `arena explain RULE` shows the rule failing on the first
/// mutant listed for it (`Kill.first(for:)`).
extension Kill {
    /// Faults every run of the rule catches (a behaviour rule fails or times out; a misuse rule finds the misuse
    /// allowed), in the order `arena explain` prefers them: the first listed for a rule is the one it shows.
    package static let table: [Kill] = [
        // Queues
        Kill(rule: "serial.fifo", fault: .asyncHops),
        Kill(rule: "serial.fifo", fault: .asyncDropsBlocks),
        Kill(rule: "serial.exclusive", fault: .serialOverlaps),
        Kill(rule: "concurrent.parallel", fault: .concurrentIsSerial),
        Kill(rule: "concurrent.start-order", fault: .startsLastFirst),
        Kill(rule: "sync.result", fault: .syncLosesErrors),
        Kill(rule: "sync.after-earlier", fault: .syncInline),
        Kill(rule: "sync.on-other-queue-from-block", fault: .syncHoldsEngineLock),
        Kill(rule: "sync.reentrant-concurrent", fault: .syncHoldsEngineLock),
        Kill(rule: "global.concurrent", fault: .globalIsSerial),
        Kill(rule: "global.takes-turns", fault: .queuesWaitForGlobal),
        // The main queue
        Kill(rule: "main.thread", fault: .mainOffLoop),
        Kill(rule: "main.async-from-many-threads", fault: .mainOffLoop),
        Kill(rule: "main.sync-from-background", fault: .mainSyncInline),
        Kill(rule: "main.sync-from-background", fault: .mainOffLoop),
        Kill(rule: "main.hand-off", fault: .mainOffLoop),
        Kill(rule: "main.target", fault: .mainTargetBypassed),
        Kill(rule: "main.sync-on-self", fault: .mainSyncOnSelfAllowed),
        // Quality of service
        Kill(rule: "qos.global-classes", fault: .globalClassIgnored),
        Kill(rule: "qos.user-interactive", fault: .userInteractiveDemoted),
        Kill(rule: "qos.queue-class", fault: .queueClassIgnored),
        Kill(rule: "qos.inherit-target", fault: .targetClassIgnored),
        Kill(rule: "qos.item-inherit", fault: .itemClassAlwaysEnforced),
        Kill(rule: "qos.item-enforce", fault: .itemClassIgnored),
        Kill(rule: "qos.priority-scheduling", fault: .priorityUnordered),
        // Barriers
        Kill(rule: "barrier.after-earlier", fault: .barrierIgnored),
        Kill(rule: "barrier.before-later", fault: .barrierIgnored),
        Kill(rule: "barrier.alone", fault: .barrierIgnored),
        Kill(rule: "barrier.sync", fault: .barrierIgnored),
        Kill(rule: "barrier.sync", fault: .concurrentIsSerial),
        Kill(rule: "barrier.on-serial", fault: .asyncHops),
        Kill(rule: "barrier.on-serial", fault: .serialOverlaps),
        Kill(rule: "barrier.later-concurrent", fault: .concurrentIsSerial),
        Kill(rule: "barrier.on-global", fault: .globalIsSerial),
        // Targets
        Kill(rule: "target.serializes", fault: .targetIgnored),
        Kill(rule: "target.serializes", fault: .serialOverlaps),
        Kill(rule: "target.width", fault: .targetIgnored),
        Kill(rule: "target.set-while-inactive", fault: .targetIgnored),
        Kill(rule: "target.change-between-blocks", fault: .retargetIgnored),
        Kill(rule: "target.change-while-running", fault: .retargetIgnored),
        // Suspension
        Kill(rule: "suspend.no-new-starts", fault: .suspendIgnored),
        Kill(rule: "suspend.counted", fault: .suspendIgnored),
        Kill(rule: "suspend.over-resume", fault: .suspendIgnored),
        Kill(rule: "inactive.start", fault: .inactiveIgnored),
        Kill(rule: "suspend.through-target", fault: .suspendSkipsTargeters),
        // Specific values
        Kill(rule: "specific.own-queue", fault: .specificLeaks),
        Kill(rule: "specific.inherited", fault: .targetIgnored),
        Kill(rule: "specific.destructor-on-replace", fault: .specificKeepsReplaced),
        Kill(rule: "specific.destructor-on-release", fault: .specificOutlivesQueue),
        // Context and finalizers
        Kill(rule: "context.finalizer-runs", fault: .finalizerEarly),
        Kill(rule: "context.finalizer-after-drain", fault: .finalizerLostAfterDrain),
        Kill(rule: "context.finalizer-needs-context", fault: .finalizerWithoutContext),
        Kill(rule: "context.finalizer-needs-context", fault: .finalizerEarly),
        Kill(rule: "context.suspension-delays", fault: .finalizerEarly),
        // Groups
        Kill(rule: "group.notify-after-all", fault: .groupNotifiesEarly),
        Kill(rule: "group.notify-after-all", fault: .notifyDuplicated),
        Kill(rule: "group.notify-empty", fault: .notifyDuplicated),
        Kill(rule: "group.wait", fault: .groupWaitReturnsAtOnce),
        Kill(rule: "group.enter-leave", fault: .groupNotifiesEarly),
        Kill(rule: "group.reuse", fault: .groupNotifiesEarly),
        Kill(rule: "group.notify-next-round", fault: .groupNotifiesEarly),
        Kill(rule: "group.multi-queue", fault: .groupNotifiesEarly),
        Kill(rule: "group.many-waiters", fault: .groupWaitReturnsAtOnce),
        Kill(rule: "group.unbalanced-leave", fault: .unbalancedLeaveIgnored),
        // Semaphores
        Kill(rule: "semaphore.count", fault: .semaphoreOverAdmits),
        Kill(rule: "semaphore.timeout", fault: .semaphoreTimeoutTakes),
        Kill(rule: "semaphore.signal-wakes", fault: .signalAlwaysWakes),
        Kill(rule: "semaphore.negative", fault: .negativeAccepted),
        Kill(rule: "semaphore.timeout-races-signal", fault: .timeoutSwallowsSignal),
        // Once
        Kill(rule: "once.exactly", fault: .onceRacy),
        Kill(rule: "once.recursive", fault: .onceRecursionAllowed),
        // Apply
        Kill(rule: "apply.every-index", fault: .applySkipsLast),
        Kill(rule: "apply.every-index", fault: .applyRepeatsIndex),
        Kill(rule: "apply.zero", fault: .applyZeroRunsOnce),
        Kill(rule: "apply.parallel", fault: .applySerial),
        Kill(rule: "apply.nested", fault: .applySkipsLast),
        Kill(rule: "apply.busy-pool", fault: .applyWaitsForWorkers),
        Kill(rule: "apply.from-serial", fault: .applySkipsLast),
        Kill(rule: "apply.rounds", fault: .applySkipsLast),
        // After
        Kill(rule: "after.not-early", fault: .afterEarly),
        Kill(rule: "after.zero", fault: .afterDropsPast),
        // Work items
        Kill(rule: "workitem.cancel-before", fault: .cancelIgnored),
        Kill(rule: "workitem.cancel-during", fault: .cancelIgnored),
        Kill(rule: "workitem.notify", fault: .workItemNotifyEarly),
        Kill(rule: "workitem.wait", fault: .workItemWaitAtOnce),
        Kill(rule: "workitem.after-cancelled", fault: .cancelIgnored),
        Kill(rule: "workitem.double-wait", fault: .doubleWaitAllowed),
        Kill(rule: "workitem.barrier-flag", fault: .barrierFlagIgnored),
        Kill(rule: "workitem.group-notify", fault: .groupNotifyItemEarly),
        Kill(rule: "workitem.notify-while-finishing", fault: .notifyLostWhileFinishing),
        // Sources
        Kill(rule: "source.add-coalesces", fault: .sourceNoCoalescing),
        Kill(rule: "source.add-coalesces", fault: .sourceDropsMerges),
        Kill(rule: "source.or-coalesces", fault: .sourceMergesAsAdd),
        Kill(rule: "source.replace", fault: .sourceMergesAsAdd),
        Kill(rule: "source.replace", fault: .sourceDropsMerges),
        Kill(rule: "source.merge-at-call-start", fault: .sourceDropsMerges),
        Kill(rule: "source.data-reset", fault: .sourceNoCoalescing),
        Kill(rule: "source.zero-merge", fault: .sourceNoCoalescing),
        Kill(rule: "source.handler-not-reentrant", fault: .sourceNoCoalescing),
        Kill(rule: "source.on-target", fault: .sourceHandlerOffQueue),
        Kill(rule: "source.inactive", fault: .sourceNoCoalescing),
        Kill(rule: "source.suspend-coalesces", fault: .suspendIgnored),
        Kill(rule: "source.cancel", fault: .cancelLate),
        Kill(rule: "source.cancel", fault: .sourceNoCoalescing),
        Kill(rule: "source.cancel-handler-only-if-cancelled", fault: .cancelHandlerOnRelease),
        Kill(rule: "source.registration-first", fault: .registrationIgnored),
        Kill(rule: "source.registration-not-if-cancelled", fault: .registrationDespiteCancel),
        // Timers
        Kill(rule: "timer.not-early", fault: .timerEarly),
        Kill(rule: "timer.repeat", fault: .timerDrifts),
        Kill(rule: "timer.leeway", fault: .timerLeewayIgnoredLate),
        Kill(rule: "timer.data-counts-fires", fault: .timerDataAlwaysOne),
        Kill(rule: "timer.data-counts-fires", fault: .suspendIgnored),
        Kill(rule: "timer.reschedule", fault: .rescheduleIgnored),
        Kill(rule: "timer.cancel", fault: .cancelLate),
        Kill(rule: "timer.one-shot", fault: .oneShotRepeats),
        Kill(rule: "timer.past-start", fault: .timerDataAlwaysOne),
        Kill(rule: "timer.cancel-disarms", fault: .timerArmedAfterCancel),
        Kill(rule: "timer.late-handler", fault: .timerLateRearms),
        Kill(rule: "timer.late-handler", fault: .timerDrifts),
        // Descriptors and signals
        Kill(rule: "fd.read", fault: .readDataOffByOne),
        Kill(rule: "fd.read-end-of-file", fault: .endOfFileSilent),
        Kill(rule: "fd.write", fault: .writeAlwaysReady),
        Kill(rule: "fd.close-in-cancel", fault: .closesDescriptorOnCancel),
        Kill(rule: "signal.count", fault: .signalCountedTwice),
        // Data
        Kill(rule: "data.concat-no-copy", fault: .concatCopies),
        Kill(rule: "data.subrange-no-copy", fault: .subrangeCopies),
        Kill(rule: "data.map-contiguous", fault: .mapKeepsRegions),
        Kill(rule: "data.copy-across-regions", fault: .copyCorruptsAcrossRegions),
        Kill(rule: "data.enumerate", fault: .enumerateIgnoresStop),
        Kill(rule: "data.deallocator-once", fault: .deallocatorOffQueue),
        Kill(rule: "data.nested-subrange", fault: .nestedSubrangeLosesOffset),
        // I/O channels
        Kill(rule: "io.stream-read", fault: .readLosesFirstByte),
        Kill(rule: "io.write-fill-drain", fault: .writeCorruptsLastByte),
        Kill(rule: "io.read-in-order", fault: .readLosesFirstByte),
        Kill(rule: "io.low-water", fault: .lowWaterOne),
        Kill(rule: "io.high-water", fault: .highWaterIgnored),
        Kill(rule: "io.stop", fault: .stopIgnored),
        Kill(rule: "io.stop", fault: .cleanupEarly),
        Kill(rule: "io.close-lets-finish", fault: .closeStops),
        Kill(rule: "io.close-lets-finish", fault: .cleanupEarly),
        Kill(rule: "io.random-access", fault: .randomOffsetIgnored),
        Kill(rule: "io.path-lazy", fault: .pathOpenedEagerly),
        Kill(rule: "io.barrier", fault: .channelBarrierEarly),
        Kill(rule: "io.read-write-one-descriptor", fault: .writesWaitForReads),
        Kill(rule: "io.tcp-echo", fault: .writeCorruptsLastByte),
        Kill(rule: "io.read-once", fault: .readLosesFirstByte),
        Kill(rule: "io.write-once", fault: .writeCorruptsLastByte),
        Kill(rule: "io.interval", fault: .intervalIgnored),
        Kill(rule: "io.create-with-io", fault: .sharedChannelDuplicates),
        // Process and file sources
        Kill(rule: "proc.exit", fault: .exitReportedTwice),
        Kill(rule: "proc.observers", fault: .exitReportedTwice),
        Kill(rule: "proc.observers", fault: .exitMissedForLaterObservers),
        Kill(rule: "proc.exited-already", fault: .exitMissedWhenExited),
        Kill(rule: "vnode.write", fault: .writeAlwaysExtends),
        Kill(rule: "vnode.rename", fault: .renameMissed),
        Kill(rule: "vnode.delete", fault: .deleteMissedWhileOpen),
        Kill(rule: "vnode.delete", fault: .closesDescriptorOnCancel),
        Kill(rule: "vnode.attrib-link", fault: .linkReportedAsAttrib),
        Kill(rule: "vnode.directory-write", fault: .directoryEntriesIgnored),
        Kill(rule: "vnode.mask", fault: .fileEventsUnmasked),
        // Misuse
        Kill(rule: "sync.on-own-queue", fault: .syncOnOwnQueueAllowed),
        Kill(rule: "sync.on-own-queue-through-target", fault: .syncOnOwnQueueAllowed),
        Kill(rule: "disposal.suspended-queue", fault: .releasesSuspendedSilently),
        // Operation queues
        Kill(rule: "op.states", fault: .executingNeverReported),
        Kill(rule: "op.states", fault: .dependenciesIgnored),
        Kill(rule: "op.dependency", fault: .dependenciesIgnored),
        Kill(rule: "op.dependency-across-queues", fault: .dependenciesIgnored),
        Kill(rule: "op.remove-dependency", fault: .removeDependencyIgnored),
        Kill(rule: "op.max-concurrent", fault: .widthIgnored),
        Kill(rule: "op.serial-readiness", fault: .widthIgnored),
        Kill(rule: "op.serial-readiness", fault: .serialInAdditionOrder),
        Kill(rule: "op.priority", fault: .queuePriorityIgnored),
        Kill(rule: "op.priority", fault: .serialInAdditionOrder),
        Kill(rule: "op.priority-change", fault: .priorityFixedAtEnqueue),
        Kill(rule: "op.priority-change", fault: .queuePriorityIgnored),
        Kill(rule: "op.cancel-unstarted", fault: .cancelRunsWork),
        Kill(rule: "op.cancel-unstarted", fault: .operationCancelIgnored),
        Kill(rule: "op.cancel-ignores-dependencies", fault: .cancelWaitsForDependencies),
        Kill(rule: "op.cancel-running", fault: .operationCancelIgnored),
        Kill(rule: "op.completion", fault: .completionTwice),
        Kill(rule: "op.completion", fault: .completionEarly),
        Kill(rule: "op.async-operation", fault: .asyncFinishesOnReturn),
        Kill(rule: "op.async-operation", fault: .executingNeverReported),
        Kill(rule: "op.wait-until-finished", fault: .operationWaitReturnsAtOnce),
        Kill(rule: "op.wait-while-finishing", fault: .operationWaitReturnsAtOnce),
        Kill(rule: "op.wait-all", fault: .waitAllReturnsAtOnce),
        Kill(rule: "op.add-waiting", fault: .addWaitingReturnsAtOnce),
        Kill(rule: "op.suspend", fault: .operationSuspendIgnored),
        Kill(rule: "op.barrier-after-earlier", fault: .operationBarrierIgnored),
        Kill(rule: "op.barrier-before-later", fault: .operationBarrierIgnored),
        Kill(rule: "op.barrier-while-executing", fault: .barrierSkipsExecuting),
        Kill(rule: "op.cancel-all", fault: .cancelAllIgnored),
        Kill(rule: "op.operation-count", fault: .operationCountIgnored),
        Kill(rule: "op.execution-blocks", fault: .executionBlocksDropped),
        Kill(rule: "op.dependency-cycle", fault: .cancelWaitsForDependencies),
        Kill(rule: "op.dependency-cycle", fault: .dependenciesIgnored),
        Kill(rule: "op.current-queue", fault: .currentQueueNil),
        Kill(rule: "op.operations-list", fault: .operationsReversed),
        Kill(rule: "op.underlying-queue", fault: .underlyingQueueIgnored),
        Kill(rule: "op.underlying-queue-busy", fault: .underlyingSetWhileBusyAllowed),
        Kill(rule: "op.main-queue", fault: .mainOperationsOffLoop),
        Kill(rule: "op.start-outside-queue", fault: .startOnAnotherThread),
        Kill(rule: "op.start-not-ready", fault: .startIgnoresReadiness),
        Kill(rule: "op.wait-deadline", fault: .timedWaitSucceedsAtOnce),
        Kill(rule: "op.dependency-on-finished", fault: .dependencyOnFinishedNeverReady),
        Kill(rule: "op.add-twice", fault: .enqueueTwiceIgnored),
        Kill(rule: "op.start-enqueued", fault: .startWhileEnqueuedIgnored),
        Kill(rule: "op.start-executing", fault: .startWhileExecutingIgnored),
        Kill(rule: "op.negative-width", fault: .negativeWidthIgnored),
        Kill(rule: "op.block-while-executing", fault: .blockWhileExecutingIgnored),
        Kill(rule: "op.block-while-enqueued", fault: .executionBlocksDropped),
        Kill(rule: "op.block-on-plain-operation", fault: .blockOnPlainOperationIgnored),
        Kill(rule: "op.finish-twice", fault: .finishTwiceIgnored),
        // Swift executors
        Kill(rule: "executor.serial-fifo", fault: .executorRunsNewestFirst),
        Kill(rule: "executor.serial-exclusive", fault: .executorOnPool),
        Kill(rule: "executor.serial-exclusive", fault: .executorOnTwoQueues),
        Kill(rule: "executor.actor-on-queue", fault: .executorOnPool),
        Kill(rule: "executor.assume-isolated-in-block", fault: .isolationNeverHeld),
        Kill(rule: "executor.assume-isolated-off-queue", fault: .isolationAlwaysHeld),
        Kill(rule: "executor.assume-isolated-other-queue", fault: .isolationOnAnyExecutor),
        Kill(rule: "executor.isolation-over-preference", fault: .executorOnPool),
        Kill(rule: "executor.isolation-over-preference", fault: .poolBypassed),
        Kill(rule: "executor.preference-on-pool", fault: .poolBypassed),
        Kill(rule: "executor.children-inherit", fault: .poolBypassed),
        Kill(rule: "executor.sleep", fault: .poolBypassed),
        Kill(rule: "executor.cancellation", fault: .poolBypassed),
        Kill(rule: "executor.pool-parallel", fault: .poolSerial),
        Kill(rule: "executor.colocated", fault: .colocatedOnPool),
        // Swift's global executor
        Kill(rule: "global-executor.every-job-once", fault: .globalJobsLost),
        Kill(rule: "global-executor.on-contender", fault: .globalOffContender),
        Kill(rule: "global-executor.sleep", fault: .globalTimerEarly),
        Kill(rule: "global-executor.delay-entry-point", fault: .globalTimerEarly),
        Kill(rule: "global-executor.delay-entry-point", fault: .globalOffContender),
        Kill(rule: "global-executor.deadline-entry-point", fault: .globalTimerEarly),
        Kill(rule: "global-executor.deadline-entry-point", fault: .globalOffContender),
        Kill(rule: "global-executor.priority-classes", fault: .globalPriorityIgnored),
        Kill(rule: "global-executor.continuations", fault: .globalOffContender),
        Kill(rule: "global-executor.main-actor", fault: .globalMainOffLoop),
        Kill(rule: "global-executor.exit", fault: .globalExitWaits),
        Kill(rule: "global-executor.continuation-body-at-once", fault: .globalRunsOnTaskExecutor),
        Kill(rule: "executor.check-isolated-off-queue", fault: .isolationAlwaysHeld),
    ]

    /// Faults that only show when a thread is preempted at the wrong instruction: `arena conform --stress` must
    /// catch them within 20 runs (`MutantTests.stressCatches`); a quiet run rarely does.
    package static let preemptionOnly: [Kill] = [
        Kill(rule: "group.wait", fault: .waitLosesWakeup)
    ]

    /// Every kill: the table and the preemption-only ones.
    package static var all: [Kill] { table + preemptionOnly }

    /// The kills of rule `id`, the table's first (in its order), then the preemption-only ones.
    package static func kills(of id: String) -> [Kill] { all.filter { $0.rule == id } }

    /// The mutant `arena explain` shows failing rule `id`: the table's first for it, if any.
    package static func first(for id: String) -> Kill? { table.first { $0.rule == id } }
}
