/// Everything one actor engine owns beyond Swift's executor: its global queue, and the epoll reactor for descriptor
/// sources (on first use). Blocks, timers and asyncAfter run as tasks on Swift's global concurrent executor.
final class ActorRuntime: @unchecked Sendable {
    private(set) var global: ActorQueue!
    private let services = EngineServices(prefix: "actor")

    init() {
        global = ActorQueue(label: "actor.global", kind: .concurrent, startsInactive: false, target: nil, global: nil, isGlobal: true)
    }

    var reactor: EpollReactor { services.reactor }

    func shutdown() { services.shutdown() }
}
