import NIOCore
import NIOPosix
import Synchronization

/// The `MultiThreadedEventLoopGroup` the nio contender runs on, with what the layer keeps per loop: the loop's table of
/// specific values, and the turn that gives actor executors their loops.
public final class EventLoops: Sendable {
    /// The process's loops: as many as cores, at least two (so two actor executors made one after the other are on
    /// different loops). Made on first use, never shut down, as NIO's own singleton group.
    public static let shared = EventLoops(threads: max(2, System.coreCount))

    /// NIO's group, unmodified.
    public let group: MultiThreadedEventLoopGroup
    /// The group's loops in their order, each with its table of specific values.
    let loops: [Loop]
    /// The task executor over the group.
    public let pool: EventLoopGroupExecutor
    private let turn = Atomic<Int>(0)

    /// A loop of the group and what the layer keeps for it.
    struct Loop: Sendable {
        let loop: any EventLoop
        let specifics: LoopSpecifics
    }

    /// A new group of `threads` loops; `metricsDelegate` sees every tick of every loop (NIO calls it from the loop,
    /// and reads the clock twice a tick for it).
    public init(threads: Int, metricsDelegate: (any NIOEventLoopMetricsDelegate)? = nil) {
        group =
            if let metricsDelegate {
                MultiThreadedEventLoopGroup(numberOfThreads: threads, metricsDelegate: metricsDelegate)
            } else {
                MultiThreadedEventLoopGroup(numberOfThreads: threads)
            }
        loops = group.makeIterator().map { Loop(loop: $0, specifics: LoopSpecifics()) }
        pool = EventLoopGroupExecutor(group)
    }

    /// The loop whose turn it is to take an actor executor, taken in the group's order.
    func nextActorLoop() -> Loop {
        loops[turn.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// The table of the loop the caller runs on, or `nil` off this group's loops: a look at each loop's
    /// `inEventLoop` (a thread-identity comparison).
    var specificsOfCurrentLoop: LoopSpecifics? {
        loops.first { $0.loop.inEventLoop }?.specifics
    }
}
