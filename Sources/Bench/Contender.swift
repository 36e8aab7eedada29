import Contenders

/// An engine entered in the arena: the engine, and the measuring of every workload compiled for its concrete type.
///
/// Make one with `Contender(MyEngine())`. The initializer is inlinable, so the module that calls it (an executor
/// author's executable, or this package for the built-ins) compiles each workload's trial for that engine type; the
/// benchmarks then measure the engine, never the protocol's witness tables. A contender is a cheap value: it holds
/// the engine handle and one closure.
public struct Contender: Sendable {
    /// The engine, as an existential: enough to name it, list its capabilities and run the conformance catalog.
    public let engine: any Engine

    @usableFromInline
    let measuring: @Sendable (Point, any Workload, PointRunner) -> PointResult

    /// Enters `engine`, capturing its specialised measuring.
    @inlinable
    public init<E: Engine>(_ engine: E) {
        self.engine = engine
        measuring = { point, workload, runner in WorkloadCatalog.measure(point, of: workload, on: engine, with: runner) }
    }

    /// The engine's registry name.
    public var name: String { engine.name }

    /// Measures `point` of `workload` on this engine in this process, through the trial compiled at registration.
    public func measure(_ point: Point, of workload: any Workload, with runner: PointRunner) -> PointResult {
        measuring(point, workload, runner)
    }

    /// The engines this package builds, in the order reports list them (`system` first: it is the reference).
    public static let builtIn: [Contender] = [
        Contender(SystemEngine()), Contender(MutexEngine()), Contender(LockFreeEngine()), Contender(ActorEngine()),
    ]
}
