import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Contenders

/// `arena list`: the engines with their capabilities, the catalog's size by concept, and the workloads.
struct ListCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List engines with their capabilities, rule counts by concept, and workloads.")

    @Flag(help: "Print only the workload names, one per line (for scripts).")
    var workloads = false

    @Flag(help: "Print only the engine names, one per line (for scripts).")
    var engines = false

    func validate() throws {
        if workloads && engines { throw ValidationError("--workloads and --engines exclude each other") }
    }

    func run(on lineup: Lineup) {
        if engines {
            for engine in lineup.names { print(engine) }
            return
        }
        if workloads {
            for workload in lineup.workloads { print(workload.name) }
            return
        }
        print("Engines")
        for contender in lineup.contenders {
            let description = EngineDescription(contender.profile)
            print("  \(description.name): \(description.summary)")
            print("    capabilities: \(description.capabilities.joined(separator: ", "))")
            for (capability, reason) in description.limits.sorted(by: { $0.key < $1.key }) {
                print("    lacks \(capability): \(reason)")
            }
        }
        print("")
        print("Rules (\(lineup.catalog.rules.count))")
        for concept in lineup.catalog.concepts {
            let rules = lineup.catalog.rules.filter { $0.concept == concept }
            let misuse = rules.filter(\.isMisuse).count
            print("  \(concept.rawValue): \(rules.count)" + (misuse > 0 ? " (\(misuse) misuse)" : ""))
        }
        print("")
        print("Workloads (\(lineup.workloads.count))")
        for workload in lineup.workloads { print("  \(workload.name): \(workload.summary)") }
    }
}
