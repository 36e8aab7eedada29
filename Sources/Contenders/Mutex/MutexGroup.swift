import ArenaContract

/// A group: a count of outstanding work and the notifications waiting for it to reach zero, under one mutex.
public final class MutexGroup: EngineGroup, @unchecked Sendable {
    public let label: String
    private let lock = PthreadMutex()
    private let emptied = PthreadCondition()
    // Guarded by `lock`:
    private var outstanding = 0
    /// Manual `enter()`s not yet left; a `leave()` beyond them is misuse.
    private var entered = 0
    /// Submissions waiting for the group to empty: a block or a work item, each bound to its queue.
    private var notifications: [@Sendable () -> Void] = []

    init(label: String) { self.label = label }

    public func async(on queue: MutexQueue, _ block: @escaping @Sendable () -> Void) {
        lock.withLock { outstanding += 1 }
        queue.async { [self] in
            block()
            finishOne()
        }
    }

    public func enter() {
        lock.withLock {
            outstanding += 1
            entered += 1
        }
    }

    public func leave() {
        lock.lock()
        guard entered > 0 else {
            lock.unlock()
            misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'")
        }
        entered -= 1
        lock.unlock()
        finishOne()
    }

    private func finishOne() {
        lock.lock()
        outstanding -= 1
        var ready: [@Sendable () -> Void] = []
        if outstanding == 0 {
            swap(&ready, &notifications)
            emptied.broadcast()
        }
        lock.unlock()
        for submit in ready { submit() }
    }

    public func notify(queue: MutexQueue, _ block: @escaping @Sendable () -> Void) {
        whenEmpty { queue.async(block) }
    }

    public func notify(queue: MutexQueue, item: MutexWorkItem) {
        whenEmpty { queue.async(item) }
    }

    /// Runs `submit` once the group is empty: now, or when the last outstanding piece finishes.
    private func whenEmpty(_ submit: @escaping @Sendable () -> Void) {
        lock.lock()
        if outstanding == 0 {
            lock.unlock()
            return submit()
        }
        notifications.append(submit)
        lock.unlock()
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        MutexThreadContext.blocking {
            lock.withLock {
                while outstanding > 0 {
                    if !emptied.wait(lock, until: deadline) && outstanding > 0 { return .timedOut }
                }
                return .success
            }
        }
    }
}
