/// Everything one lock-free engine owns: the worker pool and the global queue from the start; the timer thread and
/// the descriptor reactor on first use. `shutdown()` stops and joins every thread it started.
final class LockFreeRuntime: @unchecked Sendable {
    let pool = LockFreeWorkerPool()
    private(set) var global: LockFreeQueue!
    /// Guards the first use of the timers and the reactor: a cold path.
    private let lazyLock = PthreadMutex()
    private var startedTimers: TimerThread?
    private var startedReactor: EpollReactor?

    init() {
        global = LockFreeQueue(label: "lockfree.global", kind: .concurrent, startsInactive: false, target: nil, runtime: self, isGlobal: true)
    }

    var timers: TimerThread {
        lazyLock.withLock {
            if let startedTimers { return startedTimers }
            let timers = TimerThread(name: "lockfree.timers")
            startedTimers = timers
            return timers
        }
    }

    var reactor: EpollReactor {
        lazyLock.withLock {
            if let startedReactor { return startedReactor }
            let reactor = EpollReactor(name: "lockfree.reactor")
            startedReactor = reactor
            return reactor
        }
    }

    func shutdown() {
        let (timers, reactor) = lazyLock.withLock { (startedTimers, startedReactor) }
        timers?.shutdown()
        reactor?.shutdown()
        pool.shutdown()
    }
}
