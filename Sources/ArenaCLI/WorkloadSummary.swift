import ArenaContract
import Bench

/// The workloads (`arena list --workloads`): their names, one per line, for scripts; with `--format markdown`, a table
/// of each workload's name, what it measures, its headline figure and the capabilities an engine needs for it.
/// docs/BENCHMARKS.md holds that table between two marker lines, and a test keeps the two equal.
struct WorkloadSummary: Printable {
    let workloads: [any Workload]
    static var formats: [OutputFormat] { [.markdown] }

    /// The names, one per line: what `arena list --workloads` prints without `--format`.
    var names: String { workloads.map { $0.name + "\n" }.joined() }

    func text(_ format: OutputFormat) -> String {
        var lines = ["| Workload | What it measures | Headline | Needs |", "| --- | --- | --- | --- |"]
        for workload in workloads {
            let needs = workload.requirements.sorted().map { "`\($0.rawValue)`" }.joined(separator: ", ")
            let cells = ["`\(workload.name)`", Self.escaped(workload.summary), Self.headline(workload.headline), needs]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// The headline's unit and which way is better.
    static func headline(_ headline: Headline) -> String {
        "\(headline.title), \(headline.higherIsBetter ? "higher" : "lower") is better"
    }

    /// `text` with its pipes escaped, so it stays in one table cell.
    static func escaped(_ text: String) -> String { text.replacing("|", with: "\\|") }
}
