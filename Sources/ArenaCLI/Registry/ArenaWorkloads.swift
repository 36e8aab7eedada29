import ArenaContract
import Bench

/// The workloads `arena` measures, in the order runs and reports take them: `Bench`'s `BuiltInWorkloads` (the
/// workloads built on the contract alone, the one list of them), then the ones that measure a home engine's own
/// types beside the contract and so live in this module, which sees the engines (`protocol-cost`, on `system` only).
/// The lineup, `Contender.builtIn` and `ArenaMain` compile this set; a new workload that needs only the contract is
/// one line in `BuiltInWorkloads`, one that names a home engine's types is its file in `Workloads/` here and one line
/// below.
///
/// A visit, like `BuiltInWorkloads`, so that a visitor holding an engine of a concrete type compiles every trial for
/// it in the module that names the engine. Making one costs nothing; `all` visits once.
public struct ArenaWorkloads: WorkloadSet {
    /// The set; it holds nothing.
    @inlinable public init() {}

    /// Visits `BuiltInWorkloads`' workloads in their order, then `protocol-cost`.
    @inlinable
    public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {
        BuiltInWorkloads().forEach(&visitor)
        visitor.visit(ProtocolCostWorkload())
    }

    /// Every workload `arena` measures, as existentials, in order (names, summaries, points; not for measuring).
    public static let all: [any Workload] = ArenaWorkloads().workloads

    /// The workload of `all` called `name`, if any: a linear search of a short list.
    public static func workload(named name: String) -> (any Workload)? { all.first { $0.name == name } }
}
