import ArenaContract
import Contenders

/// SwiftNIO's event loops as a contender, `nio`: a `LayerContender` bringing only its executor layer (`NIOExecutors`:
/// actors on NIO's own event-loop executor, tasks on a task executor over the same `MultiThreadedEventLoopGroup`). Its
/// GCD objects are the system engine's, so its column in the conformance matrix is the executor rules; the loops'
/// specific values come from the layer (`SpecificValueLayer`).
public typealias NIOEngine = LayerContender<SystemEngine.Operations, NIOExecutors>

extension LayerContender where Operations == SystemEngine.Operations, Executors == NIOExecutors {
    /// The `nio` contender on the process's shared event loops (`EventLoops.shared`, made on the first use of an
    /// executor).
    public init() { self.init(nio: NIOExecutors()) }

    /// The `nio` contender on `loops`: a test's group, counting its loops' work through a metrics delegate.
    public init(loops: EventLoops) { self.init(nio: NIOExecutors(loops: loops)) }

    private init(nio executors: NIOExecutors) {
        self.init(
            name: "nio",
            summary:
                "SwiftNIO 2.101's event loops: actors on NIO's own event-loop executor, tasks on a task executor over the same MultiThreadedEventLoopGroup; its GCD is the system engine's.",
            executors: executors)
    }
}
