import ArenaContract
import Synchronization

/// An atomic alone on 128 bytes aligned to 128 (two cache lines: x86 prefetches lines in pairs), so two hot atomics
/// written by different threads never share a line. Costs one aligned allocation; access goes through `atomic`.
@usableFromInline
final class PaddedAtomic<Value: AtomicRepresentable>: @unchecked Sendable {
    @usableFromInline let atomic: UnsafeMutablePointer<Atomic<Value>>

    init(_ value: Value) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
        atomic = raw.bindMemory(to: Atomic<Value>.self, capacity: 1)
        atomic.initialize(to: Atomic(value))
    }

    deinit {
        atomic.deinitialize(count: 1)
        UnsafeMutableRawPointer(atomic).deallocate()
    }
}
