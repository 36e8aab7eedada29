import ArenaContract
import CLinux
import Glibc
import Synchronization

/// A one-shot "done" that one thread waits for and another gives: a parked sync caller's block, apply's last chunks.
///
/// The waiter looks at the word for a while (about 10 µs of pauses here; a sync caller also yields its core once
/// halfway, for a drainer that waits for one when there are more threads than cores) before it sleeps on it, and the finisher makes
/// the wake-up system call only for a waiter that sleeps. The waits this serves are short, and a futex sleep and
/// wake-up cost each side several microseconds and the woken thread a trip through the scheduler. The finisher's
/// exchange releases what it did before, the waiter's load acquires it.
final class LockFreeCompletion: @unchecked Sendable {
    private static let waiting: UInt32 = 0, done: UInt32 = 1, sleeping: UInt32 = 2
    /// How many times the waiter looks before it sleeps.
    static let spins = 400

    private let word = FutexWord(LockFreeCompletion.waiting)
    private let yieldsHalfway: Bool

    init(yieldsHalfway: Bool) { self.yieldsHalfway = yieldsHalfway }

    /// Gives the done: the waiter returns, woken if it sleeps. Once.
    func finish() {
        if word.word.pointee.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.sleeping { word.wake() }
    }

    /// Returns once `finish` was called: looks for a while, then sleeps (telling the pool, on a worker).
    func wait() {
        for spin in 0..<Self.spins {
            if word.word.pointee.load(ordering: .acquiring) == Self.done { return }
            if yieldsHalfway && spin == Self.spins / 2 { sched_yield() } else { clinux_cpu_relax() }
        }
        LockFreeThreadContext.blocking {
            guard
                word.word.pointee.compareExchange(
                    expected: Self.waiting, desired: Self.sleeping, ordering: .acquiringAndReleasing
                ).exchanged
            else { return }
            while word.word.pointee.load(ordering: .acquiring) != Self.done { word.wait(whileEqualTo: Self.sleeping) }
        }
    }
}
