/// A group: a count of outstanding work, with callbacks and waits for the moment it drops to zero.
///
/// A group is reusable: once it drained, new work starts a new round.
public protocol EngineGroup: AnyObject, Sendable {
    /// The engine's queue type.
    associatedtype Queue: EngineQueue

    /// Submits `block` to `queue` as part of the group.
    func async(on queue: Queue, _ block: @escaping @Sendable () -> Void)

    /// Counts one more outstanding piece of work.
    func enter()

    /// Counts one piece of work as done. A leave without a matching enter is misuse and stops the process.
    func leave()

    /// Submits `block` to `queue` once the group is empty (at once when it is empty now).
    func notify(queue: Queue, _ block: @escaping @Sendable () -> Void)

    /// Submits `item` to `queue` once the group is empty, as `Queue.async(item)` would: a cancelled item skips its
    /// block, and its own notifications still fire.
    func notify(queue: Queue, item: Queue.WorkItem)

    /// Blocks until the group is empty or `deadline` passed.
    func wait(until deadline: Deadline) -> WaitResult
}
