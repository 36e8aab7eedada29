import ArenaContract

/// The workloads of this module, in the order runs and reports take them: the one list of the workloads built on the
/// contract alone (this module depends on no home engine). Adding a workload is its file under `Workloads/` and one
/// line here (and its sabotage in the tests, and its paragraph in the docs). `arena` runs these, then the few that
/// name a home engine's own types and so live beside the engines (`ArenaWorkloads` in `ArenaCLI`: `protocol-cost`).
///
/// The list is a visit, not an array, so that a visitor holding an engine of a concrete type gets every workload at
/// its concrete type too: `Contender(engine)` compiles each workload's trial for the engine in the module that names
/// the engine (this package for the built-in engines, an executor author's executable for theirs).
public struct BuiltInWorkloads: WorkloadSet {
    @inlinable public init() {}

    @inlinable
    public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {
        visitor.visit(ContentionWorkload())
        visitor.visit(ApplyWorkload())
        visitor.visit(AsyncDrainWorkload())
        visitor.visit(PingPongWorkload())
        visitor.visit(FanoutWorkload())
        visitor.visit(StarfishWorkload())
        visitor.visit(ReaderWriterWorkload())
        visitor.visit(SourceMergeWorkload())
        visitor.visit(TimerAccuracyWorkload())
        visitor.visit(QoSInversionWorkload())
        visitor.visit(PoolRampWorkload())
        visitor.visit(IOThroughputWorkload())
        visitor.visit(TCPEchoWorkload())
        visitor.visit(OperationGraphWorkload())
        visitor.visit(OperationThroughputWorkload())
        visitor.visit(ActorHopWorkload())
        visitor.visit(ActorContentionWorkload())
        visitor.visit(TaskFanoutWorkload())
    }

    /// The built-in workloads as existentials, in order (names, summaries, points).
    public static let all: [any Workload] = BuiltInWorkloads().workloads

    /// The built-in workload called `name`, if any.
    public static func workload(named name: String) -> (any Workload)? { all.first { $0.name == name } }
}
