/// A file source: an inotify watch (`FileWatch`) registered with the engine's epoll reactor; each report reads every
/// pending notification, merges what they mean into the pending data (bitwise OR) and re-arms at once, so changes
/// keep coalescing while a handler runs or the source is suspended.
public final class MutexFileSource: MutexSource, ReadinessListener, @unchecked Sendable {
    private let watch: FileWatch
    private let reactor: EpollReactor
    private var registration: UInt64 = 0  // guarded by `lock`; 0 before activation and after cancel

    init(label: String, fileDescriptor: Int32, events: FileEvents, queue: MutexQueue, reactor: EpollReactor) {
        watch = FileWatch(fileDescriptor: fileDescriptor, events: events)
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        if registration != 0 { reactor.unregister(registration) }
    }

    override func didActivate() {
        let id = watch.register(self, with: reactor)
        guard id != 0 else { return }
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            return reactor.unregister(id)
        }
        registration = id
        lock.unlock()
        reactor.rearm(id)
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        let seen = watch.collect()
        if !seen.isEmpty { merge { $0 |= seen.rawValue } }
        reactor.rearm(id)  // a no-op once unregistered
    }

    override func willCancel() {
        let id = lock.withLock {
            defer { registration = 0 }
            return registration
        }
        if id != 0 { reactor.unregister(id) }
        watch.close()
    }
}
