/// Something an engine may honestly be unable to do.
///
/// An engine lists the capabilities it lacks, each with a reason (`Engine.limits`); a rule that needs a missing
/// capability is reported `unsupported` with that reason. Capabilities name platform limits, not unfinished work.
public enum Capability: String, CaseIterable, Sendable, Codable, Comparable {
    /// A block may block its thread (sync onto another queue, wait on a group, semaphore or work item) without
    /// wedging the engine. (A nested apply does not need it: apply's caller takes part, so it never waits for a
    /// thread it cannot get.)
    case blockingInBlocks = "blocking-in-blocks"
    /// Read and write sources on file descriptors.
    case descriptorSources = "descriptor-sources"
    /// A read source outlives its descriptor's hang-up: once every writer closed, it reports the end (data 0) and
    /// the process goes on. libdispatch on Linux may crash there (see the system engine's limits).
    case descriptorHangUp = "descriptor-hang-up"
    /// Sources counting delivered POSIX signals.
    case signalSources = "signal-sources"
    /// Changing the target of a queue that is already active (the change lands between two blocks).
    case retargetActiveQueues = "retarget-active-queues"
    /// Under a saturated pool, blocks of a higher class run before blocks of a lower one (libdispatch's priority
    /// test): classes order the work, not only label it.
    case priorityScheduling = "priority-scheduling"
    /// The user-interactive class is a class of its own, above user-initiated.
    case userInteractiveClass = "user-interactive-class"
    /// A queue's own class applies to its blocks when it targets a queue of its own chain with another class: the
    /// nearest class up a chain decides. libdispatch on Linux runs them at the class of the chain's root (see the
    /// system engine's limits).
    case queueClassUnderTarget = "queue-class-under-target"
    /// A work item's own class applies: enforced over a queue's lower class, and on a queue without one.
    case workItemQoS = "work-item-qos"
    /// Sources reporting a process's exit (`Engine.makeProcessSource`). On Linux the system Dispatch library has
    /// none: libdispatch's process sources stand on kqueue's `EVFILT_PROC`.
    case processSources = "process-sources"
    /// Sources reporting changes to a file or directory (`Engine.makeFileSource`): writes, deletion, renames,
    /// attributes, links. On Linux the system Dispatch library has none: they stand on kqueue's `EVFILT_VNODE`.
    case fileSources = "file-sources"
    /// The GCD objects themselves (queues, groups, semaphores, sources, data, channels) as the engine's own, which
    /// every GCD rule and workload needs. Every engine has it but a contender that stands for another layer only:
    /// `foundation`, whose operation queues are checked and whose GCD is the system engine's.
    case dispatchObjects = "dispatch-objects"
    /// Removing an operation's last unfinished dependency makes the operation ready (Foundation's documentation of
    /// `removeDependency`). swift-corelibs-foundation's `Operation` does not (see the foundation contender's limits).
    case removeDependency = "remove-dependency"
    /// Cancelled operations and a barrier block that waits mix: an operation cancelled before it is added may be added
    /// to a queue where a barrier waits, and `cancelAllOperations` may cancel such a queue (its barrier with it).
    /// swift-corelibs-foundation's `addOperation` never returns in the first case, and the second now and then
    /// crashes the process (see the foundation contender's limits).
    case cancelAroundBarriers = "cancel-around-barriers"
    /// An operation-queue layer of the contender's own (`Engine.operations`), which the operation-queue rules and
    /// workloads need. Every engine has it but `swift`, which stands for Swift's default executors only.
    case operationQueues = "operation-queues"
    /// Swift executors of the contender's own (`Engine.executors`), which the executor rules and workloads need. Every
    /// engine has it but `foundation`, whose executors would be the system engine's.
    case executors = "executors"
    /// Serial executors one can make and submit plain blocks to (`ExecutorLayer.makeActorExecutor`). Swift's default
    /// actors run on the runtime's own executor, which is no object (see the swift contender's limits).
    case serialExecutors = "serial-executors"
    /// Task executors that run beside one of the layer's serial executors, on its queue
    /// (`ExecutorLayer.colocatedExecutor(for:)`): a task already where an actor runs calls it without a hop.
    case colocatedExecutors = "colocated-executors"
    /// An executor the layer installs as Swift Concurrency's global executor (`ExecutorLayer.makeGlobalExecutor()`,
    /// `GlobalExecutorTakeover`), which the global-executor rules need: every task and default actor of the process
    /// then runs on the contender. Swift's default executor is the global executor already; an engine built on it
    /// (`actor`) cannot replace it.
    case globalExecutor = "global-executor"

    /// The layer of the contract this capability is part of (`dispatch-objects`, `operation-queues`, `executors`);
    /// `nil` for a layer itself. A contender without a layer has none of its capabilities, whatever its `limits` say.
    public var layer: Capability? {
        switch self {
        case .dispatchObjects, .operationQueues, .executors: nil
        case .removeDependency, .cancelAroundBarriers: .operationQueues
        case .serialExecutors, .colocatedExecutors, .globalExecutor: .executors
        default: .dispatchObjects
        }
    }

    public static func < (lhs: Capability, rhs: Capability) -> Bool { lhs.rawValue < rhs.rawValue }
}
