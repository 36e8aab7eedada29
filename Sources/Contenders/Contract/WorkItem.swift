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
