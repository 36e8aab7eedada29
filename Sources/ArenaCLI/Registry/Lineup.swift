import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Reporting

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
    /// The reporters `bench` and `report` write with (`--results-format`, `--reporter`): the built-in ones, then an
    /// author's own.
    public let reporters: [any RunReporter]

    /// A lineup of `contenders`, `catalog`, `workloads` and `reporters`; two contenders, two workloads or two
    /// reporters with one name are a programming error, and stop the process naming it.
    public init(
        contenders: [Contender], catalog: Catalog, workloads: [any Workload] = ArenaWorkloads.all,
        reporters: [any RunReporter] = Reporters.builtIn
    ) {
        for contender in contenders where contenders.filter({ $0.name == contender.name }).count > 1 {
            misuse("Lineup: two engines are called '\(contender.name)'")
        }
        for workload in workloads where workloads.filter({ $0.name == workload.name }).count > 1 {
            misuse("Lineup: two workloads are called '\(workload.name)'")
        }
        for reporter in reporters where reporters.filter({ $0.name == reporter.name }).count > 1 {
            misuse("Lineup: two reporters are called '\(reporter.name)'")
        }
        for layer in Set(contenders.flatMap(\.roles)) {
            let holders = contenders.filter { $0.roles.contains(layer) }.map(\.name)
            if holders.count > 1 { misuse("Lineup: \(holders.joined(separator: " and ")) are both the reference of \(layer.rawValue)") }
        }
        self.contenders = contenders
        self.catalog = catalog
        self.workloads = workloads
        self.reporters = reporters
    }

    /// The contenders as a run record keeps them: profiles and roles.
    public var records: [ContenderRecord] {
        contenders.map { ContenderRecord(profile: $0.profile, roles: Array($0.roles)) }
    }

    /// The engines' names, in order.
    public var names: [String] { contenders.map(\.name) }

    /// The contender called `name`, if any.
    public func contender(named name: String) -> Contender? { contenders.first { $0.name == name } }

    /// The contender holding the reference role of `layer` (a layer capability), if the lineup has one.
    public func reference(of layer: Capability) -> Contender? { contenders.first { $0.roles.contains(layer) } }

    /// Each layer's reference, by name: what the conformance matrix and the run record say decides each layer.
    public var references: [Capability: String] {
        var references: [Capability: String] = [:]
        for contender in contenders { for layer in contender.roles { references[layer] = contender.name } }
        return references
    }

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
