import Bench

/// A file format for one workload's results: what `arena bench` writes into a results folder per workload, and, for
/// a format that can hold every repetition, what `arena report` and `arena compare` read back.
///
/// A format is a value without state; rendering is a pure function of its inputs, so the files of a run can be
/// rewritten after every point. `ResultsFormats.all` lists the built-in ones.
public protocol ResultsFormat: Sendable {
    /// The name a user types to choose the format (`arena bench --results-format json,csv`): lower case, no commas.
    var name: String { get }

    /// The file this format writes for the workload named `workload`, relative to the results folder
    /// (`contention.json`). Distinct formats name distinct files.
    func fileName(for workload: String) -> String

    /// The whole file for `results` (one workload's points, in the order measured) under the workload's `headline`,
    /// measured on the machine `context` describes. Costs one pass over the repetitions; writes nothing.
    func render(_ results: [PointResult], headline: Headline, context: MachineContext) -> String
}

/// A `ResultsFormat` whose files read back into `PointResult`s with their repetitions, so statistics and comparisons
/// can be derived from them again. Formats that keep only summaries are write-only and do not conform.
public protocol ReadableResultsFormat: ResultsFormat {
    /// Parses `text`, a whole file this format wrote (or an equivalent file from another tool). Throws when the text
    /// is not in the format or an entry cannot be read. Costs one JSON parse of the file.
    func read(_ text: String) throws(ResultsReadError) -> ResultsDocument
}

/// What reading a results file gives: the machine context where the file has one, and the points in file order.
public typealias ResultsDocument = GoogleBenchmarkReader.Document

/// A results file that cannot be read, with a message naming what is wrong.
public typealias ResultsReadError = GoogleBenchmarkReader.ReadError
