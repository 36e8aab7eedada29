import CLinux
import Glibc

/// One thread in `epoll_wait` for every descriptor source of an engine.
///
/// Each source registers a duplicate of its descriptor (so the engine never depends on the caller's descriptor,
/// and a read and a write source may watch the same one) with `EPOLLONESHOT`: one readiness report per handler call.
/// The source re-arms it after its handler ran. Cancel unregisters and closes the duplicate before the cancel
/// handler is submitted, so the caller may close the original there and a reused number never reaches the source.
final class MutexReactor: @unchecked Sendable {
    private let epoll: Int32
    /// An eventfd that wakes the loop for shutdown.
    private let wakeup: Int32
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    private var sources: [UInt64: Registration] = [:]
    private var nextID: UInt64 = 1
    private var stopping = false
    private var thread: pthread_t?

    private struct Registration {
        weak var source: MutexDescriptorSource?
        let descriptor: Int32
        let events: UInt32
    }

    init() {
        epoll = clinux_epoll_create()
        wakeup = clinux_eventfd()
        precondition(epoll >= 0 && wakeup >= 0, "mutex engine: epoll_create1 or eventfd failed (errno \(errno))")
        clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), wakeup, UInt32(CLINUX_EPOLLIN), 0)
        thread = startMutexEngineThread("mutex.reactor") { [self] in run() }
    }

    /// Starts watching `descriptor` for `source`; returns the registration to re-arm or remove.
    func register(_ source: MutexDescriptorSource, descriptor: Int32, writable: Bool) -> UInt64 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        let events = UInt32(writable ? CLINUX_EPOLLOUT : CLINUX_EPOLLIN) | UInt32(CLINUX_EPOLLONESHOT)
        return lock.withLock {
            let id = nextID
            nextID += 1
            sources[id] = Registration(source: source, descriptor: copy, events: events)
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), copy, events, id)
            return id
        }
    }

    /// Asks for the next readiness report.
    func rearm(_ id: UInt64) {
        lock.withLock {
            guard let registration = sources[id] else { return }
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_MOD), registration.descriptor, registration.events, id)
        }
    }

    /// Stops watching and closes the duplicate descriptor; no report for `id` arrives afterwards.
    func unregister(_ id: UInt64) {
        lock.withLock {
            guard let registration = sources.removeValue(forKey: id) else { return }
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_DEL), registration.descriptor, 0, 0)
            close(registration.descriptor)
        }
    }

    /// The duplicate descriptor behind `id` (for measuring readiness), or -1.
    func descriptor(_ id: UInt64) -> Int32 { lock.withLock { sources[id]?.descriptor ?? -1 } }

    func shutdown() {
        let thread = lock.withLock {
            stopping = true
            return self.thread
        }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
        if let thread { pthread_join(thread, nil) }
    }

    private func run() {
        var ready = [UInt64](repeating: 0, count: 64)
        while true {
            let count = clinux_epoll_wait(epoll, &ready, Int32(ready.count), -1)
            if count < 0 { continue }  // EINTR
            if lock.withLock({ stopping }) { return }
            for id in ready.prefix(Int(count)) where id != 0 {
                let source = lock.withLock { sources[id]?.source }
                source?.descriptorReady()
            }
        }
    }
}
