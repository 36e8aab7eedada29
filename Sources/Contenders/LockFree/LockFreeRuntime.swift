import ArenaContract

/// Everything one lock-free engine owns: the worker pool, the global queue and the main queue from the start; the
/// timer thread and the descriptor reactor on first use (`EngineServices`). `shutdown()` stops and joins every thread it started.
@usableFromInline
final class LockFreeRuntime: @unchecked Sendable {
    let pool = LockFreeWorkerPool()
    /// The global queues by class, least urgent first; they share the pool. The default one has no class of its own
    /// (a fallback, as libdispatch's is), so a classed item on a queue targeting it keeps its class.
    private(set) var globals: [LockFreeQueue] = []
    var global: LockFreeQueue { globals[QoSClass.default.rank] }
    /// The main queue, whose doorbell rings on the main loop's thread instead of the pool.
    private(set) var main: LockFreeQueue!
    let mainLoop = MainLoop(name: "lockfree")
    private let services = EngineServices(prefix: "lockfree")

    init() {
        globals = QoSClass.allCases.map { qos in
            LockFreeQueue(
                label: "lockfree.global.\(qos.rawValue)", kind: .concurrent, qos: qos == .default ? nil : qos,
                startsInactive: false, target: nil, runtime: self, isGlobal: true)
        }
        main = LockFreeQueue(label: "main", kind: .serial, qos: nil, startsInactive: false, target: nil, runtime: self, isMain: true)
    }

    var timers: TimerThread { services.timers }
    var reactor: EpollReactor { services.reactor }

    func shutdown() {
        services.shutdown()
        pool.shutdown()
        // The global queues hold this runtime, as every queue does: a cycle that kept the whole engine (the pool's 64
        // run queues and its injection ring, 0.4 MB) alive after the engine was dropped. No thread of the engine is
        // left to use it, and nothing may be submitted after shutdown.
        globals = []
        main = nil
    }
}
