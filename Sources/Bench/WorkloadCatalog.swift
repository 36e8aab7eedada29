import Contenders

/// Every workload, in the order runs and reports take them. Like `EngineRegistry`, this is the one place where
/// workloads are existential.
///
/// `measure` turns both existentials back into concrete types before measuring: opening `any Engine` generically
/// would run every trial unspecialised (engine calls through witness tables, generic `sync` paying for metadata),
/// which would measure the protocol rather than the engine. So the registered engines and workloads are matched
/// by type below, and each pair compiles to its own specialised trial. Other engines (the tests' mutants) run
/// unspecialised, which is fine for checking answers.
public enum WorkloadCatalog {
    public static let all: [any Workload] = [
        ContentionWorkload(),
        ApplyWorkload(),
        AsyncDrainWorkload(),
        PingPongWorkload(),
        FanoutWorkload(),
        StarfishWorkload(),
        ReaderWriterWorkload(),
        SourceMergeWorkload(),
        TimerAccuracyWorkload(),
        ProtocolCostWorkload(),
    ]

    /// The registered names, in order.
    public static var names: [String] { all.map(\.name) }

    /// The workload called `name`, if any.
    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }

    /// Measures `point` of `workload` on `engine` in this process.
    public static func measure(_ point: Point, of workload: any Workload, on engine: any Engine, with runner: PointRunner) -> PointResult {
        switch engine {
        case let engine as SystemEngine: measure(point, of: workload, onConcrete: engine, with: runner)
        case let engine as MutexEngine: measure(point, of: workload, onConcrete: engine, with: runner)
        case let engine as LockFreeEngine: measure(point, of: workload, onConcrete: engine, with: runner)
        case let engine as ActorEngine: measure(point, of: workload, onConcrete: engine, with: runner)
        default: measure(point, of: workload, onConcrete: engine, with: runner)  // opened, unspecialised
        }
    }

    /// Whether `workload` and `engine` have a specialised pairing in `measure` (a test keeps the lists in step).
    public static func isSpecialised(_ workload: any Workload, on engine: any Engine) -> Bool {
        let engines: [any Engine.Type] = [SystemEngine.self, MutexEngine.self, LockFreeEngine.self, ActorEngine.self]
        return engines.contains { $0 == type(of: engine) } && concreteWorkload(workload) != nil
    }

    private static func measure<E: Engine>(_ point: Point, of workload: any Workload, onConcrete engine: E,
                                           with runner: PointRunner) -> PointResult {
        switch concreteWorkload(workload) {
        case .contention(let w): runner.measure(point, of: w, on: engine)
        case .apply(let w): runner.measure(point, of: w, on: engine)
        case .asyncDrain(let w): runner.measure(point, of: w, on: engine)
        case .pingPong(let w): runner.measure(point, of: w, on: engine)
        case .fanout(let w): runner.measure(point, of: w, on: engine)
        case .starfish(let w): runner.measure(point, of: w, on: engine)
        case .readerWriter(let w): runner.measure(point, of: w, on: engine)
        case .sourceMerge(let w): runner.measure(point, of: w, on: engine)
        case .timerAccuracy(let w): runner.measure(point, of: w, on: engine)
        case .protocolCost(let w): runner.measure(point, of: w, on: engine)
        case nil: unspecialised(point, of: workload, on: engine, with: runner)
        }
    }

    private static func unspecialised<W: Workload, E: Engine>(_ point: Point, of workload: W, on engine: E,
                                                              with runner: PointRunner) -> PointResult {
        runner.measure(point, of: workload, on: engine)
    }

    /// The registered workloads as concrete types.
    private enum Concrete {
        case contention(ContentionWorkload), apply(ApplyWorkload), asyncDrain(AsyncDrainWorkload)
        case pingPong(PingPongWorkload), fanout(FanoutWorkload), starfish(StarfishWorkload)
        case readerWriter(ReaderWriterWorkload), sourceMerge(SourceMergeWorkload)
        case timerAccuracy(TimerAccuracyWorkload), protocolCost(ProtocolCostWorkload)
    }

    private static func concreteWorkload(_ workload: any Workload) -> Concrete? {
        switch workload {
        case let w as ContentionWorkload: .contention(w)
        case let w as ApplyWorkload: .apply(w)
        case let w as AsyncDrainWorkload: .asyncDrain(w)
        case let w as PingPongWorkload: .pingPong(w)
        case let w as FanoutWorkload: .fanout(w)
        case let w as StarfishWorkload: .starfish(w)
        case let w as ReaderWriterWorkload: .readerWriter(w)
        case let w as SourceMergeWorkload: .sourceMerge(w)
        case let w as TimerAccuracyWorkload: .timerAccuracy(w)
        case let w as ProtocolCostWorkload: .protocolCost(w)
        default: nil
        }
    }
}
