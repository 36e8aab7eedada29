import ArenaContract

/// A group: a count of unfinished work and the notifications waiting for it to reach zero, under the engine's lock.
/// As in libdispatch, `async` is an enter before the block and a leave after it.
public final class MinimalGroup: EngineGroup, @unchecked Sendable {
    private let label: String, runtime: Runtime
    private var count = 0, notifications: [() -> Void] = []  // guarded; each submits one notification

    init(label: String, runtime: Runtime) { (self.label, self.runtime) = (label, runtime) }

    /// Submits `block` to `queue` as part of the group: an `enter()`, an `async`, and a `leave()` when the block ends.
    public func async(on queue: MinimalQueue, _ block: @escaping @Sendable () -> Void) {
        enter()
        queue.async { [self] in
            block()
            leave()
        }
    }

    /// Counts one more piece of work: one lock round.
    public func enter() { runtime.locked { count += 1 } }

    /// Counts one piece of work done: one lock round and a broadcast; at zero the notifications go to their queues.
    /// A leave that would take the count below zero stops the process.
    public func leave() {
        runtime.changing {
            if count == 0 { misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'") }
            count -= 1
            if count > 0 { return }
            for submit in notifications { submit() }
            notifications = []
        }
    }

    /// Submits `block` to `queue` once the group is empty (at once if it is now): one lock round.
    public func notify(queue: MinimalQueue, _ block: @escaping @Sendable () -> Void) {
        whenEmpty { queue.enqueue(block) }
    }

    /// Submits `item` to `queue` once the group is empty, as `queue.async(item)` would: one lock round.
    public func notify(queue: MinimalQueue, item: MinimalWorkItem) {
        whenEmpty { queue.enqueue(item) }
    }

    /// Calls `submit` (with the lock held) now if the group is empty, else when it becomes empty.
    private func whenEmpty(_ submit: @escaping () -> Void) {
        runtime.changing { if count == 0 { submit() } else { notifications.append(submit) } }
    }

    /// Sleeps on the engine's condition until the group is empty or `deadline` passed.
    public func wait(until deadline: Deadline) -> WaitResult {
        runtime.locked { runtime.wait(until: deadline) { count == 0 } } ? .success : .timedOut
    }
}
