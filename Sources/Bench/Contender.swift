import ArenaContract
import Contenders
import FoundationContender

/// An engine entered in the arena: the engine, and the measuring of every workload compiled for its concrete type.
///
/// Make one with `Contender(MyEngine())`. The initializer is inlinable, so the module that calls it (an executor
/// author's executable, or this package for the built-ins) compiles each workload's trial for that engine type; the
/// benchmarks then measure the engine, never the protocol's witness tables; the same holds for the single-threaded
/// paths `arena instructions` counts. A contender is a cheap value: it holds the engine handle and two closures.
public struct Contender: Sendable {
    /// The engine, as an existential: enough to name it, list its capabilities and run the conformance catalog.
    public let engine: any Engine

    @usableFromInline
    let measuring: @Sendable (Point, any Workload, PointRunner) -> PointResult

    @usableFromInline
    let runningPath: @Sendable (InstructionPath, Int, Deadline) throws(WorkloadError) -> Void

    /// Enters `engine`, capturing its specialised measuring.
    @inlinable
    public init<E: Engine>(_ engine: E) {
        self.engine = engine
        measuring = { point, workload, runner in WorkloadCatalog.measure(point, of: workload, on: engine, with: runner) }
        runningPath = { path, operations, deadline throws(WorkloadError) in
            try path.run(operations: operations, on: engine, until: deadline)
        }
    }

    /// The engine's registry name.
    public var name: String { engine.name }

    /// Measures `point` of `workload` on this engine in this process, through the trial compiled at registration.
    public func measure(_ point: Point, of workload: any Workload, with runner: PointRunner) -> PointResult {
        measuring(point, workload, runner)
    }

    /// Runs `path` with `operations` counted operations on this engine in this process, through the loop compiled at
    /// registration (what `arena instructions` counts under callgrind). Costs the path's setup, warm-up and
    /// operations; throws when the engine computed wrongly or a wait passed `deadline`.
    public func run(_ path: InstructionPath, operations: Int, until deadline: Deadline) throws(WorkloadError) {
        try runningPath(path, operations, deadline)
    }

    /// The engines this package builds, in the order reports list them (`system` first: it is the reference for
    /// GCD), then `foundation`, the reference for operation queues, and `swift`, Swift's default executors, the
    /// reference for tasks.
    public static let builtIn: [Contender] = [
        Contender(SystemEngine()), Contender(MutexEngine()), Contender(LockFreeEngine()), Contender(ActorEngine()),
        Contender(FoundationEngine()), Contender(SwiftDefaultEngine()),
    ]
}
