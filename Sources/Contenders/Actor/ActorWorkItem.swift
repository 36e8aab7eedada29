import ArenaContract

/// A work item: cancelled and finished flags, notifications, and waiters (async or blocking) on a wait list.
public final class ActorWorkItem: EngineWorkItem, @unchecked Sendable {
    public typealias Queue = ActorQueue

    public let label: String
    /// Flagged `.barrier`: a queue it is submitted to posts it as a barrier (`ActorQueue.async(_:)`).
    let isBarrier: Bool
    /// The item's class and whether it enforces it, applied while it runs (`PerformedItemClass`).
    private let qos: QoSClass?
    private let enforcesQoS: Bool
    private let block: @Sendable () -> Void
    private let waiters = ActorWaitList()
    // Guarded by the wait list's lock:
    private var cancelled = false
    private var finished = false
    private var waited = false
    private var notifications: [(queue: ActorQueue, block: @Sendable () -> Void)] = []

    init(label: String, qos: QoSClass?, flags: WorkItemFlags, block: @escaping @Sendable () -> Void) {
        self.label = label
        isBarrier = flags.contains(.barrier)
        self.qos = qos
        enforcesQoS = flags.contains(.enforceQoS)
        self.block = block
    }

    public func perform() {
        var skip = false
        waiters.update {
            skip = cancelled
            return false
        }
        if !skip { PerformedItemClass.performing(qos, enforced: enforcesQoS, block) }
        var ready: [(queue: ActorQueue, block: @Sendable () -> Void)] = []
        waiters.update {
            finished = true
            swap(&ready, &notifications)
            return true
        }
        for notification in ready { notification.queue.async(notification.block) }
    }

    public func cancel() {
        waiters.update {
            cancelled = true; return false
        }
    }

    public var isCancelled: Bool {
        var value = false
        waiters.update {
            value = cancelled; return false
        }
        return value
    }

    public func notify(queue: ActorQueue, _ block: @escaping @Sendable () -> Void) {
        var now = false
        waiters.update {
            if finished { now = true } else { notifications.append((queue, block)) }
            return false
        }
        if now { queue.async(block) }
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        var again = false
        waiters.update {
            again = waited; return false
        }
        if again { misuse("work item waited on twice: work item '\(label)'") }
        guard waiters.block(until: deadline, { finished }) else { return .timedOut }
        waiters.update {
            waited = true; return false
        }
        return .success
    }

    /// Suspends until the item finished (or was cancelled before it started).
    public func wait() async { await waiters.wait { finished } }
}
