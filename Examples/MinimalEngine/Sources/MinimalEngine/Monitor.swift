import ArenaContract
import Glibc
import Synchronization

/// The engine's one pthread mutex and one condition variable. Every object of an engine keeps its state under this
/// lock and every wait sleeps on this condition, so each invariant is a plain `if`, and no wake-up is lost as long as
/// every change broadcasts. The price: all threads contend for one lock, and every change wakes every sleeper.
final class Monitor: @unchecked Sendable {
    // Allocated rather than stored inline, because pthread objects must never move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The thread holding the lock (0: none). Only the holder writes its own id here, so a relaxed read answers
    /// "do I hold it?" exactly; nothing else is read from it.
    private let owner = Atomic<UInt>(0)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)  // the clock `Deadline` counts on
        pthread_cond_init(condition, &attributes)
    }

    func lock() {
        pthread_mutex_lock(mutex)
        owner.store(UInt(pthread_self()), ordering: .relaxed)
    }

    func unlock() {
        owner.store(0, ordering: .relaxed)
        pthread_mutex_unlock(mutex)
    }

    func broadcast() { pthread_cond_broadcast(condition) }

    /// Whether the calling thread holds the lock: for code that runs both inside and outside it (a queue's deinit).
    var isHeldHere: Bool { owner.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// With the lock held: sleeps until a broadcast (or a spurious wake-up); false once `deadline` has passed.
    func wait(until deadline: Deadline) -> Bool {
        defer { owner.store(UInt(pthread_self()), ordering: .relaxed) }  // others held the lock while this slept
        if deadline.isDistantFuture { return pthread_cond_wait(condition, mutex) == 0 }
        let (seconds, nanoseconds) = deadline.nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }
}
