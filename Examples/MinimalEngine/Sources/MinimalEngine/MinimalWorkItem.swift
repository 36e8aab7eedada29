import ArenaContract

/// A work item: its block, a cancelled flag, and the notifications waiting for its end, under the engine's lock.
public final class MinimalWorkItem: EngineWorkItem, @unchecked Sendable {
    private let label: String, runtime: Runtime, block: @Sendable () -> Void
    /// Flagged `.barrier`: queues enqueue it as a barrier job (`MinimalQueue.enqueue(_:)`); `perform()` ignores it.
    let isBarrier: Bool
    // Guarded by the engine's lock:
    private var cancelled = false, finished = false, waited = false
    private var notifications: [(queue: MinimalQueue, block: @Sendable () -> Void)] = []

    init(label: String, flags: WorkItemFlags, runtime: Runtime, block: @escaping @Sendable () -> Void) {
        (self.label, self.runtime, self.block, isBarrier) = (label, runtime, block, flags.contains(.barrier))
    }

    /// Runs the block here unless cancelled, then submits the notifications: two lock rounds.
    public func perform() {
        if !isCancelled { block() }
        runtime.changing {
            finished = true
            for notification in notifications { notification.queue.enqueue(notification.block) }
            notifications = []
        }
    }

    /// Cancels the item; a running body only sees `isCancelled` change: one lock round.
    public func cancel() { runtime.locked { cancelled = true } }

    /// Whether `cancel()` was called: one lock round.
    public var isCancelled: Bool { runtime.locked { cancelled } }

    /// Submits `block` to `queue` once the item finished (at once if it has): one lock round.
    public func notify(queue: MinimalQueue, _ block: @escaping @Sendable () -> Void) {
        runtime.changing { if finished { queue.enqueue(block) } else { notifications.append((queue, block)) } }
    }

    /// Sleeps on the engine's condition until the item finished or `deadline` passed; a second successful wait stops
    /// the process.
    public func wait(until deadline: Deadline) -> WaitResult {
        runtime.locked {
            if waited { misuse("work item waited on twice: work item '\(label)'") }
            waited = runtime.wait(until: deadline) { finished }
            return waited ? .success : .timedOut
        }
    }
}
