import Synchronization

/// A file source: an inotify watch (`FileWatch`) registered with the shared epoll reactor; each report reads every
/// pending notification, ORs what they mean into the pending data atomically and re-arms at once, so changes keep
/// coalescing while a handler runs or the source is suspended.
public final class LockFreeFileSource: LockFreeSource, ReadinessListener, @unchecked Sendable {
    private let watch: FileWatch
    private let reactor: EpollReactor
    private let pending = Atomic<UInt>(0)
    /// 0 before activation and after cancel.
    private let registration = Atomic<UInt64>(0)

    init(label: String, fileDescriptor: Int32, events: FileEvents, queue: LockFreeQueue, reactor: EpollReactor) {
        watch = FileWatch(fileDescriptor: fileDescriptor, events: events)
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        let id = registration.load(ordering: .relaxed)
        if id != 0 { reactor.unregister(id) }
    }

    override var hasPending: Bool { pending.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.exchange(0, ordering: .acquiringAndReleasing) }

    override func didActivate() {
        let id = watch.register(self, with: reactor)
        guard id != 0 else { return }
        registration.store(id, ordering: .sequentiallyConsistent)
        // Against `cancel`, which sets its bit and then takes the registration: one of the two sees the other.
        if flags.load(ordering: .sequentiallyConsistent) & Self.cancelled != 0 {
            let taken = registration.exchange(0, ordering: .sequentiallyConsistent)
            if taken != 0 { reactor.unregister(taken) }
            return
        }
        reactor.rearm(id)
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        let seen = watch.collect()
        if !seen.isEmpty {
            pending.bitwiseOr(seen.rawValue, ordering: .acquiringAndReleasing)
            merged()
        }
        reactor.rearm(id)  // a no-op once unregistered
    }

    override func willCancel() {
        let id = registration.exchange(0, ordering: .sequentiallyConsistent)
        if id != 0 { reactor.unregister(id) }
        watch.close()
    }
}
