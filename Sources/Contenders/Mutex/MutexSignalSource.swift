import ArenaContract

/// A signal source: the process-wide `SignalHub` counts deliveries of the signal and adds them to the pending data.
public final class MutexSignalSource: MutexSource, SignalListener, @unchecked Sendable {
    let signal: Int32
    private var registered = false  // guarded by `lock`

    init(label: String, signal: Int32, queue: MutexQueue) {
        self.signal = signal
        super.init(label: label, queue: queue)
    }

    func signalsArrived(_ count: UInt) { merge { $0 &+= count } }

    override func didActivate() {
        lock.withLock { registered = true }
        SignalHub.shared.add(self)
    }

    override func willCancel() {
        let wasRegistered = lock.withLock {
            defer { registered = false }
            return registered
        }
        if wasRegistered { SignalHub.shared.remove(self) }
    }
}
