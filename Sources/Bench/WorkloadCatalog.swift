import ArenaContract
import Contenders

/// Every workload, in the order runs and reports take them. This is the one place where workloads are
/// existential (`any Workload`).
///
/// A point is measured with both existentials turned back into concrete types: opening `any Engine` generically
/// would run every trial unspecialised (engine calls through witness tables, generic `sync` paying for metadata),
/// which would measure the protocol rather than the engine. The engine's type is fixed where it is registered
/// (`Contender`); `open` below fixes the workload's, and both are inlinable, so each pair compiles to its own
/// specialised trial in the module that registered the engine, which may be an executor author's own.
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
        QoSInversionWorkload(),
        PoolRampWorkload(),
        IOThroughputWorkload(),
        TCPEchoWorkload(),
        ProtocolCostWorkload(),
        OperationGraphWorkload(),
        OperationThroughputWorkload(),
        ActorHopWorkload(),
        ActorContentionWorkload(),
        TaskFanoutWorkload(),
    ]

    /// The registered names, in order.
    public static var names: [String] { all.map(\.name) }

    /// The workload called `name`, if any.
    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }

    /// Measures `point` of `workload` on `engine` in this process, specialised for both types where the caller
    /// knows `E` and `workload` is one of `all`; any other workload runs unspecialised.
    @inlinable
    public static func measure<E: Engine>(_ point: Point, of workload: any Workload, on engine: E,
                                          with runner: PointRunner) -> PointResult {
        open(workload, MeasuringVisitor(point: point, engine: engine, runner: runner))
            ?? runner.measure(point, of: workload, on: engine)  // opened, unspecialised
    }

    /// Whether `workload` has a concrete case in `open` (a test keeps it in step with `all`).
    public static func isSpecialised(_ workload: any Workload) -> Bool {
        open(workload, RecognisingVisitor()) ?? false
    }

    /// Calls `visitor` with `workload` as its concrete type, if it is one of the registered workloads' types.
    @inlinable
    static func open<V: WorkloadVisitor>(_ workload: any Workload, _ visitor: V) -> V.Result? {
        switch workload {
        case let w as ContentionWorkload: visitor.visit(w)
        case let w as ApplyWorkload: visitor.visit(w)
        case let w as AsyncDrainWorkload: visitor.visit(w)
        case let w as PingPongWorkload: visitor.visit(w)
        case let w as FanoutWorkload: visitor.visit(w)
        case let w as StarfishWorkload: visitor.visit(w)
        case let w as ReaderWriterWorkload: visitor.visit(w)
        case let w as SourceMergeWorkload: visitor.visit(w)
        case let w as TimerAccuracyWorkload: visitor.visit(w)
        case let w as QoSInversionWorkload: visitor.visit(w)
        case let w as PoolRampWorkload: visitor.visit(w)
        case let w as IOThroughputWorkload: visitor.visit(w)
        case let w as TCPEchoWorkload: visitor.visit(w)
        case let w as ProtocolCostWorkload: visitor.visit(w)
        case let w as OperationGraphWorkload: visitor.visit(w)
        case let w as OperationThroughputWorkload: visitor.visit(w)
        case let w as ActorHopWorkload: visitor.visit(w)
        case let w as ActorContentionWorkload: visitor.visit(w)
        case let w as TaskFanoutWorkload: visitor.visit(w)
        default: nil
        }
    }
}

/// Something done with a workload of a concrete type (Swift has no generic closures).
@usableFromInline
protocol WorkloadVisitor {
    associatedtype Result
    func visit<W: Workload>(_ workload: W) -> Result
}

/// Measures one point of the visited workload on one engine.
@usableFromInline
struct MeasuringVisitor<E: Engine>: WorkloadVisitor {
    @usableFromInline let point: Point
    @usableFromInline let engine: E
    @usableFromInline let runner: PointRunner

    @inlinable
    init(point: Point, engine: E, runner: PointRunner) {
        self.point = point
        self.engine = engine
        self.runner = runner
    }

    @inlinable
    func visit<W: Workload>(_ workload: W) -> PointResult { runner.measure(point, of: workload, on: engine) }
}

/// Says that the workload was recognised.
struct RecognisingVisitor: WorkloadVisitor {
    func visit<W: Workload>(_ workload: W) -> Bool { true }
}
