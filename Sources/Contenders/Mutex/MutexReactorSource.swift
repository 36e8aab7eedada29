import ArenaContract

/// What the mutex engine's descriptor, process and file sources share: one registration with the engine's epoll
/// reactor, recorded under the source's lock once activation made it, and removed on cancel (before the cancel
/// handler, which may close the caller's descriptor) or when the source is released.
public class MutexReactorSource: MutexSource, @unchecked Sendable {
    let reactor: EpollReactor
    /// Guarded by `lock`; 0 before activation and after cancel.
    private(set) var registration: UInt64 = 0

    init(label: String, queue: MutexQueue, reactor: EpollReactor) {
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        // Released without cancel: stop watching (no handler can run any more).
        if registration != 0 { reactor.unregister(registration) }
    }

    /// Records `id`, a registration activation just made (unarmed); a source cancelled meanwhile unregisters it
    /// instead. Returns whether it was recorded, so the caller may arm it. Recorded before it is armed: a report
    /// can come at once, and the re-arm after its handler needs the id.
    func record(_ id: UInt64) -> Bool {
        guard id != 0 else { return false }
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            reactor.unregister(id)
            return false
        }
        registration = id
        lock.unlock()
        return true
    }

    override func willCancel() {
        let id = lock.withLock {
            defer { registration = 0 }
            return registration
        }
        if id != 0 { reactor.unregister(id) }
        stopWatching()
    }

    /// Called at cancel, once the registration is gone: closes what the source itself opened (a pidfd, an inotify
    /// instance). Nothing by default.
    func stopWatching() {}
}
