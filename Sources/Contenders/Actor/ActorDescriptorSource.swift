import ArenaContract

/// A read or write source: the shared epoll reactor's reports become `.readiness` events (the bytes available, or
/// the room); the source's actor re-arms the registration after each delivery and on resume, and removes it on
/// cancel (before the cancel handler, which may close the descriptor) or when the source is released.
public final class ActorDescriptorSource: ActorSource, ReadinessListener, @unchecked Sendable {
    struct Kind: ActorSourceKind {
        let descriptor: Int32
        let writable: Bool
        let reactor: EpollReactor
        /// The source the reactor reports to, filled in when `init` finishes (before any event can arrive).
        let listener: WeakBox<ActorDescriptorSource>

        func combine(_ pending: UInt, _ value: UInt) -> UInt { value }

        func activated(_ source: isolated ActorSourceState) {
            guard let listener = listener.value else { return }
            source.setRegistration(reactor.register(listener, descriptor: descriptor, writable: writable))
            rearm(source)  // the reactor registers unarmed
        }

        func delivered(_ source: isolated ActorSourceState) { rearm(source) }
        func resumed(_ source: isolated ActorSourceState) { rearm(source) }

        private func rearm(_ source: isolated ActorSourceState) {
            if source.registration != 0 && !source.isSuspended && !source.isCancelled { reactor.rearm(source.registration) }
        }

        func cancelled(_ source: isolated ActorSourceState) { source.dropRegistration(from: reactor) }
        func ended(_ source: isolated ActorSourceState) { source.dropRegistration(from: reactor) }
    }

    private let reactor: EpollReactor
    private let writable: Bool

    init(label: String, descriptor: Int32, writable: Bool, queue: ActorQueue, reactor: EpollReactor) {
        self.reactor = reactor
        self.writable = writable
        let listener = WeakBox<ActorDescriptorSource>()
        super.init(label: label, queue: queue, kind: Kind(descriptor: descriptor, writable: writable, reactor: reactor, listener: listener))
        listener.value = self
    }

    /// Called by the reactor thread.
    func descriptorReady(_ id: UInt64) {
        switch reactor.report(id, writable: writable) {
        case .ready(let data): shared.post(.readiness(data))
        case .askAgain: reactor.rearm(id)
        case .quiet: break
        }
    }

    /// The bytes available or the room; 0 at end of file.
    public override var data: UInt { EpollReactor.handlerData(super.data) }
}
