import ArenaContract

/// A source fed by `merge`: add, or, or replace into the pending data.
public final class MutexUserDataSource: MutexSource, EngineUserDataSource, @unchecked Sendable {
    private let kind: DataMerge

    init(label: String, merge: DataMerge, queue: MutexQueue) {
        kind = merge
        super.init(label: label, queue: queue)
    }

    public func merge(_ value: UInt) {
        switch kind {
        case .add: merge { $0 &+= value }
        case .or: merge { $0 |= value }
        case .replace: merge { $0 = value }
        }
    }
}
