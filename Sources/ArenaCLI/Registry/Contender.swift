import ArenaContract
import Bench
import Conformance

/// An engine entered in the arena: its profile, and everything a child process does with it compiled for its
/// concrete type: the workloads' trials (`Measurings`), the single-threaded paths `arena instructions` counts, and the
/// rule child's life. The parent decides from the profile alone; only a child runs the closures, so the engine
/// chosen with `--engine` goes from its name to its own compiled code without ever being opened as `any Engine`.
///
/// Make one with `Contender(MyEngine())` (or let `ArenaMain.run(engines:)` make it): the initializers are inlinable,
/// so the module that calls them (an executor author's executable, or this package for the built-ins) compiles the
/// trials for that engine type. A cheap value: a profile, a table and two closures.
public struct Contender: Sendable {
    /// The engine's name, summary and limits.
    public let profile: EngineProfile
    /// The engine, as an existential: for what reads it without running it (descriptions, tests).
    public let engine: any Engine
    /// The trials of the workloads this contender is measured on, by name.
    public let measurings: Measurings
    /// The layers (`dispatch-objects`, `operation-queues`, `executors`) this contender is the reference of: the
    /// implementation that decides their rules and that every ratio of a workload of that layer is taken against,
    /// unless a run names another with `--reference`. Empty for most contenders; the registry gives the roles.
    public private(set) var roles: Set<Capability> = []

    @usableFromInline let runningPath: @Sendable (InstructionPath, Int, Deadline) throws(WorkloadError) -> Void
    @usableFromInline let conforming: @Sendable (RuleRequest, Rule) -> Never
    @usableFromInline let exploring: @Sendable (ScenarioRequest) -> Never

    /// Enters `engine` with every workload `arena` measures (`ArenaWorkloads`), each compiled for its type.
    @inlinable
    public init<E: Engine>(_ engine: E) {
        self.init(engine, workloads: ArenaWorkloads())
    }

    /// Enters `engine` with `workloads`, each one's trial compiled for the engine's type.
    @inlinable
    public init<E: Engine, Source: WorkloadSet>(_ engine: E, workloads: Source) {
        self.init(
            profile: EngineProfile(engine), engine: engine, measurings: Measurings(engine, workloads),
            runningPath: { path, operations, deadline throws(WorkloadError) in
                try path.run(operations: operations, on: engine, until: deadline)
            },
            conforming: { request, rule in ConformanceChild.main(request, engine: engine, rule: rule) },
            exploring: { request in ScenarioChild.main(request, engine: engine) })
    }

    @usableFromInline
    init(
        profile: EngineProfile, engine: any Engine, measurings: Measurings,
        runningPath: @escaping @Sendable (InstructionPath, Int, Deadline) throws(WorkloadError) -> Void,
        conforming: @escaping @Sendable (RuleRequest, Rule) -> Never,
        exploring: @escaping @Sendable (ScenarioRequest) -> Never
    ) {
        self.profile = profile
        self.engine = engine
        self.measurings = measurings
        self.runningPath = runningPath
        self.conforming = conforming
        self.exploring = exploring
    }

    /// The engine's registry name.
    public var name: String { profile.name }

    /// This contender, measuring `more` besides (their trials compiled for this engine by the caller).
    public func adding(_ more: Measurings) -> Contender {
        var contender = Contender(
            profile: profile, engine: engine, measurings: measurings.merging(more), runningPath: runningPath,
            conforming: conforming, exploring: exploring)
        contender.roles = roles
        return contender
    }

    /// This contender as the reference of `layers` (layer capabilities: `Capability.layer` is `nil` for each), besides
    /// any it already is. A lineup stops the process when two of its contenders hold one role.
    public func reference(of layers: Set<Capability>) -> Contender {
        for layer in layers where layer.layer != nil { misuse("Contender '\(name)': \(layer.rawValue) is not a layer") }
        var contender = self
        contender.roles.formUnion(layers)
        return contender
    }

    /// Measures `point` on this engine in this process, through the trial compiled at registration; a failed result
    /// when the contender has no such workload.
    public func measure(_ point: Point, with runner: PointRunner) -> PointResult {
        measurings.measure(point, with: runner)
            ?? PointResult(
                engine: name, point: point, settings: runner.settings,
                failure: Failure(.error, "engine '\(name)' has no workload '\(point.workload)'"))
    }

    /// Runs `path` with `operations` counted operations on this engine in this process, through the loop compiled at
    /// registration (what `arena instructions` counts under callgrind). Costs the path's setup, warm-up and
    /// operations; throws when the engine computed wrongly or a wait passed `deadline`.
    public func run(_ path: InstructionPath, operations: Int, until deadline: Deadline) throws(WorkloadError) {
        try runningPath(path, operations, deadline)
    }

    /// The life of a rule's child process on this engine (`ConformanceChild.main`, compiled for its type).
    public func conform(_ request: RuleRequest, rule: Rule) -> Never {
        conforming(request, rule)
    }

    /// The life of a scenario child process on this engine (`ScenarioChild.main`, compiled for its type).
    public func explore(_ request: ScenarioRequest) -> Never {
        exploring(request)
    }
}

/// Makes a contender of each engine visited, with `workloads`.
@usableFromInline
struct ContenderMaker<Source: WorkloadSet>: EngineVisitor {
    @usableFromInline let workloads: Source
    @usableFromInline var contenders: [Contender] = []

    @inlinable
    init(workloads: Source) { self.workloads = workloads }

    @inlinable
    mutating func visit<E: Engine>(_ engine: E) { contenders.append(Contender(engine, workloads: workloads)) }
}

/// Compiles `workloads` for each engine visited, by engine name: what a user's own workloads add to the built-in
/// contenders, which were compiled with the built-in workloads only.
@usableFromInline
struct MeasuringsMaker<Source: WorkloadSet>: EngineVisitor {
    @usableFromInline let workloads: Source
    @usableFromInline var measurings: [String: Measurings] = [:]

    @inlinable
    init(workloads: Source) { self.workloads = workloads }

    @inlinable
    mutating func visit<E: Engine>(_ engine: E) { measurings[engine.name] = Measurings(engine, workloads) }
}
