import Bench

/// Something that makes an output from a run record: a file in the results folder (Google Benchmark JSON per
/// workload, CSV, pytest-benchmark JSON, report.md, instructions.md) or text for the terminal (the tables `arena
/// bench` prints). The one seam every output goes through, as Google Benchmark's `BenchmarkReporter` is: registered
/// like engines and workloads (`Reporters.builtIn`; an author adds theirs through `ArenaMain.run(reporters:)`), chosen
/// by name (`arena bench --results-format`, `arena report --reporter`), fed the same analysis of the same record.
///
/// A reporter is a value without state; `outputs` is a pure function of the run, so `arena bench` can call it after
/// every point (on the run restricted to the point's workload) and `arena report` again at any time.
public protocol RunReporter: Sendable {
    /// The name a user types: lower case, no commas, unique among the registered reporters.
    var name: String { get }
    /// One sentence on what it makes.
    var summary: String { get }
    /// Whether its outputs are files (`arena report` writes every such reporter's by default); `false` for one that
    /// prints on the terminal.
    var writesFiles: Bool { get }
    /// Whether `arena bench` writes its files by default (after every point, for the point's workload).
    var writtenByBench: Bool { get }
    /// What it makes from `run`; writes nothing. A workload-by-workload reporter makes a file per workload of `run`.
    func outputs(_ run: RunAnalysis) -> [ReportOutput]
}

extension RunReporter {
    /// Files.
    public var writesFiles: Bool { true }
    /// Not written by `arena bench` unless named; `arena report` writes it.
    public var writtenByBench: Bool { false }
}

/// One output of a reporter.
public struct ReportOutput: Sendable, Equatable {
    /// Where it goes.
    public enum Destination: Sendable, Equatable {
        /// A file, by its path relative to the results folder.
        case file(String)
        /// Standard output.
        case terminal
    }

    public let destination: Destination
    public let text: String

    public init(_ destination: Destination, _ text: String) {
        self.destination = destination
        self.text = text
    }

    /// A file output.
    public static func file(_ name: String, _ text: String) -> ReportOutput { ReportOutput(.file(name), text) }
}

/// The reporters of this package, in the order their files are written, and a list of them chosen by name.
public enum Reporters {
    /// Every built-in reporter.
    public static let builtIn: [any RunReporter] = [
        GoogleBenchmarkReporter(), CSVReporter(), PytestBenchmarkReporter(), MarkdownReporter(), InstructionsReporter(),
        TableReporter(), TableReporter(markdown: true),
    ]

    /// The reporters of `all` a comma-separated list (or several, from a repeated option) names, in `all`'s order,
    /// each once. Throws, naming the known ones, on an unknown or empty name.
    public static func parse(_ lists: [String], from all: [any RunReporter]) throws(UnknownReporter) -> [any RunReporter] {
        var chosen: Set<String> = []
        for list in lists {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                let name = item.filter { $0 != " " }
                guard all.contains(where: { $0.name == name }) else { throw UnknownReporter(name: name, known: all.map(\.name)) }
                chosen.insert(name)
            }
        }
        guard !chosen.isEmpty else { throw UnknownReporter(name: "", known: all.map(\.name)) }
        return all.filter { chosen.contains($0.name) }
    }
}

/// A reporter name that is not registered (or empty), with the names that are.
public struct UnknownReporter: Error, Equatable, CustomStringConvertible {
    public let name: String
    public let known: [String]

    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    /// One line naming the bad name and the known ones, for a usage error.
    public var description: String {
        name.isEmpty
            ? "an empty reporter name (known: \(known.joined(separator: ", ")))"
            : "unknown reporter '\(name)' (known: \(known.joined(separator: ", ")))"
    }
}

// MARK: The built-in reporters

/// Google Benchmark's JSON per workload (`<workload>.json`): every repetition, for Google Benchmark's `compare.py`
/// and plotting scripts written for Google Benchmark (`GoogleBenchmarkReport`).
public struct GoogleBenchmarkReporter: RunReporter {
    public init() {}
    public var name: String { "json" }
    public var summary: String { "Google Benchmark JSON per workload (<workload>.json), for compare.py" }
    public var writtenByBench: Bool { true }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        let context = run.machine ?? .unknown
        return run.workloads.map { workload in
            .file(workload.name + ".json", GoogleBenchmarkReport.json(workload.results, headline: workload.headline, context: context))
        }
    }
}

/// One CSV row per point per workload (`<workload>.csv`), with the ratio to the reference and its interval, for
/// spreadsheets, pandas and the plots (`CSVReport`).
public struct CSVReporter: RunReporter {
    public init() {}
    public var name: String { "csv" }
    public var summary: String { "a CSV row per point per workload (<workload>.csv), with ratios; the plots' data" }
    public var writtenByBench: Bool { true }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        run.workloads.map { .file($0.name + ".csv", CSVReport.csv($0)) }
    }
}

/// pytest-benchmark's JSON per workload (`<workload>.pytest-benchmark.json`), for `pytest-benchmark compare`, Bencher
/// and github-action-benchmark (`PytestBenchmarkReport`).
public struct PytestBenchmarkReporter: RunReporter {
    public init() {}
    public var name: String { "pytest-benchmark" }
    public var summary: String { "pytest-benchmark JSON per workload (<workload>.pytest-benchmark.json)" }
    public var writtenByBench: Bool { true }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        let context = run.machine ?? .unknown
        return run.workloads.map { workload in
            .file(
                workload.name + ".pytest-benchmark.json",
                PytestBenchmarkReport.json(workload.results, headline: workload.headline, context: context))
        }
    }
}

/// `report.md`: the summary, the machine, the matrix, the tables, the plots the folder has, threads, instructions,
/// warnings (`RunReport`). The plots are listed by `arena report`, which knows the folder.
public struct MarkdownReporter: RunReporter {
    /// The plot files of the folder (`plots/`), and the lines under the title.
    public let plots: [String]
    public let provenance: [String]

    public init(plots: [String] = [], provenance: [String] = []) {
        self.plots = plots
        self.provenance = provenance
    }

    public var name: String { "report" }
    public var summary: String { "report.md: summary, machine, conformance matrix, tables with ratios, plots, warnings" }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        [.file("report.md", RunReport(run: run, plots: plots, provenance: provenance).markdown())]
    }
}

/// `instructions.md`: the instructions per operation `arena instructions` counted, when the record has them.
public struct InstructionsReporter: RunReporter {
    public init() {}
    public var name: String { "instructions" }
    public var summary: String { "instructions.md: instructions per operation, when counted" }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        run.record.instructions.map { [.file(InstructionTable.markdownName, $0.markdownDocument())] } ?? []
    }
}

/// The tables on the terminal (`arena bench`'s output): aligned text, or Markdown (`ConsoleReport`).
public struct TableReporter: RunReporter {
    public let markdown: Bool

    public init(markdown: Bool = false) { self.markdown = markdown }

    public var name: String { markdown ? "markdown" : "table" }
    public var writesFiles: Bool { false }
    public var summary: String {
        markdown ? "the tables as Markdown, on standard output" : "the tables as aligned text, on standard output"
    }

    public func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        let warning = ConsoleReport.buildWarning(run.machine).map { markdown ? "> **\($0)**\n\n" : $0 + "\n\n" } ?? ""
        return [ReportOutput(.terminal, warning + (markdown ? ConsoleReport.markdown(run.workloads) : ConsoleReport.table(run.workloads)))]
    }
}
