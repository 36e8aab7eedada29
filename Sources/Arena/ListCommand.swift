import ArgumentParser
import Conformance
import Contenders

/// `arena list`: the engines with their capabilities, and the catalog's size by concept.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List engines with their capabilities, and rule counts by concept.")

    func run() {
        print("Engines")
        for engine in EngineRegistry.all {
            let description = EngineDescription(engine)
            print("  \(description.name): \(description.summary)")
            print("    capabilities: \(description.capabilities.joined(separator: ", "))")
            for (capability, reason) in description.limits.sorted(by: { $0.key < $1.key }) {
                print("    lacks \(capability): \(reason)")
            }
        }
        print("")
        print("Rules (\(Catalog.rules.count))")
        for concept in Concept.allCases {
            let rules = Catalog.rules.filter { $0.concept == concept }
            let misuse = rules.filter(\.isMisuse).count
            print("  \(concept.rawValue): \(rules.count)" + (misuse > 0 ? " (\(misuse) misuse)" : ""))
        }
    }
}
