import ArenaContract

/// A group: a count of outstanding work; waiting is async (`wait() async`, a continuation) or blocking (the
/// protocol's `wait(until:)`, a futex); notifications (blocks or work items, each kept as the submission to make) are
/// submitted by whoever brings the count to zero.
public final class ActorGroup: EngineGroup, @unchecked Sendable {
    public let label: String
    private let waiters = ActorWaitList()
    // Guarded by the wait list's lock (changed only inside `waiters.update`).
    private var outstanding = 0
    private var entered = 0
    private var notifications: [@Sendable () -> Void] = []

    init(label: String) { self.label = label }

    public func async(on queue: ActorQueue, _ block: @escaping @Sendable () -> Void) {
        waiters.update {
            outstanding += 1; return false
        }
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
        var ready: [@Sendable () -> Void] = []
        waiters.update {
            outstanding -= 1
            guard outstanding == 0 else { return false }
            swap(&ready, &notifications)
            return true
        }
        for submit in ready { submit() }
    }

    public func notify(queue: ActorQueue, _ block: @escaping @Sendable () -> Void) {
        whenEmpty { queue.async(block) }
    }

    /// The item goes to the queue as `queue.async(item)` sends it: a barrier if flagged so; cancelled, it skips its
    /// block and still fires its own notifications.
    public func notify(queue: ActorQueue, item: ActorWorkItem) {
        whenEmpty { queue.async(item) }
    }

    /// Calls `submit` once the group is empty: now if it is, else when the count drops to zero.
    private func whenEmpty(_ submit: @escaping @Sendable () -> Void) {
        var now = false
        waiters.update {
            if outstanding == 0 { now = true } else { notifications.append(submit) }
            return false
        }
        if now { submit() }
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        waiters.block(until: deadline) { outstanding == 0 } ? .success : .timedOut
    }

    /// Suspends until the group is empty.
    public func wait() async { await waiters.wait { outstanding == 0 } }
}
