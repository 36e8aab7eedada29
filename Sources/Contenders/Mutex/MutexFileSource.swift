import ArenaContract

/// A file source: an inotify watch (`FileWatch`) registered with the engine's epoll reactor; each report reads every
/// pending notification, merges what they mean into the pending data (bitwise OR) and re-arms at once, so changes
/// keep coalescing while a handler runs or the source is suspended.
public final class MutexFileSource: MutexReactorSource, ReadinessListener, @unchecked Sendable {
    private let watch: FileWatch

    init(label: String, fileDescriptor: Int32, events: FileEvents, queue: MutexQueue, reactor: EpollReactor) {
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
        if !seen.isEmpty { merge { $0 |= seen.rawValue } }
        reactor.rearm(id)  // a no-op once unregistered
    }

    override func stopWatching() { watch.close() }
}
