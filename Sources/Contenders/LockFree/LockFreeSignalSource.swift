import ArenaContract
import Synchronization

/// A signal source: the process-wide `SignalHub` counts deliveries and this source adds them to its pending data.
public final class LockFreeSignalSource: LockFreeSource, SignalListener, @unchecked Sendable {
    let signal: Int32
    private let pending = Atomic<UInt>(0)
    private let registered = Atomic<Bool>(false)

    init(label: String, signal: Int32, queue: LockFreeQueue) {
        self.signal = signal
        super.init(label: label, queue: queue)
    }

    override var hasPending: Bool { pending.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.exchange(0, ordering: .acquiringAndReleasing) }

    func signalsArrived(_ count: UInt) {
        pending.wrappingAdd(count, ordering: .acquiringAndReleasing)
        merged()
    }

    override func didActivate() {
        registered.store(true, ordering: .relaxed)
        SignalHub.shared.add(self)
    }

    override func willCancel() {
        if registered.exchange(false, ordering: .relaxed) { SignalHub.shared.remove(self) }
    }
}
