import ArenaContract
import Glibc

/// A pthread mutex. The bookkeeping of checks and workloads uses it rather than `Synchronization.Mutex`, whose Linux
/// implementation (priority-inheritance futexes) collapses with more threads than cores and confuses
/// ThreadSanitizer. It is independent of every engine, so a wedged engine cannot wedge the bookkeeping.
/// An uncontended lock and unlock costs about 20 ns.
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// The underlying mutex, for `Condition`, which waits on it.
    public var pointer: UnsafeMutablePointer<pthread_mutex_t> { mutex }
}

/// A value behind a pthread mutex: a lock that is neither one engine's nor `Synchronization.Mutex`. Each access costs
/// an uncontended lock and unlock (~20 ns).
public final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }

    /// A copy of the current value.
    public var snapshot: Value { lock.withLock { value } }
}

/// A condition variable on the monotonic clock, so timed waits agree with `Deadline`.
public final class Condition: @unchecked Sendable {
    public let lock = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Waits, with the lock held, until `done()` is true or `deadline` passed; returns `done()`.
    public func wait(until deadline: Deadline, _ done: () -> Bool) -> Bool {
        pthread_mutex_lock(lock.pointer)
        defer { pthread_mutex_unlock(lock.pointer) }
        while !done() {
            if deadline.isDistantFuture {
                pthread_cond_wait(condition, lock.pointer)
            } else {
                if Deadline.now() >= deadline { return done() }
                var time = timespec(
                    tv_sec: Int(deadline.nanoseconds / 1_000_000_000),
                    tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
                pthread_cond_timedwait(condition, lock.pointer, &time)
            }
        }
        return true
    }

    /// Changes state under the lock and wakes every waiter.
    public func update(_ change: () -> Void) {
        pthread_mutex_lock(lock.pointer)
        change()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(lock.pointer)
    }
}
