import ArgumentParser
import Conformance

/// `arena rules`: the catalog with sources; docs/RULES.md is its Markdown output.
struct RulesCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules", abstract: "Print the rule catalog with the source of every rule.")

    @Option(help: CatalogSummary.formatHelp)
    var format: OutputFormat?

    func validate() throws { try CatalogSummary.check(format) }

    func run(on lineup: Lineup) throws {
        try CatalogSummary(catalog: lineup.catalog).print(format)
    }
}
