import ArenaContract
import ArgumentParser
import Bench
import Conformance

/// What one `arena` runs: the contenders (each with its specialised measuring), the rules and the workloads. The
/// entry point builds it once and hands it to the command it runs, which hands it on to its child processes by
/// re-executing the same program; nothing reads a global list. A cheap value.
public struct Lineup: Sendable {
    /// The engines, in the order reports list them.
    public let contenders: [Contender]
    /// The rules `conform` checks and `rules` prints.
    public let catalog: Catalog
    /// The workloads `bench` measures, in the order runs and reports take them.
    public let workloads: [any Workload]

    /// A lineup of `contenders`, `catalog` and `workloads`; two contenders or two workloads with one name are a
    /// programming error, and stop the process naming it.
    public init(contenders: [Contender], catalog: Catalog, workloads: [any Workload] = ArenaWorkloads.all) {
        for contender in contenders where contenders.filter({ $0.name == contender.name }).count > 1 {
            misuse("Lineup: two engines are called '\(contender.name)'")
        }
        for workload in workloads where workloads.filter({ $0.name == workload.name }).count > 1 {
            misuse("Lineup: two workloads are called '\(workload.name)'")
        }
        self.contenders = contenders
        self.catalog = catalog
        self.workloads = workloads
    }

    /// The engines' names, in order.
    public var names: [String] { contenders.map(\.name) }

    /// The contender called `name`, if any.
    public func contender(named name: String) -> Contender? { contenders.first { $0.name == name } }

    /// The workload called `name`, if any.
    public func workload(named name: String) -> (any Workload)? { workloads.first { $0.name == name } }

    /// A usage error unless every one of `names` is an engine of this lineup.
    func checkEngines(_ names: [String]) throws {
        for name in names where contender(named: name) == nil {
            throw ValidationError("unknown engine '\(name)' (known: \(self.names.joined(separator: ", ")))")
        }
    }

    /// A usage error unless every one of `names` is a workload of this lineup (or `all`).
    func checkWorkloads(_ names: [String]) throws {
        for name in names where name != "all" && workload(named: name) == nil {
            throw ValidationError("unknown workload '\(name)' (known: \(workloads.map(\.name).joined(separator: ", ")), all)")
        }
    }

    /// The contenders named in `names`, in lineup order; all of them when `names` is empty.
    func chosen(_ names: [String]) -> [Contender] {
        names.isEmpty ? contenders : contenders.filter { names.contains($0.name) }
    }
}
