import CLinux
import Glibc

/// Neutral plumbing shared by the engines: pthread primitives for their cold paths (and for the mutex engine, whose
/// design they are).

/// A pthread mutex with a stable address (it must not move once initialised, so it lives on the heap).
/// Uncontended lock and unlock cost about 20 ns; contended, the waiter parks in the kernel (futex).
package final class PthreadMutex: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) package func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A condition variable on the monotonic clock, used with one `PthreadMutex`.
package final class PthreadCondition: @unchecked Sendable {
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
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

    /// Waits with `mutex` held until signalled or `deadline` passed (spurious wake-ups possible: callers loop).
    /// Returns false when the deadline passed.
    @discardableResult
    package func wait(_ mutex: PthreadMutex, until deadline: Deadline = .distantFuture) -> Bool {
        if deadline.isDistantFuture {
            pthread_cond_wait(condition, mutex.mutex)
            return true
        }
        var time = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex.mutex, &time) != ETIMEDOUT
    }

    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }
}

/// Starts a joinable, named thread running `body` (engines own their threads: workers, timers, reactors).
package func startEngineThread(_ name: String, _ body: @escaping () -> Void) -> pthread_t {
    final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) { self.name = name; self.body = body }
    }
    var thread = pthread_t()
    let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
    let result = pthread_create(
        &thread, nil,
        { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            clinux_set_thread_name(start.name)
            start.body()
            return nil
        }, start)
    precondition(result == 0, "engine thread: pthread_create failed (\(result))")
    return thread
}
