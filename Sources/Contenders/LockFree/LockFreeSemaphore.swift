import ArenaContract
import Synchronization

/// A counting semaphore counted as libdispatch's: `value` may go negative, each negative unit a waiter. The fast
/// paths are one atomic add; a waiter sleeps on the `wakeups` futex, and `signal` hands it a wakeup when `value` was
/// negative. A waiter that times out gives its unit back if no signal counted it yet (value still negative);
/// otherwise a wakeup is already on its way and it takes that, so timed-out waits never disturb the count.
/// `value` and `wakeups` sit on separate lines.
public final class LockFreeSemaphore: EngineSemaphore, @unchecked Sendable {
    private let value: PaddedAtomic<Int>
    private let wakeups = FutexWord(0)

    init(value: Int) { self.value = PaddedAtomic(value) }

    public func wait(until deadline: Deadline) -> WaitResult {
        if value.atomic.pointee.subtract(1, ordering: .acquiringAndReleasing).oldValue > 0 { return .success }
        return LockFreeThreadContext.blocking {
            if takeWakeup(until: deadline) { return .success }
            // Timed out: give the unit back unless a signal already counted this waiter.
            var current = value.atomic.pointee.load(ordering: .relaxed)
            while current < 0 {
                let (won, seen) = value.atomic.pointee.compareExchange(
                    expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
                if won { return .timedOut }
                current = seen
            }
            _ = takeWakeup(until: .distantFuture)  // signalled meanwhile: its wakeup is coming
            return .success
        }
    }

    /// Takes one wakeup, sleeping until one is handed out or `deadline` passed.
    private func takeWakeup(until deadline: Deadline) -> Bool {
        while true {
            let available = wakeups.word.pointee.load(ordering: .acquiring)
            if available > 0 {
                if wakeups.word.pointee.compareExchange(expected: available, desired: available - 1, ordering: .acquiringAndReleasing)
                    .exchanged
                {
                    return true
                }
                continue
            }
            if !wakeups.wait(whileEqualTo: 0, until: deadline) { return false }
        }
    }

    @discardableResult
    public func signal() -> Bool {
        guard value.atomic.pointee.add(1, ordering: .acquiringAndReleasing).oldValue < 0 else { return false }
        wakeups.word.pointee.add(1, ordering: .releasing)
        wakeups.wake()
        return true
    }
}
