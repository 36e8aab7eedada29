import ArenaContract
import CLinux
import Glibc

/// A pidfd on one process, for the engines' process sources (neutral plumbing: the engines differ in how the report
/// becomes a handler call, not in how the kernel is asked).
///
/// The pidfd is opened when the source is made, so the source follows that process even if its identifier is reused
/// later. It becomes readable once the process exited, reaped or not, and stays readable: registered with an
/// `EpollReactor` and armed once, it reports exactly one exit. A process already gone (reaped, or never there) cannot
/// be opened; libdispatch reports an exit at once in that case ("we simulate an exit event for any EVFILT_PROC with
/// an invalid pid", event_kevent.c), and so does `wasGone`. Costs one descriptor per source until `close`.
final class ExitWatch: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var pidfd: Int32  // guarded by `lock`; -1 when gone or closed
    /// The process did not exist when the watch was made: report its exit at once.
    let wasGone: Bool

    init(processID: Int32) {
        // pidfd_open(0) would not fail, but 0 and negative identifiers name no single process.
        let descriptor = processID > 0 ? clinux_pidfd_open(processID) : -1
        wasGone = descriptor < 0 && (processID <= 0 || errno == ESRCH)
        pidfd = descriptor
    }

    deinit { if pidfd >= 0 { Glibc.close(pidfd) } }

    /// Registers the pidfd with `reactor`, unarmed (the reactor watches a duplicate); 0 once closed or when there is
    /// nothing to watch. Under the watch's lock, so a `close` meanwhile cannot hand the reactor a reused number.
    func register(_ listener: any ReadinessListener, with reactor: EpollReactor) -> UInt64 {
        lock.withLock { pidfd < 0 ? 0 : reactor.register(listener, descriptor: pidfd, writable: false) }
    }

    /// Closes the pidfd; later `register` calls return 0.
    func close() {
        lock.withLock {
            if pidfd >= 0 { Glibc.close(pidfd) }
            pidfd = -1
        }
    }
}
