import Synchronization

/// A group: an atomic count of outstanding work, a futex for waiters, and a notification stack.
///
/// The party that brings the count to zero takes the notifications, wakes the waiters (only when some announced
/// themselves) and submits what it took. `notify` pushes, then (after a sequentially consistent fence) looks at the count and submits
/// everything itself if it is zero; whoever exchanges the stack runs what it took, so each notification runs once.
public final class LockFreeGroup: EngineGroup, @unchecked Sendable {
    public let label: String
    /// Outstanding work; waiters sleep on this word.
    private let outstanding = FutexWord(0)
    private let waiters = PaddedAtomic<Int>(0)
    /// Manual enters not yet left; a leave beyond them is misuse.
    private let entered = Atomic<Int>(0)
    private let notifications = NotificationStack()

    init(label: String) { self.label = label }

    /// The job carries the group, unretained (`LockFreeJob.group`), so no closure is made around the block and no
    /// reference count is touched per block.
    public func async(on queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        begin()
        queue.async(block, in: Unmanaged.passUnretained(self))
    }

    public func enter() {
        entered.add(1, ordering: .relaxed)
        begin()
    }

    /// One more piece of work. The group keeps itself alive while it has any (libdispatch's rule: a retain when the
    /// count leaves zero, released when it returns there), so a block can leave a group its submitter dropped.
    @inline(__always)
    private func begin() {
        if outstanding.word.pointee.add(1, ordering: .relaxed).oldValue == 0 { _ = Unmanaged.passRetained(self) }
    }

    public func leave() {
        if entered.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'")
        }
        finishOne()
    }

    /// One piece of work finished (a leave, or a block submitted in the group ran).
    func finishOne() {
        guard outstanding.word.pointee.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        // Take this round's notifications before waking the waiters, as libdispatch does: a woken waiter may start the
        // next round at once, and a notify it registers belongs to that round, not to this one.
        let due = notifications.takeAll()
        if waiters.atomic.pointee.load(ordering: .relaxed) > 0 { outstanding.wakeAll() }
        for submit in due { submit() }
        Unmanaged.passUnretained(self).release()  // the keep-alive of `begin`: last, the group may go here
    }

    public func notify(queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        notifications.push(queue, block)
        submitIfEmpty()
    }

    public func notify(queue: LockFreeQueue, item: LockFreeWorkItem) {
        notifications.push(queue, item)
        submitIfEmpty()
    }

    /// After a push: the group may be empty already, and then nobody else will submit it.
    private func submitIfEmpty() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if outstanding.word.pointee.load(ordering: .acquiring) == 0 { notifications.submitAll() }
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        if outstanding.word.pointee.load(ordering: .acquiring) == 0 { return .success }
        waiters.atomic.pointee.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.atomic.pointee.subtract(1, ordering: .relaxed) }
        return LockFreeThreadContext.blocking {
            while true {
                let count = outstanding.word.pointee.load(ordering: .acquiring)
                if count == 0 { return .success }
                if !outstanding.wait(whileEqualTo: count, until: deadline) {
                    return outstanding.word.pointee.load(ordering: .acquiring) == 0 ? .success : .timedOut
                }
            }
        }
    }
}
