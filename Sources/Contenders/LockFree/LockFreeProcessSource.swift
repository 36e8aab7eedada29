import Synchronization

/// A process source: a pidfd (`ExitWatch`) registered with the shared epoll reactor and armed once; its report ORs
/// `.exit` into the pending data atomically. A pidfd stays readable, so it is never re-armed: one exit, once. A
/// process already gone when the source was made is reported exited at activation.
public final class LockFreeProcessSource: LockFreeSource, ReadinessListener, @unchecked Sendable {
    private let watch: ExitWatch
    private let events: ProcessEvents
    private let reactor: EpollReactor
    private let pending = Atomic<UInt>(0)
    /// 0 before activation and after cancel.
    private let registration = Atomic<UInt64>(0)

    init(label: String, processID: Int32, events: ProcessEvents, queue: LockFreeQueue, reactor: EpollReactor) {
        watch = ExitWatch(processID: processID)
        self.events = events
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        let id = registration.load(ordering: .relaxed)
        if id != 0 { reactor.unregister(id) }
    }

    override var hasPending: Bool { pending.load(ordering: .acquiring) != 0 }
    override func takePending() -> UInt { pending.exchange(0, ordering: .acquiringAndReleasing) }

    override func didActivate() {
        guard events.contains(.exit) else { return }  // Linux reports nothing else about another process
        if watch.wasGone { return descriptorReady(0) }
        let id = watch.register(self, with: reactor)
        guard id != 0 else { return }
        registration.store(id, ordering: .sequentiallyConsistent)
        // Against `cancel`, which sets its bit and then takes the registration: one of the two sees the other.
        if flags.load(ordering: .sequentiallyConsistent) & Self.cancelled != 0 {
            let taken = registration.exchange(0, ordering: .sequentiallyConsistent)
            if taken != 0 { reactor.unregister(taken) }
            return
        }
        reactor.rearm(id)
    }

    /// Called by the reactor thread, once.
    func descriptorReady(_ id: UInt64) {
        pending.bitwiseOr(ProcessEvents.exit.rawValue, ordering: .acquiringAndReleasing)
        merged()
    }

    override func willCancel() {
        let id = registration.exchange(0, ordering: .sequentiallyConsistent)
        if id != 0 { reactor.unregister(id) }
        watch.close()
    }
}
