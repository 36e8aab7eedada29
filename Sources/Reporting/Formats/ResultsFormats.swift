import Bench

/// The registry of results formats: the one list `arena bench` writes by default and `--results-format` chooses
/// from, and the format results folders are read back through.
public enum ResultsFormats {
    /// Google Benchmark's JSON (`<workload>.json`): every repetition, read back by `arena report` and `arena compare`,
    /// and by Google Benchmark's `compare.py`.
    public static let googleBenchmark = GoogleBenchmarkFormat()
    /// One CSV row per point (`<workload>.csv`) for spreadsheets, pandas and the gnuplot scripts; write-only.
    public static let csv = CSVFormat()
    /// pytest-benchmark's JSON (`<workload>.pytest-benchmark.json`) for `pytest-benchmark compare`, Bencher and
    /// github-action-benchmark; write-only.
    public static let pytestBenchmark = PytestBenchmarkFormat()

    /// Every registered format, in the order files are written; `arena bench` writes them all unless told otherwise.
    public static let all: [any ResultsFormat] = [googleBenchmark, csv, pytestBenchmark]

    /// The format results folders are read back through (`ResultsFolder.load`): it keeps every repetition.
    public static let readBack: any ReadableResultsFormat = googleBenchmark

    /// The names of `all`, in order.
    public static var names: [String] { all.map(\.name) }

    /// The registered format called `name`, or `nil`.
    public static func format(named name: String) -> (any ResultsFormat)? {
        all.first { $0.name == name }
    }

    /// The formats a comma-separated list names (`json,csv`), in registry order, each once. Throws, naming the known
    /// formats, on an unknown or empty name; an empty list is an error too, since a run must write something.
    public static func parse(_ list: String) throws(UnknownResultsFormat) -> [any ResultsFormat] {
        try parse([list])
    }

    /// The formats several lists name together (a repeated option: `["json", "csv,pytest-benchmark"]`), as
    /// `parse(_:)` reads one.
    public static func parse(_ lists: [String]) throws(UnknownResultsFormat) -> [any ResultsFormat] {
        var chosen: Set<String> = []
        for list in lists {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                let name = item.filter { $0 != " " }
                guard format(named: name) != nil else { throw UnknownResultsFormat(name: name, known: names) }
                chosen.insert(name)
            }
        }
        guard !chosen.isEmpty else { throw UnknownResultsFormat(name: "", known: names) }
        return all.filter { chosen.contains($0.name) }
    }
}

/// A results format name that is not registered (or empty), with the names that are.
public struct UnknownResultsFormat: Error, Equatable, CustomStringConvertible {
    /// The name as given.
    public let name: String
    /// The registered names.
    public let known: [String]

    /// The error for `name` among `known`.
    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    /// One line naming the bad name and the known ones, for a usage error.
    public var description: String {
        name.isEmpty
            ? "an empty results format name (known: \(known.joined(separator: ", ")))"
            : "unknown results format '\(name)' (known: \(known.joined(separator: ", ")))"
    }
}

/// Google Benchmark's JSON through the seam: `GoogleBenchmarkReport` writes it, `GoogleBenchmarkReader` reads it.
public struct GoogleBenchmarkFormat: ReadableResultsFormat {
    /// The format; stateless, so making one costs nothing.
    public init() {}
    public var name: String { "json" }
    public func fileName(for workload: String) -> String { workload + ".json" }

    public func render(_ results: [PointResult], headline: Headline, context: MachineContext) -> String {
        GoogleBenchmarkReport.json(results, headline: headline, context: context)
    }

    public func read(_ text: String) throws(ResultsReadError) -> ResultsDocument {
        try GoogleBenchmarkReader.read(text)
    }
}

/// The CSV through the seam: `CSVReport` writes it; the machine context is not in it.
public struct CSVFormat: ResultsFormat {
    /// The format; stateless, so making one costs nothing.
    public init() {}
    public var name: String { "csv" }
    public func fileName(for workload: String) -> String { workload + ".csv" }

    public func render(_ results: [PointResult], headline: Headline, context: MachineContext) -> String {
        CSVReport.csv(results, headline: headline)
    }
}

/// pytest-benchmark's JSON through the seam: `PytestBenchmarkReport` writes it.
public struct PytestBenchmarkFormat: ResultsFormat {
    /// The format; stateless, so making one costs nothing.
    public init() {}
    public var name: String { "pytest-benchmark" }
    public func fileName(for workload: String) -> String { workload + ".pytest-benchmark.json" }

    public func render(_ results: [PointResult], headline: Headline, context: MachineContext) -> String {
        PytestBenchmarkReport.json(results, headline: headline, context: context)
    }
}
