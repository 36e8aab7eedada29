import ArenaContract
import Synchronization

/// A group: an atomic count of outstanding work, a futex for waiters, and a notification stack.
///
/// The party that brings the count to zero takes the notifications, wakes the waiters (only when some announced
/// themselves) and submits what it took. `notify` pushes, then (after a sequentially consistent fence) looks at the count
/// and, if it is zero, takes the notifications of ended rounds itself; whoever exchanges the stack runs what it took,
/// so each notification runs once, and a party that puts a later round's back settles again (`settleLater`).
public final class LockFreeGroup: EngineGroup, @unchecked Sendable {
    public let label: String
    /// Outstanding work; waiters sleep on this word.
    private let outstanding = FutexWord(0)
    private let waiters = PaddedAtomic<Int>(0)
    /// Manual enters not yet left; a leave beyond them is misuse.
    private let entered = Atomic<Int>(0)
    private let notifications = NotificationStack()
    /// Rounds begun: a round begins when the count leaves zero. A notification belongs to the round current when it
    /// was registered, and the party ending a round runs only those of that round or earlier.
    private let rounds = Atomic<UInt64>(0)

    init(label: String) { self.label = label }

    /// The job carries the group, unretained (`LockFreeJob.group`), so no closure is made around the block and no
    /// reference count is touched per block.
    public func async(on queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        begin()
        queue.async(.block(block), in: Unmanaged.passUnretained(self))
    }

    public func enter() {
        entered.add(1, ordering: .relaxed)
        begin()
    }

    /// One more piece of work. The group keeps itself alive while it has any (libdispatch's rule: a retain when the
    /// count leaves zero, released when it returns there), so a block can leave a group its submitter dropped.
    @inline(__always)
    private func begin() {
        if outstanding.word.pointee.add(1, ordering: .relaxed).oldValue == 0 {
            rounds.add(1, ordering: .sequentiallyConsistent)  // after the count, for `settleLater`
            _ = Unmanaged.passRetained(self)
        }
    }

    public func leave() {
        if entered.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'")
        }
        finishOne()
    }

    /// One piece of work finished (a leave, or a block submitted in the group ran).
    func finishOne() {
        // The round this piece belongs to: it cannot end (and no later one begin) before this piece is counted out.
        let round = rounds.load(ordering: .relaxed)
        guard outstanding.word.pointee.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        // Take this round's notifications before waking the waiters, as libdispatch does: a woken waiter may start the
        // next round at once, and a notify it registers belongs to that round, not to this one. Taken by round: this
        // thread may be preempted here while the group drains its notify's block, is entered again and gets a notify
        // of the next round (a 1-in-15,000 failure of group.reuse under --stress before the rounds).
        // Most rounds end with no notification: one load (after the fence, so a racing `notify` sees the zero count
        // or this sees its node) spares the exchange and the arrays.
        let due = notifications.isEmpty ? [] : notifications.take(through: round) + settleLater()
        if waiters.atomic.pointee.load(ordering: .relaxed) > 0 { outstanding.wakeAll() }
        for submit in due { submit() }
        Unmanaged.passUnretained(self).release()  // the keep-alive of `begin`: last, the group may go here
    }

    public func notify(queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        notifications.push(queue, block, round: rounds.load(ordering: .relaxed))
        submitIfEmpty()
    }

    public func notify(queue: LockFreeQueue, item: LockFreeWorkItem) {
        notifications.push(queue, item, round: rounds.load(ordering: .relaxed))
        submitIfEmpty()
    }

    /// After a push: the group may be empty already, and then nobody else will submit it.
    private func submitIfEmpty() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        for submit in settleLater() { submit() }
    }

    /// The notifications of rounds that have ended, when no round is running now: after a push, or after a party
    /// that ended an earlier round put back a later round's, which that round's own end may have missed.
    ///
    /// Again while a take put notifications back: while this party held them the stack looked empty, and the one
    /// that should have taken them (a `notify`'s `submitIfEmpty`, a round's end) may have passed. Taking once stranded
    /// a notify: one party read round 2 and a zero count, round 3 began and ended, the test registered a round-3
    /// notify, this party exchanged the stack while that notify's `submitIfEmpty` found it empty, then put the
    /// notify back (3 is later than 2) and returned (models/group-rounds.pml, variant SETTLE_ONCE). Reading the round
    /// and the count again after the put-back (`take` fences) either sees the round ended, and takes it, or a round
    /// running, whose end is ordered after the put-back and sees the notification.
    private func settleLater() -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while !notifications.isEmpty {
            // The round first, then the count: a round that began after this load counts itself in before it is
            // numbered, so a count of zero read next means `current` and every earlier round have ended.
            let current = rounds.load(ordering: .sequentiallyConsistent)
            guard outstanding.word.pointee.load(ordering: .sequentiallyConsistent) == 0 else { break }
            var putBack = false
            due += notifications.take(through: current, putBack: &putBack)
            if !putBack { break }
        }
        return due
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
