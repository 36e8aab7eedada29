import ArenaContract
import Synchronization

/// A timer source. The shared timer thread fires; fires go into a pending word that also carries the schedule's
/// generation, so a fire of an earlier schedule (a CAS that finds another generation) adds nothing, and a new
/// schedule clears what was pending in the same store. Each schedule's fire count lives in its own timer closure, so
/// nothing else is shared: no lock.
public final class LockFreeTimerSource: LockFreeSource, EngineTimerSource, @unchecked Sendable {
    private let timers: TimerThread
    /// Bits 40-63: generation; bits 0-39: fires pending.
    private let pending = PaddedAtomic<UInt64>(0)
    private static let countMask: UInt64 = (1 << 40) - 1

    init(label: String, queue: LockFreeQueue, timers: TimerThread) {
        self.timers = timers
        super.init(label: label, queue: queue)
    }

    override var hasPending: Bool { pending.atomic.pointee.load(ordering: .acquiring) & Self.countMask != 0 }

    override func takePending() -> UInt {
        var current = pending.atomic.pointee.load(ordering: .acquiring)
        while true {
            let (won, seen) = pending.atomic.pointee.compareExchange(
                expected: current, desired: current & ~Self.countMask, ordering: .acquiringAndReleasing)
            if won { return UInt(current & Self.countMask) }
            current = seen
        }
    }

    public func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        let generation = ((pending.atomic.pointee.load(ordering: .relaxed) >> 40) &+ 1) & 0xFF_FFFF
        pending.atomic.pointee.store(generation << 40, ordering: .releasing)
        let interval = repeating.flatMap { $0 > .zero ? $0 : nil }
        var fired: Int64 = 0
        timers.scheduleRepeating(deadline: deadline, leeway: leeway) { [weak self] in
            guard let self, !self.isCancelled else { return nil }
            guard let interval else {
                return self.addFires(1, generation: generation) ? nil : nil
            }
            let due = Int64((Deadline.now() - deadline) / interval) + 1
            let new = max(0, due - fired)
            fired = max(fired, due)
            guard self.addFires(UInt64(new), generation: generation) else { return nil }
            return (deadline + interval * fired, leeway)
        }
    }

    /// Adds fires to the pending count if `generation` is still current; false when the timer was rescheduled.
    private func addFires(_ count: UInt64, generation: UInt64) -> Bool {
        var current = pending.atomic.pointee.load(ordering: .relaxed)
        while current >> 40 == generation {
            let (won, seen) = pending.atomic.pointee.compareExchange(
                expected: current, desired: current &+ count, ordering: .acquiringAndReleasing)
            if won {
                if count > 0 { merged() }
                return true
            }
            current = seen
        }
        return false
    }
}
