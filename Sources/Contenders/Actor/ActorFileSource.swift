import ArenaContract

/// A file source: an inotify watch (`FileWatch`) registered with the shared epoll reactor; each report reads every
/// pending notification and posts what they mean as a merge event (bitwise OR) for the source's actor, then re-arms
/// at once, so changes keep coalescing while a handler runs or the source is suspended.
public final class ActorFileSource: ActorSource, ReadinessListener, @unchecked Sendable {
    struct Kind: ActorSourceKind {
        let watch: FileWatch
        let reactor: EpollReactor
        /// The source the reactor reports to, filled in when `init` finishes (before any event can arrive).
        let listener: WeakBox<ActorFileSource>

        func combine(_ pending: UInt, _ value: UInt) -> UInt { pending | value }

        func activated(_ source: isolated ActorSourceState) {
            guard let listener = listener.value else { return }
            // The actor orders this against `cancelled`: a source cancelled first never registers (closed watch).
            let id = watch.register(listener, with: reactor)
            source.setRegistration(id)
            if id != 0 { reactor.rearm(id) }
        }

        func delivered(_ source: isolated ActorSourceState) {}
        func resumed(_ source: isolated ActorSourceState) {}
        func cancelled(_ source: isolated ActorSourceState) { stop(source) }
        func ended(_ source: isolated ActorSourceState) { stop(source) }

        private func stop(_ source: isolated ActorSourceState) {
            source.dropRegistration(from: reactor)
            watch.close()
        }
    }

    private let watch: FileWatch
    private let reactor: EpollReactor

    init(label: String, fileDescriptor: Int32, events: FileEvents, queue: ActorQueue, reactor: EpollReactor) {
        let listener = WeakBox<ActorFileSource>()
        let watch = FileWatch(fileDescriptor: fileDescriptor, events: events)
        self.watch = watch
        self.reactor = reactor
        super.init(label: label, queue: queue, kind: Kind(watch: watch, reactor: reactor, listener: listener))
        listener.value = self
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        let seen = watch.collect()
        if !seen.isEmpty { shared.post(.merge(seen.rawValue)) }
        reactor.rearm(id)  // a no-op once unregistered
    }
}
