import Bench

/// A results CSV as `arena bench` writes it (`CSVReport`), read back for plotting: which columns are the workload's
/// parameters, the values each one takes, and the cells of every row.
///
/// The layout it recognises: `engine` first, then one column per parameter, then `threads`, `metric`, `median`, and
/// further figures among which `min` and `max`. Any other CSV is not a results CSV (`init` returns `nil`).
public struct ResultsCSV: Sendable {
    /// One parameter column.
    public struct ParameterColumn: Sendable, Equatable {
        /// The parameter's name in the workload's points (`threads` for the column `param_threads`).
        public let name: String
        /// Its column in the CSV.
        public let column: String
        /// The distinct values, in the workload's point order (rows read in order; a value first met in a later engine's
        /// rows is placed after the value that precedes it there). Empty cells (a point without the parameter) are
        /// not values.
        public let values: [String]

        /// Whether every value is a number.
        public var isNumeric: Bool { !values.isEmpty && values.allSatisfy { Double($0) != nil } }
        /// Whether it takes more than one value.
        public var varies: Bool { values.count > 1 }
    }

    /// The column names.
    public let header: [String]
    /// The data rows, each as long as the header (short rows are padded with empty cells).
    public let rows: [[String]]
    /// The parameter columns, in the CSV's order.
    public let parameters: [ParameterColumn]

    /// Reads `text`; `nil` when it is not a results CSV.
    public init?(_ text: String) {
        let records = Self.records(text)
        guard let header = records.first, header.first == "engine",
            let threads = header.indices.first(where: { index in
                header[index] == "threads" && index + 2 < header.count
                    && header[index + 1] == "metric" && header[index + 2] == "median"
            }),
            header.contains("min"), header.contains("max")
        else { return nil }
        self.header = header
        let rows = records.dropFirst().filter { $0 != [""] }.map { row in
            row.count >= header.count ? Array(row.prefix(header.count)) : row + Array(repeating: "", count: header.count - row.count)
        }
        self.rows = rows
        let reserved = Set(CSVReport.leadingColumns + CSVReport.figureColumns + CSVReport.trailingColumns)
        parameters = (1..<threads).map { index in
            let column = header[index]
            let unprefixed = String(column.dropFirst("param_".count))
            let name = column.hasPrefix("param_") && reserved.contains(unprefixed) ? unprefixed : column
            return ParameterColumn(name: name, column: column, values: Self.values(in: index, of: rows))
        }
    }

    /// The index of `column` in the header.
    public func index(of column: String) -> Int? { header.firstIndex(of: column) }

    /// The cell of `row` in `column`; empty when there is no such column.
    public func cell(_ row: [String], _ column: String) -> String {
        index(of: column).map { row[$0] } ?? ""
    }

    /// The engines with rows, in the order first seen.
    public var engines: [String] {
        var seen: [String] = []
        for row in rows where !row[0].isEmpty && !seen.contains(row[0]) { seen.append(row[0]) }
        return seen
    }

    /// The distinct values of column `index`, in point order: each engine's rows list the points in the workload's
    /// order, so a value that the first engine lacks goes after the value the engine that has it measured before it
    /// (or before the one it measured next), not at the end.
    static func values(in index: Int, of rows: [[String]]) -> [String] {
        var order: [String] = []
        var run: [String] = []
        var engine: String?
        func merge() {
            for (position, value) in run.enumerated() where !order.contains(value) {
                if position > 0, let previous = order.firstIndex(of: run[position - 1]) {
                    order.insert(value, at: previous + 1)
                } else if let next = run[(position + 1)...].first(where: order.contains), let at = order.firstIndex(of: next) {
                    order.insert(value, at: at)
                } else {
                    order.append(value)
                }
            }
            run = []
        }
        for row in rows {
            if row[0] != engine { merge(); engine = row[0] }
            let value = row[index]
            if !value.isEmpty && !run.contains(value) { run.append(value) }
        }
        merge()
        return order
    }

    /// The records of an RFC 4180 text (quoted cells may hold commas, quotes doubled, and line breaks); lines end in
    /// "\n" or "\r\n".
    static func records(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var cell = ""
        var quoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" { cell.unicodeScalars.append("\""); pending = scalars.next() } else { quoted = false }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",": record.append(cell); cell = ""
            case "\r" where pending == "\n": continue
            case "\n": record.append(cell); records.append(record); record = []; cell = ""
            default: cell.unicodeScalars.append(scalar)
            }
        }
        if !cell.isEmpty || !record.isEmpty { record.append(cell); records.append(record) }
        return records
    }
}
