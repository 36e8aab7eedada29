import ArenaContract

/// A work item: its block, a cancelled flag, and the notifications and waiters for its end, under one mutex.
public final class MutexWorkItem: EngineWorkItem, @unchecked Sendable {
    public typealias Queue = MutexQueue

    public let label: String
    /// How queues run it (`.barrier`: as a barrier on a concurrent queue).
    let flags: WorkItemFlags
    /// The item's class, applied as `flags` say while it runs (`PerformedItemClass`).
    private let qos: QoSClass?
    private let block: @Sendable () -> Void
    private let lock = PthreadMutex()
    private let ended = PthreadCondition()
    // Guarded by `lock`:
    private var cancelled = false
    private var finished = false
    private var waited = false
    private var notifications: [(queue: MutexQueue, block: @Sendable () -> Void)] = []

    init(label: String, qos: QoSClass?, flags: WorkItemFlags, block: @escaping @Sendable () -> Void) {
        self.label = label
        self.qos = qos
        self.flags = flags
        self.block = block
    }

    /// Runs the block unless cancelled before it started, then ends the item (notifications, waiters).
    public func perform() {
        if !lock.withLock({ cancelled }) {
            PerformedItemClass.performing(qos, enforced: flags.contains(.enforceQoS), block)
        }
        lock.lock()
        finished = true
        var ready: [(queue: MutexQueue, block: @Sendable () -> Void)] = []
        swap(&ready, &notifications)
        ended.broadcast()
        lock.unlock()
        for notification in ready { notification.queue.async(notification.block) }
    }

    public func cancel() { lock.withLock { cancelled = true } }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    public func notify(queue: MutexQueue, _ block: @escaping @Sendable () -> Void) {
        lock.lock()
        if finished {
            lock.unlock()
            return queue.async(block)
        }
        notifications.append((queue, block))
        lock.unlock()
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        lock.lock()
        defer { lock.unlock() }
        if waited {
            lock.unlock()
            misuse("work item waited on twice: work item '\(label)'")
        }
        let result: WaitResult = MutexThreadContext.blocking {
            while !finished {
                if !ended.wait(lock, until: deadline) && !finished { return .timedOut }
            }
            return .success
        }
        if result == .success { waited = true }
        return result
    }
}
