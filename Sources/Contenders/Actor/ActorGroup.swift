/// A group: a count of outstanding work; waiting is async (`wait() async`, a continuation) or blocking (the
/// protocol's `wait(until:)`, a futex); notifications are submitted by whoever brings the count to zero.
public final class ActorGroup: EngineGroup, @unchecked Sendable {
    public let label: String
    private let waiters = ActorWaitList()
    // Guarded by the wait list's lock (changed only inside `waiters.update`).
    private var outstanding = 0
    private var entered = 0
    private var notifications: [(queue: ActorQueue, block: @Sendable () -> Void)] = []

    init(label: String) { self.label = label }

    public func async(on queue: ActorQueue, _ block: @escaping @Sendable () -> Void) {
        waiters.update { outstanding += 1; return false }
        queue.async { [self] in
            block()
            finishOne()
        }
    }

    public func enter() {
        waiters.update {
            outstanding += 1
            entered += 1
            return false
        }
    }

    public func leave() {
        var balanced = true
        waiters.update {
            guard entered > 0 else {
                balanced = false
                return false
            }
            entered -= 1
            return false
        }
        if !balanced { misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'") }
        finishOne()
    }

    private func finishOne() {
        var ready: [(queue: ActorQueue, block: @Sendable () -> Void)] = []
        waiters.update {
            outstanding -= 1
            guard outstanding == 0 else { return false }
            swap(&ready, &notifications)
            return true
        }
        for notification in ready { notification.queue.async(notification.block) }
    }

    public func notify(queue: ActorQueue, _ block: @escaping @Sendable () -> Void) {
        var now = false
        waiters.update {
            if outstanding == 0 { now = true } else { notifications.append((queue, block)) }
            return false
        }
        if now { queue.async(block) }
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        waiters.block(until: deadline) { outstanding == 0 } ? .success : .timedOut
    }

    /// Suspends until the group is empty.
    public func wait() async { await waiters.wait { outstanding == 0 } }
}
