import ArenaContract
import Synchronization

/// What the lock-free engine's descriptor, process and file sources share: the pending data their reports merge into,
/// and one registration with the shared epoll reactor, recorded once activation made it and removed on cancel
/// (before the cancel handler, which may close the caller's descriptor) or when the source is released.
public class LockFreeReactorSource: LockFreeSource, @unchecked Sendable {
    let reactor: EpollReactor
    /// What reports merged since the last delivery (replaced or ORed, as the source says).
    let pending = Atomic<UInt>(0)
    /// 0 before activation and after cancel.
    let registration = Atomic<UInt64>(0)

    init(label: String, queue: LockFreeQueue, reactor: EpollReactor) {
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        // Released without cancel: stop watching.
        let id = registration.load(ordering: .relaxed)
        if id != 0 { reactor.unregister(id) }
    }

    override var hasPending: Bool { pending.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.exchange(0, ordering: .acquiringAndReleasing) }

    /// Records `id`, a registration activation just made (unarmed); a source cancelled meanwhile unregisters it
    /// instead. Returns whether it was recorded, so the caller may arm it. Recorded before it is armed: a report
    /// can come at once, and the re-arm after its handler needs the id.
    func record(_ id: UInt64) -> Bool {
        guard id != 0 else { return false }
        registration.store(id, ordering: .sequentiallyConsistent)
        // Against `cancel`, which sets its bit and then takes the registration: one of the two sees the other.
        guard flags.load(ordering: .sequentiallyConsistent) & Self.cancelled != 0 else { return true }
        let taken = registration.exchange(0, ordering: .sequentiallyConsistent)
        if taken != 0 { reactor.unregister(taken) }
        return false
    }

    override func willCancel() {
        let id = registration.exchange(0, ordering: .sequentiallyConsistent)
        if id != 0 { reactor.unregister(id) }
        stopWatching()
    }

    /// Called at cancel, once the registration is gone: closes what the source itself opened (a pidfd, an inotify
    /// instance). Nothing by default.
    func stopWatching() {}
}
