import ArgumentParser
import Conformance

/// `arena rules`: the catalog with sources; docs/RULES.md is its Markdown output.
struct RulesCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules", abstract: "Print the rule catalog with the source of every rule.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case markdown, json
    }

    @Option(help: "Output format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: Format = .markdown

    func run(on lineup: Lineup) throws {
        switch format {
        case .markdown: print(CatalogReport.markdown(lineup.catalog), terminator: "")
        case .json: print(try CatalogReport.json(lineup.catalog), terminator: "")
        }
    }
}
