/// Aligned plain-text columns for the console reports: each column as wide as its widest cell, text columns padded
/// on the right and number columns on the left, two spaces between columns, no trailing spaces.
public enum TextTable {
    /// The lines of `rows` (the header first); `leftAligned` names the columns that hold text.
    public static func lines(_ rows: [[String]], leftAligned: Set<Int>) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return leftAligned.contains(column) ? cell + pad : pad + cell
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
