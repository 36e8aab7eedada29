import ArenaContract

/// Everything one actor engine owns beyond Swift's executor: its global queue, its main queue and the executor that
/// runs it, and the epoll reactor for descriptor sources (on first use). Blocks, timers and asyncAfter run as tasks on
/// Swift's global concurrent executor; the main queue's, on `mainExecutor`.
final class ActorRuntime: @unchecked Sendable {
    /// The global queues by class, least urgent first. The default one has no class of its own (a fallback, as
    /// libdispatch's is), so a classed item on a queue targeting it keeps its class.
    private(set) var globals: [ActorQueue] = []
    var global: ActorQueue { globals[QoSClass.default.rank] }
    /// The main queue: its drain task starts with `runMainLoop()`; until then its mailbox keeps what is posted.
    private(set) var main: ActorQueue!
    private let mainExecutor = ActorMainExecutor()
    private let services = EngineServices(prefix: "actor")

    init() {
        globals = QoSClass.allCases.map { qos in
            ActorQueue(
                label: "actor.global.\(qos.rawValue)", kind: .concurrent, qos: qos == .default ? nil : qos,
                startsInactive: false, target: nil, global: nil, isGlobal: true)
        }
        main = ActorQueue(label: "main", kind: .serial, qos: nil, startsInactive: false, target: nil, global: global, isMain: true)
    }

    /// The engine's `dispatchMain()`: starts the main queue's drain task, preferring the main executor, and runs
    /// that executor's jobs on the calling thread for good. A second call starts nothing and is misuse (`MainLoop`).
    func runMainLoop() -> Never {
        mainExecutor.loop.run { main.startDraining(on: mainExecutor) }
    }

    var reactor: EpollReactor { services.reactor }

    func shutdown() { services.shutdown() }
}
