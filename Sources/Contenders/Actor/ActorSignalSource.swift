import ArenaContract

/// A signal source: the process-wide `SignalHub` counts deliveries; each count is a merge event (added).
public final class ActorSignalSource: ActorSource, SignalListener, @unchecked Sendable {
    struct Kind: ActorSourceKind {
        let listener: WeakBox<ActorSignalSource>
        func combine(_ pending: UInt, _ value: UInt) -> UInt { pending &+ value }
        func activated(_ source: isolated ActorSourceState) { if let listener = listener.value { SignalHub.shared.add(listener) } }
        func delivered(_ source: isolated ActorSourceState) {}
        func resumed(_ source: isolated ActorSourceState) {}
        func cancelled(_ source: isolated ActorSourceState) { if let listener = listener.value { SignalHub.shared.remove(listener) } }
        func ended(_ source: isolated ActorSourceState) {}
    }

    let signal: Int32

    init(label: String, signal: Int32, queue: ActorQueue) {
        self.signal = signal
        let listener = WeakBox<ActorSignalSource>()
        super.init(label: label, queue: queue, kind: Kind(listener: listener))
        listener.value = self
    }

    func signalsArrived(_ count: UInt) { shared.post(.merge(count)) }
}
