/// Everything one mutex engine owns: the worker pool and the global queue from the start; the timer thread and the
/// descriptor reactor on first use. `shutdown()` stops and joins every thread it started.
final class MutexRuntime: @unchecked Sendable {
    let pool = MutexWorkerPool()
    private(set) var global: MutexQueue!
    private let lazyLock = PthreadMutex()
    private var startedTimers: TimerThread?
    private var startedReactor: EpollReactor?

    init() {
        global = MutexQueue(label: "mutex.global", kind: .concurrent, startsInactive: false, target: nil, runtime: self, isGlobal: true)
    }

    /// The timer thread, started on first use.
    var timers: TimerThread {
        lazyLock.withLock {
            if let startedTimers { return startedTimers }
            let timers = TimerThread(name: "mutex.timers")
            startedTimers = timers
            return timers
        }
    }

    /// The epoll reactor, started on first use.
    var reactor: EpollReactor {
        lazyLock.withLock {
            if let startedReactor { return startedReactor }
            let reactor = EpollReactor(name: "mutex.reactor")
            startedReactor = reactor
            return reactor
        }
    }

    /// Stops the timer thread, the reactor and the workers (after the work already queued), and joins them.
    func shutdown() {
        let (timers, reactor) = lazyLock.withLock { (startedTimers, startedReactor) }
        timers?.shutdown()
        reactor?.shutdown()
        pool.shutdown()
    }
}
