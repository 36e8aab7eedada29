/// A table a report shows: a title, a header row, rows of cells and notes under it. The console prints it in aligned
/// columns and report.md as Markdown; the cells are already formatted (`Figures`). A plain value.
public struct ResultTable: Sendable, Equatable {
    public var title: String
    public var header: [String]
    public var rows: [[String]]
    public var notes: [String]
    /// The columns that hold text (aligned left); the others hold numbers (aligned right).
    public var leftAligned: Set<Int>

    public init(title: String, header: [String], rows: [[String]], notes: [String] = [], leftAligned: Set<Int> = [0]) {
        self.title = title
        self.header = header
        self.rows = rows
        self.notes = notes
        self.leftAligned = leftAligned
    }
}

/// One workload's results as a report hands them to the workload for its own tables (`Workload.extraTables`): every
/// point of every contender, the contenders in display order, and the contender the report takes ratios against.
public struct WorkloadResults: Sendable {
    /// Every point measured, each contender's, in run order (the native floor's among them, where it joined).
    public let results: [PointResult]
    /// The contenders with a point here, in display order.
    public let engines: [String]
    /// The contender the report's ratios are to, if the run has one.
    public let reference: String?

    public init(results: [PointResult], engines: [String], reference: String?) {
        self.results = results
        self.engines = engines
        self.reference = reference
    }
}

extension Workload {
    /// No tables beyond the headline table every workload gets.
    public func extraTables(_ results: WorkloadResults) -> [ResultTable] { [] }

    /// No paragraph in the summary.
    public func summaryAnswer(_ results: WorkloadResults) -> String? { nil }
}
