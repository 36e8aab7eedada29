import ArenaContract

/// The threads an engine starts only when first needed: the timer thread (asyncAfter, timer sources) and the epoll
/// reactor (descriptor sources). Starting them takes a pthread mutex once; afterwards reading them takes it too,
/// which is fine: sources and asyncAfter are cold next to the queues.
final class EngineServices: @unchecked Sendable {
    private let prefix: String
    private let lock = PthreadMutex()
    private var startedTimers: TimerThread?
    private var startedReactor: EpollReactor?

    /// `prefix` names the threads (`mutex.timers`, `lockfree.reactor`, …).
    init(prefix: String) { self.prefix = prefix }

    var timers: TimerThread {
        lock.withLock {
            if let startedTimers { return startedTimers }
            let timers = TimerThread(name: "\(prefix).timers")
            startedTimers = timers
            return timers
        }
    }

    var reactor: EpollReactor {
        lock.withLock {
            if let startedReactor { return startedReactor }
            let reactor = EpollReactor(name: "\(prefix).reactor")
            startedReactor = reactor
            return reactor
        }
    }

    /// Stops and joins whichever of the two started.
    func shutdown() {
        let (timers, reactor) = lock.withLock { (startedTimers, startedReactor) }
        timers?.shutdown()
        reactor?.shutdown()
    }
}
