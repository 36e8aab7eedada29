import ArenaContract
import Synchronization

/// A file source: an inotify watch (`FileWatch`) registered with the shared epoll reactor; each report reads every
/// pending notification, ORs what they mean into the pending data atomically and re-arms at once, so changes keep
/// coalescing while a handler runs or the source is suspended.
public final class LockFreeFileSource: LockFreeReactorSource, ReadinessListener, @unchecked Sendable {
    private let watch: FileWatch

    init(label: String, fileDescriptor: Int32, events: FileEvents, queue: LockFreeQueue, reactor: EpollReactor) {
        watch = FileWatch(fileDescriptor: fileDescriptor, events: events)
        super.init(label: label, queue: queue, reactor: reactor)
    }

    override func didActivate() {
        let id = watch.register(self, with: reactor)
        if record(id) { reactor.rearm(id) }
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

    override func stopWatching() { watch.close() }
}
