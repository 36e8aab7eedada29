import ArenaContract
import NIOContender
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Whether Swift's runtime skips the hop into an actor on an event loop, counted by NIO itself: a metrics delegate
/// adds up the tasks every loop ran (`NIOEventLoopTickInfo.numberOfTasks`: NIO's jobs and blocks alike). A round trip
/// from the pool is two loop tasks (the actor's job, the task's way back); from the task executor beside the actor,
/// one (the way back: the call itself runs inline); from a plain task executor on the same loop, which runs its jobs
/// isolated to nothing, two again.
@Suite struct HopCountTests {
    static let trips = 1_000

    @Test("a call from the pool is two loop tasks; from the co-located executor one; from a plain one on the loop two")
    func tasksPerRoundTrip() async throws {
        let count = LoopTaskCount()
        let loops = EventLoops(threads: 2, metricsDelegate: count)
        let layer = NIOEngine(loops: loops).executors
        let executor = try #require(layer.makeActorExecutor(label: "hop-count"))
        let actor = LoopCounter(executor)
        let colocated = try #require(layer.colocatedExecutor(for: executor))

        let fromPool = try await Self.tasks(actor, from: layer.poolExecutor, counting: count)
        let fromColocated = try await Self.tasks(actor, from: colocated, counting: count)
        let fromPlain = try await Self.tasks(actor, from: PlainLoopExecutor(executor.loop), counting: count)
        try await loops.group.shutdownGracefully()

        // A few tasks more than the round trips: the task's start and end, and a tick's count that NIO reports after
        // the last round trip ended.
        let slack = 20
        #expect(abs(fromPool - 2 * Self.trips) <= slack, "loop tasks for \(Self.trips) round trips from the pool: \(fromPool)")
        #expect(abs(fromColocated - Self.trips) <= slack, "from the co-located task executor: \(fromColocated)")
        #expect(abs(fromPlain - 2 * Self.trips) <= slack, "from a plain task executor on the loop: \(fromPlain)")
    }

    /// The loop tasks `trips` round trips into `actor` took, from a task preferring `caller`; each round trip ends
    /// with a look at where the task runs, so its own code runs between two calls (as in `actor-hop`).
    static func tasks<Caller: LayerTaskExecutor>(
        _ actor: LoopCounter, from caller: Caller, counting count: LoopTaskCount
    ) async throws -> Int {
        let before = count.tasks
        let away = await withTaskExecutorPreference(caller) {
            var away = 0
            for _ in 0..<trips {
                await actor.increment()
                if !caller.isCurrent { away += 1 }
            }
            return away
        }
        // NIO reports a tick when it ends: give the last one time to.
        try await Task.sleep(for: .milliseconds(50))
        #expect(away == 0, "round trips that came back off \(Caller.self)")
        return count.tasks - before
    }
}

/// Adds up the tasks NIO's loops ran, tick by tick.
final class LoopTaskCount: NIOEventLoopMetricsDelegate, Sendable {
    private let total = Atomic<Int>(0)

    var tasks: Int { total.load(ordering: .relaxed) }

    func processedTick(info: NIOEventLoopTickInfo) {
        total.wrappingAdd(info.numberOfTasks, ordering: .relaxed)
    }
}

/// An actor on an event loop's executor.
actor LoopCounter {
    let executor: EventLoopActorExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    var count = 0

    init(_ executor: EventLoopActorExecutor) { self.executor = executor }

    func increment() { count += 1 }
}

/// A task executor on one loop as the simplest author would write it: jobs run on it, isolated to nothing.
final class PlainLoopExecutor: LayerTaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    var isCurrent: Bool { loop.inEventLoop }
}
