import ArgumentParser
import Bench
import Conformance
import Reporting

/// How a command prints what it found: one set of formats for every command (`--format`), each command offering
/// those its summary has (`Printable.formats`). A name a command does not offer is a usage error.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// Aligned columns for a terminal.
    case table
    /// GitHub-flavoured Markdown, for reports and docs.
    case markdown
    /// JSON, for other programs.
    case json

    /// None listed by the parser: each command offers its own formats and its help names them (`formatHelp`), where
    /// the parser's "(values: table, markdown, json)" offered every format to every command (`arena rules --help`
    /// listed `table`, which `--format table` refuses).
    static var allValueStrings: [String] { [] }
}

/// A command's summary in each format it offers: the one seam between what a command found and how it is printed.
protocol Printable {
    /// The formats offered, the default first.
    static var formats: [OutputFormat] { get }
    /// The summary in `format` (one of `formats`), ready to print.
    func text(_ format: OutputFormat) throws -> String
}

extension Printable {
    /// The `--format` option's help: what it takes and what it defaults to.
    static var formatHelp: ArgumentHelp {
        ArgumentHelp("Output format: \(formats.map(\.rawValue).joined(separator: ", ")) (default \(formats[0].rawValue)).")
    }

    /// A usage error unless `format` is one of `formats` (`nil`: the default).
    static func check(_ format: OutputFormat?) throws {
        if let format, !formats.contains(format) {
            throw ValidationError("--format \(format.rawValue) is not offered here (\(formats.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    /// Prints the summary in `format`, or the default.
    func print(_ format: OutputFormat?) throws {
        Swift.print(try text(format ?? Self.formats[0]), terminator: "")
    }
}

/// The conformance matrix (`arena conform`).
extension ConformanceReport: Printable {
    static var formats: [OutputFormat] { [.table, .markdown, .json] }

    func text(_ format: OutputFormat) throws -> String {
        switch format {
        case .table: table()
        case .markdown: markdown()
        case .json: try json()
        }
    }
}

/// The rule catalog with sources (`arena rules`; docs/RULES.md is its Markdown).
struct CatalogSummary: Printable {
    let catalog: Catalog
    static var formats: [OutputFormat] { [.markdown, .json] }

    func text(_ format: OutputFormat) throws -> String {
        format == .json ? try CatalogReport.json(catalog) : CatalogReport.markdown(catalog)
    }
}

/// Instructions per operation (`arena instructions`).
extension InstructionTable: Printable {
    static var formats: [OutputFormat] { [.table, .markdown, .json] }

    func text(_ format: OutputFormat) -> String {
        switch format {
        case .table: text()
        case .markdown: markdownSection()
        case .json: json()
        }
    }
}
