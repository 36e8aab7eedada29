import CLinux
import Glibc

/// Neutral plumbing shared by the engines: pthread primitives for their cold paths (and for the mutex engine, whose
/// design they are). The mutex and the condition are public, for an author's own part of a default layer (a ready
/// list, a pool executor) guarded as the layer's own state is; starting engine threads stays within the package.

/// A pthread mutex with a stable address (it must not move once initialised, so it lives on the heap): what the
/// default operation layer guards its operations and queues with. Uncontended lock and unlock cost about 20 ns;
/// contended, the waiter parks in the kernel (futex). Not recursive: locking it twice on one thread deadlocks.
public final class PthreadMutex: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked mutex: one allocation and `pthread_mutex_init`.
    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the mutex, waiting while another thread holds it.
    @inline(__always) public func lock() { pthread_mutex_lock(mutex) }
    /// Gives the mutex back; only the thread that took it may.
    @inline(__always) public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the mutex: a lock round trip around it.
    @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A condition variable on the monotonic clock, used with one `PthreadMutex`: a signal costs a system call only when a
/// thread waits.
public final class PthreadCondition: @unchecked Sendable {
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A new condition on CLOCK_MONOTONIC (the clock of `Deadline`).
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

    /// Waits with `mutex` held until signalled or `deadline` passed (spurious wake-ups possible: callers loop).
    /// Returns false when the deadline passed.
    @discardableResult
    public func wait(_ mutex: PthreadMutex, until deadline: Deadline = .distantFuture) -> Bool {
        if deadline.isDistantFuture {
            pthread_cond_wait(condition, mutex.mutex)
            return true
        }
        var time = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex.mutex, &time) != ETIMEDOUT
    }

    /// Wakes one waiting thread, if any.
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Starts a joinable, named thread running `body` (engines own their threads: workers, timers, reactors).
package func startEngineThread(_ name: String, _ body: @escaping () -> Void) -> pthread_t {
    startNamedThread(name, detached: false, body)
}

/// Starts a named thread running `body` that nobody joins: created detached, because `pthread_detach` on a thread
/// that may already be ending races its exit in glibc 2.36 (the detach marks it, the exiting thread frees its stack,
/// the detach then reads the freed descriptor: a SIGSEGV, caught in a core of `group.enter-leave` under stress).
package func startDetachedEngineThread(_ name: String, _ body: @escaping () -> Void) {
    _ = startNamedThread(name, detached: true, body)
}

/// Starts a thread named `name` running `body`, joinable or created detached: the one place the package's own
/// threads (the engines' and the harness's) are made.
package func startNamedThread(_ name: String, detached: Bool, _ body: @escaping () -> Void) -> pthread_t {
    final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) { self.name = name; self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, detached ? Int32(PTHREAD_CREATE_DETACHED) : Int32(PTHREAD_CREATE_JOINABLE))
    var thread = pthread_t()
    let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
    let result = pthread_create(
        &thread, &attributes,
        { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            clinux_set_thread_name(start.name)
            start.body()
            return nil
        }, start)
    precondition(result == 0, "thread '\(name)': pthread_create failed (\(result))")
    return thread
}
