import ArenaContract

/// A source fed by `merge`: each merge is an event for the source's actor, which combines it into the pending data.
public final class ActorUserDataSource: ActorSource, EngineUserDataSource, @unchecked Sendable {
    init(label: String, merge: DataMerge, queue: ActorQueue) {
        super.init(label: label, queue: queue, kind: PlainSourceKind(merge: merge))
    }

    public func merge(_ value: UInt) {
        if shared.cancelled.load(ordering: .acquiring) { return }
        shared.post(.merge(value))
    }
}
