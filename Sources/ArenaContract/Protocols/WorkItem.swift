/// How a work item runs, beyond its block (`DispatchWorkItemFlags`, `dispatch_block_flags_t`).
public struct WorkItemFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Submitted to a concurrent queue, the item is a barrier: it starts after every earlier block finished and runs
    /// alone. On a serial queue it is a plain block; on the global queue too (libdispatch ignores barriers there).
    public static let barrier = WorkItemFlags(rawValue: 1 << 0)

    /// The item's class applies even on a queue with a class of its own, unless the queue's is higher (block.h,
    /// DISPATCH_BLOCK_ENFORCE_QOS_CLASS). Needs `work-item-qos`.
    public static let enforceQoS = WorkItemFlags(rawValue: 1 << 1)

    /// The queue's class applies; the item's only where the queue has none (DISPATCH_BLOCK_INHERIT_QOS_CLASS). What an
    /// item without either flag does when submitted.
    public static let inheritQoS = WorkItemFlags(rawValue: 1 << 2)
}

/// A work item: a block with an identity, which can be cancelled, waited for and followed by a notification.
public protocol EngineWorkItem: AnyObject, Sendable {
    /// The engine's queue type.
    associatedtype Queue: EngineQueue where Queue.WorkItem == Self

    /// Runs the block on the caller's thread (unless cancelled), then fires notifications.
    func perform()

    /// Cancels the item: if it has not started it never runs its body; if it is running, only `isCancelled` changes.
    func cancel()

    /// Whether `cancel()` was called.
    var isCancelled: Bool { get }

    /// Submits `block` to `queue` once the item finished or was cancelled before starting.
    func notify(queue: Queue, _ block: @escaping @Sendable () -> Void)

    /// Blocks until the item finished (or was cancelled before starting) or `deadline` passed. Waiting again after a
    /// successful wait is misuse and stops the process.
    func wait(until deadline: Deadline) -> WaitResult
}
