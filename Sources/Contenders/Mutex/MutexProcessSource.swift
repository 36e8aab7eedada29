/// A process source: a pidfd (`ExitWatch`) registered with the engine's epoll reactor and armed once; its report
/// merges `.exit` into the pending data (bitwise OR). A pidfd stays readable, so it is never re-armed: one exit,
/// once. A process already gone when the source was made is reported exited at activation.
public final class MutexProcessSource: MutexSource, ReadinessListener, @unchecked Sendable {
    private let watch: ExitWatch
    private let events: ProcessEvents
    private let reactor: EpollReactor
    private var registration: UInt64 = 0  // guarded by `lock`; 0 before activation and after cancel

    init(label: String, processID: Int32, events: ProcessEvents, queue: MutexQueue, reactor: EpollReactor) {
        watch = ExitWatch(processID: processID)
        self.events = events
        self.reactor = reactor
        super.init(label: label, queue: queue)
    }

    deinit {
        // Released without cancel: stop watching (the watch closes its pidfd as it goes).
        if registration != 0 { reactor.unregister(registration) }
    }

    override func didActivate() {
        guard events.contains(.exit) else { return }  // Linux reports nothing else about another process
        if watch.wasGone { return merge { $0 |= ProcessEvents.exit.rawValue } }
        let id = watch.register(self, with: reactor)
        guard id != 0 else { return }
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            return reactor.unregister(id)
        }
        registration = id
        lock.unlock()
        reactor.rearm(id)
    }

    /// Called by the reactor thread, once.
    func descriptorReady(_ id: UInt64) { merge { $0 |= ProcessEvents.exit.rawValue } }

    override func willCancel() {
        let id = lock.withLock {
            defer { registration = 0 }
            return registration
        }
        if id != 0 { reactor.unregister(id) }
        watch.close()
    }
}
