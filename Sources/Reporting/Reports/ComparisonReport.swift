import Bench

/// A `Comparison` as an aligned text table, one row per point, a line with the verdict counts, and the two runs'
/// agreement on their answers (`Stability`).
public enum ComparisonReport {
    public static func table(_ comparison: Comparison, baselineName: String, candidateName: String) -> String {
        var rows = [["point", "unit", "A median", "B median", "B/A of geometric means (95%)", "p (U test)", "verdict", "note"]]
        for row in comparison.rows {
            rows.append([
                row.name, row.unit,
                row.baseline.map(Figures.format) ?? "-", row.candidate.map(Figures.format) ?? "-",
                row.ratio.map { ConsoleReport.ratioText($0) } ?? "-",
                row.pValue.map { Figures.fixed($0, 3) } ?? "-",
                row.verdict.rawValue, row.note ?? "",
            ])
        }
        var text = "A = \(baselineName)\nB = \(candidateName)\n"
        // The point, the unit, the verdict and the note are text; the figures are aligned on the right.
        for line in TextTable.lines(rows, leftAligned: [0, 1, 6, 7]) {
            text += line + "\n"
        }
        var counts: [Comparison.Verdict: Int] = [:]
        for row in comparison.rows { counts[row.verdict, default: 0] += 1 }
        let order: [Comparison.Verdict] = [.same, .improved, .regressed, .failed, .fixed, .bothFailed, .missing]
        let summary = order.compactMap { verdict in counts[verdict].map { "\($0) \(verdict.rawValue)" } }
        text +=
            "\(comparison.rows.count) points: " + summary.joined(separator: ", ")
            + "; a point counts as regressed or improved when it moved by more than the threshold, "
            + "\(Figures.fixed(comparison.threshold * 100, 1))% of A's median in its headline's direction, and beyond the "
            + "noise: B/A's 95% interval (Welch on the repetitions' logarithms: a ratio of geometric means, which can "
            + "differ from the medians' where repetitions spread) excludes 1, or, where there is no interval (a value "
            + "not positive), p is below \(Figures.fixed(comparison.significance ?? Comparison.defaultSignificance, 2)); "
            + "p: two-sided Mann–Whitney U over the repetitions, where each side has at least "
            + "\(Comparison.minimumRepetitions)\n"
        return text + comparison.stability.summary
    }
}
