import ArenaContract
import ArgumentParser
import Bench
import Conformance
import Contenders
import Reporting

/// `arena list`: the engines with their capabilities and reference roles, the catalog's size by concept, the
/// workloads and the reporters.
struct ListCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List engines with their capabilities, rule counts by concept, workloads and reporters.")

    @Flag(help: "Print only the workload names, one per line (for scripts).")
    var workloads = false

    @Flag(help: "Print only the engine names, one per line (for scripts).")
    var engines = false

    @Flag(help: "Print only the reporters' names, one per line (what --results-format and report --reporter take).")
    var reporters = false

    @Option(help: "With --workloads: markdown, a table of what each workload measures (docs/BENCHMARKS.md holds it).")
    var format: OutputFormat?

    func validate() throws {
        if [workloads, engines, reporters].filter({ $0 }).count > 1 {
            throw ValidationError("--workloads, --engines and --reporters exclude each other")
        }
        if format != nil && !workloads { throw ValidationError("--format needs --workloads") }
        try WorkloadSummary.check(format)
    }

    func run(on lineup: Lineup) {
        if engines {
            for engine in lineup.names { print(engine) }
            return
        }
        if reporters {
            for reporter in lineup.reporters { print(reporter.name) }
            return
        }
        if workloads {
            let summary = WorkloadSummary(workloads: lineup.workloads)
            print(format.map(summary.text) ?? summary.names, terminator: "")
            return
        }
        print("Engines")
        for contender in lineup.contenders {
            let description = EngineDescription(contender.profile)
            print("  \(description.name): \(description.summary)")
            if !contender.roles.isEmpty {
                print("    the reference of: \(contender.roles.sorted().map(\.rawValue).joined(separator: ", "))")
            }
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
        print("")
        print("Reporters (\(lineup.reporters.count))")
        for reporter in lineup.reporters { print("  \(reporter.name): \(reporter.summary)") }
    }
}
