import ArenaContract

/// Everything one mutex engine owns: the worker pool, the global queue and the main queue from the start; the timer
/// thread and the descriptor reactor on first use. `shutdown()` stops and joins every thread it started.
final class MutexRuntime: @unchecked Sendable {
    let pool = MutexWorkerPool()
    /// The global queues by class, least urgent first; they share the pool. The default one has no class of its own
    /// (a fallback, as libdispatch's is), so a classed item on a queue targeting it keeps its class.
    private(set) var globals: [MutexQueue] = []
    var global: MutexQueue { globals[QoSClass.default.rank] }
    /// The main queue, whose turns run on the main loop's thread instead of the pool.
    private(set) var main: MutexQueue!
    let mainLoop = MainLoop(name: "mutex")
    private let services = EngineServices(prefix: "mutex")

    init() {
        globals = QoSClass.allCases.map { qos in
            MutexQueue(
                label: "mutex.global.\(qos.rawValue)", kind: .concurrent, qos: qos == .default ? nil : qos,
                startsInactive: false, target: nil, runtime: self, isGlobal: true)
        }
        main = MutexQueue(label: "main", kind: .serial, qos: nil, startsInactive: false, target: nil, runtime: self, isMain: true)
    }

    var timers: TimerThread { services.timers }
    var reactor: EpollReactor { services.reactor }

    /// Stops the timer thread, the reactor and the workers (after the work already queued), and joins them.
    func shutdown() {
        services.shutdown()
        pool.shutdown()
        // The global queues hold this runtime, as every queue does: a cycle that kept the whole engine alive after
        // the engine was dropped. No thread of the engine is left to use it, and nothing may be submitted after
        // shutdown.
        globals = []
        main = nil
    }
}
