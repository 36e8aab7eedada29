import ArenaContract
import CLinux
import Glibc

/// Something an `EpollReactor` reports readiness to.
protocol ReadinessListener: AnyObject, Sendable {
    /// Called on the reactor thread, once per arming, when registration `id` is ready. The id comes with the
    /// report, so a report arriving before `register` returned is never lost.
    func descriptorReady(_ id: UInt64)
}

/// One thread in `epoll_wait` watching descriptors for an engine's read and write sources (neutral plumbing: the
/// engines differ in how a report becomes a handler call, not in how the kernel is asked).
///
/// Each registration watches a duplicate of the caller's descriptor (so an engine never depends on the caller's
/// descriptor, and a read and a write source may watch the same one) with `EPOLLONESHOT`: one report per arming; the
/// source arms it once it has recorded the registration, and re-arms after its handler ran. `unregister` removes the
/// watch and closes the duplicate, after which no report for it arrives, so a caller may close the original in a
/// cancel handler and a reused number reaches nobody.
///
/// Locks: the registration table is under a pthread mutex, taken once per registration, re-arm and report. Every
/// report already costs an `epoll_wait` and an `ioctl`; the lock is not on any queue's path.
final class EpollReactor: @unchecked Sendable {
    private let epoll: Int32
    /// An eventfd that wakes the loop for shutdown.
    private let wakeup: Int32
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    private var registrations: [UInt64: Registration] = [:]
    private var nextID: UInt64 = 1
    private var stopping = false
    private var thread: pthread_t?

    private struct Registration {
        weak var listener: (any ReadinessListener)?
        let descriptor: Int32
        let events: UInt32
        /// Whether `report` gave this registration's end of file already (it gives it once).
        var endReported = false
    }

    /// What a report on a read or write registration means for its source.
    enum Report {
        /// Deliver `data`: the bytes available (read), the room (write), or `endOfFile`.
        case ready(UInt)
        /// Nothing to report now (a reader took the bytes first): re-arm and wait.
        case askAgain
        /// Nothing more will come (end of file, already reported once, or the registration is gone): stay unarmed.
        case quiet
    }

    /// The pending data that stands for end of file: non-zero, so a source delivers it; `handlerData` reads it back as
    /// 0, as libdispatch's read source fires once with data 0 when the writers are gone (measured).
    static let endOfFile: UInt = .max

    /// What a descriptor source's handler sees for the data it was given: end of file reads as 0.
    static func handlerData(_ data: UInt) -> UInt { data == endOfFile ? 0 : data }

    init(name: String) {
        epoll = clinux_epoll_create()
        wakeup = clinux_eventfd()
        precondition(epoll >= 0 && wakeup >= 0, "epoll_create1 or eventfd failed (errno \(errno))")
        clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), wakeup, UInt32(CLINUX_EPOLLIN), 0)
        thread = startEngineThread(name) { [self] in run() }
    }

    /// Runs once the thread has stopped (it holds the reactor until then) and every source has gone (each holds it):
    /// the descriptors are the reactor's own, and nothing else would ever close them.
    deinit {
        for registration in registrations.values { close(registration.descriptor) }
        close(wakeup)
        close(epoll)
    }

    /// Starts watching `descriptor` for `listener`, unarmed; returns the registration, which the caller records and
    /// then arms with `rearm`. Unarmed, because a descriptor that is ready already is reported at once: armed here,
    /// the report, the delivery and the handler could all run before the caller had recorded the id, and the re-arm
    /// after that handler would find none (a lost wake-up the stress mode found: `fd.read` on the mutex and lock-free
    /// engines, 6 to 11 failed runs in 20 under `arena conform --stress`). Only a hang-up or an error can be
    /// reported before arming, and at most once.
    func register(_ listener: any ReadinessListener, descriptor: Int32, writable: Bool) -> UInt64 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        let events = UInt32(writable ? CLINUX_EPOLLOUT : CLINUX_EPOLLIN) | UInt32(CLINUX_EPOLLONESHOT)
        return lock.withLock {
            let id = nextID
            nextID += 1
            registrations[id] = Registration(listener: listener, descriptor: copy, events: events)
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_ADD), copy, UInt32(CLINUX_EPOLLONESHOT), id)
            return id
        }
    }

    /// Asks for the next readiness report.
    func rearm(_ id: UInt64) {
        lock.withLock {
            guard let registration = registrations[id] else { return }
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_MOD), registration.descriptor, registration.events, id)
        }
    }

    /// Stops watching and closes the duplicate descriptor; no report for `id` arrives afterwards.
    func unregister(_ id: UInt64) {
        lock.withLock {
            guard let registration = registrations.removeValue(forKey: id) else { return }
            clinux_epoll_ctl(epoll, Int32(CLINUX_EPOLL_CTL_DEL), registration.descriptor, 0, 0)
            close(registration.descriptor)
        }
    }

    /// What a report means for registration `id` (see `Report`): for a read source the bytes available, for a write
    /// source an estimate of the room (a pipe's capacity minus what waits in it; 1 when the descriptor cannot say);
    /// end of file once, as `endOfFile`.
    ///
    /// Measured under the lock: `unregister` closes the duplicate under it, so the number asked about is never one
    /// the process reused meanwhile. (Each call is an `ioctl` and at most a zero-timeout `poll`: it never blocks.)
    func report(_ id: UInt64, writable: Bool) -> Report {
        lock.withLock {
            guard let registration = registrations[id] else { return .quiet }
            let (data, ended) = Self.measure(registration.descriptor, writable: writable)
            if data > 0 { return .ready(data) }
            if !ended { return .askAgain }
            if registration.endReported { return .quiet }
            registrations[id]!.endReported = true
            return .ready(Self.endOfFile)
        }
    }

    /// The bytes available or the room, and whether the descriptor reached end of file (readable, nothing to read).
    private static func measure(_ watched: Int32, writable: Bool) -> (data: UInt, ended: Bool) {
        var available: Int32 = 0
        let measured = ioctl(watched, UInt(FIONREAD), &available) == 0
        if writable {
            let capacity = clinux_pipe_capacity(watched)
            return (capacity > 0 && measured ? UInt(max(1, capacity - available)) : 1, false)
        }
        if measured && available > 0 { return (UInt(available), false) }
        if !measured { return (1, false) }
        // Readable with nothing to read is end of file: a pipe's writers are gone (POLLHUP), or a socket's peer shut
        // its side (POLLIN alone, which POLLHUP does not cover). Asked again after the poll, so bytes that arrived
        // meanwhile are reported as bytes.
        var probe = pollfd(fd: watched, events: Int16(POLLIN), revents: 0)
        let readable = poll(&probe, 1, 0) == 1 && probe.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        guard readable else { return (0, false) }
        if ioctl(watched, UInt(FIONREAD), &available) == 0 && available > 0 { return (UInt(available), false) }
        return (0, true)
    }

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
                let listener = lock.withLock { registrations[id]?.listener }
                listener?.descriptorReady(id)
            }
        }
    }
}
