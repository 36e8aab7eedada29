/// An executor a layer installs as Swift Concurrency's global executor (`GlobalExecutorTakeover`): it takes every job
/// of every task and default actor that no executor of its own claims, plain or due at a time, and, where the
/// program hands its main thread to the engine, the main actor's jobs too.
///
/// A layer hands one out through `ExecutorLayer.makeGlobalExecutor()`; the default layer's is `EngineGlobalExecutor`,
/// the engine's global queues of every class. The takeover reaches it through one existential (the runtime's hooks are
/// plain C function pointers, which cannot be generic), so each job costs one witness call before the queue's own.
public protocol LayerGlobalExecutor: TaskExecutor {
    /// Runs `job` once it is due at `deadline` (the contract's monotonic clock), never before, on the class its
    /// priority maps to (`QoSClass(_:)` of `JobPriority`).
    func enqueue(_ job: UnownedJob, at deadline: Deadline)

    /// Whether the caller runs inside a job this executor started.
    var isCurrent: Bool { get }

    /// The queue the main actor's jobs go to when the program hands its main thread to the engine (`main: true` at
    /// install): the engine's main queue.
    var mainQueue: any EngineQueue { get }

    /// Makes the calling thread the engine's main-loop thread for the rest of the process (`Engine.dispatchMain()`).
    func runMainLoop() -> Never

    /// Whether the caller runs a block or job of the main queue, on the main-loop thread.
    var isOnMainLoop: Bool { get }
}

/// The global executor of a layer that installs none: a type no one can make. The `swift` contender's layer has it
/// (Swift's default executor is the global executor already), and so has a layer that brings no pool.
public final class NoGlobalExecutor: LayerGlobalExecutor {
    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        misuse("NoGlobalExecutor: a layer without a global executor was handed a job")
    }

    public func enqueue(_ job: UnownedJob, at deadline: Deadline) {
        misuse("NoGlobalExecutor: a layer without a global executor was handed a job")
    }

    public var isCurrent: Bool { false }
    public var mainQueue: any EngineQueue { misuse("NoGlobalExecutor has no main queue") }
    public func runMainLoop() -> Never { misuse("NoGlobalExecutor has no main loop") }
    public var isOnMainLoop: Bool { false }
}

extension QoSClass {
    /// The class a job of `priority` runs at, as Swift's default executor runs it on Linux: Swift's priorities are
    /// Dispatch's classes by value (`TaskPriority`'s raw values are `qos_class_t`'s): `low` is utility, `medium`
    /// default, `high` user-initiated, and a priority above high runs at user-initiated too (measured: the default
    /// executor runs a task of priority 0x21, user-interactive's value, at user-initiated); an unspecified priority
    /// (0) runs at the default class. A comparison or two.
    @inlinable
    public init(_ priority: JobPriority) {
        switch priority.rawValue {
        case 0x19...: self = .userInitiated
        case 0x15..<0x19: self = .default
        case 0x11..<0x15: self = .utility
        case 0x01..<0x11: self = .background
        default: self = .default
        }
    }
}

extension UnownedSerialExecutor {
    /// The runtime's generic executor (`SerialExecutorRef::generic()`: no identity, no witness table), which Swift's
    /// default global executor runs its jobs on: a job run on it runs isolated to nothing, with no task executor.
    public static var generic: UnownedSerialExecutor {
        unsafeBitCast((UInt(0), UInt(0)), to: UnownedSerialExecutor.self)
    }
}
