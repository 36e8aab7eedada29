import ArenaContract
import Synchronization

/// A source fed by `merge`: an atomic add, or, or exchange into the pending data, then one arming CAS at most.
public final class LockFreeUserDataSource: LockFreeSource, EngineUserDataSource, @unchecked Sendable {
    private let kind: DataMerge
    private let pending = PaddedAtomic<UInt>(0)

    init(label: String, merge: DataMerge, queue: LockFreeQueue) {
        kind = merge
        super.init(label: label, queue: queue)
    }

    override var hasPending: Bool { pending.atomic.pointee.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.atomic.pointee.exchange(0, ordering: .acquiringAndReleasing) }

    public func merge(_ value: UInt) {
        if flags.load(ordering: .relaxed) & Self.cancelled != 0 { return }
        switch kind {
        case .add: pending.atomic.pointee.wrappingAdd(value, ordering: .acquiringAndReleasing)
        case .or: pending.atomic.pointee.bitwiseOr(value, ordering: .acquiringAndReleasing)
        case .replace: pending.atomic.pointee.store(value, ordering: .releasing)
        }
        merged()
    }
}
