import ArgumentParser
import Bench
import Conformance
import ArenaContract
import Contenders

/// What one `arena` runs: the engines, each with its specialised measuring, and the rules. The entry point builds
/// it once and hands it to the command it runs, which hands it on to its child processes by re-executing the same
/// program; nothing reads a global list. A cheap value.
public struct Lineup: Sendable {
    /// The engines, in the order reports list them.
    public let contenders: [Contender]
    /// The rules `conform` checks and `rules` prints.
    public let catalog: Catalog

    /// A lineup of `contenders` (their names must differ) and `catalog`.
    public init(contenders: [Contender], catalog: Catalog) {
        for contender in contenders where contenders.filter({ $0.name == contender.name }).count > 1 {
            misuse("Lineup: two engines are called '\(contender.name)'")
        }
        self.contenders = contenders
        self.catalog = catalog
    }

    /// The engines' names, in order.
    public var names: [String] { contenders.map(\.name) }

    /// The contender called `name`, if any.
    public func contender(named name: String) -> Contender? { contenders.first { $0.name == name } }

    /// A usage error unless every one of `names` is an engine of this lineup.
    func checkEngines(_ names: [String]) throws {
        for name in names where contender(named: name) == nil {
            throw ValidationError("unknown engine '\(name)' (known: \(self.names.joined(separator: ", ")))")
        }
    }

    /// The contenders named in `names`, in lineup order; all of them when `names` is empty.
    func chosen(_ names: [String]) -> [Contender] {
        names.isEmpty ? contenders : contenders.filter { names.contains($0.name) }
    }
}
