import ArenaContract

/// A process source: a pidfd (`ExitWatch`) registered with the engine's epoll reactor and armed once; its report
/// merges `.exit` into the pending data (bitwise OR). A pidfd stays readable, so it is never re-armed: one exit,
/// once. A process already gone when the source was made is reported exited at activation.
public final class MutexProcessSource: MutexReactorSource, ReadinessListener, @unchecked Sendable {
    private let watch: ExitWatch
    private let events: ProcessEvents

    init(label: String, processID: Int32, events: ProcessEvents, queue: MutexQueue, reactor: EpollReactor) {
        watch = ExitWatch(processID: processID)
        self.events = events
        super.init(label: label, queue: queue, reactor: reactor)
    }

    override func didActivate() {
        guard events.contains(.exit) else { return }  // Linux reports nothing else about another process
        if watch.wasGone { return merge { $0 |= ProcessEvents.exit.rawValue } }
        let id = watch.register(self, with: reactor)
        if record(id) { reactor.rearm(id) }
    }

    /// Called by the reactor thread, once.
    func descriptorReady(_ id: UInt64) { merge { $0 |= ProcessEvents.exit.rawValue } }

    override func stopWatching() { watch.close() }
}
