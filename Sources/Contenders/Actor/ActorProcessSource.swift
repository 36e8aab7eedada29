import ArenaContract

/// A process source: a pidfd (`ExitWatch`) registered with the shared epoll reactor and armed once; its report
/// becomes a merge event (bitwise OR) of `.exit` for the source's actor. A pidfd stays readable, so it is never
/// re-armed: one exit, once. A process already gone when the source was made is reported exited at activation.
public final class ActorProcessSource: ActorSource, ReadinessListener, @unchecked Sendable {
    struct Kind: ActorSourceKind {
        let watch: ExitWatch
        let events: ProcessEvents
        let reactor: EpollReactor
        /// The source the reactor reports to, filled in when `init` finishes (before any event can arrive).
        let listener: WeakBox<ActorProcessSource>

        func combine(_ pending: UInt, _ value: UInt) -> UInt { pending | value }

        func activated(_ source: isolated ActorSourceState) {
            guard events.contains(.exit), let listener = listener.value else { return }
            if watch.wasGone { return source.shared.post(.merge(ProcessEvents.exit.rawValue)) }
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

    init(label: String, processID: Int32, events: ProcessEvents, queue: ActorQueue, reactor: EpollReactor) {
        let listener = WeakBox<ActorProcessSource>()
        let kind = Kind(watch: ExitWatch(processID: processID), events: events, reactor: reactor, listener: listener)
        super.init(label: label, queue: queue, kind: kind)
        listener.value = self
    }

    /// Called by the reactor thread, once.
    func descriptorReady(_ id: UInt64) { shared.post(.merge(ProcessEvents.exit.rawValue)) }
}
