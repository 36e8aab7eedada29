import ArenaContract
import Bench

/// The workloads (`arena list --workloads`): their names, one per line, for scripts; with `--format markdown`, a table
/// of each workload's name, what it measures, its headline figure, the capabilities an engine needs for it and its
/// parameters with their values (`Workload.parameters(_:)`: a full run's, and a quick run's where they differ; the
/// values `--point NAME:VALUE` takes).
/// docs/BENCHMARKS.md holds that table between two marker lines, and a test keeps the two equal.
struct WorkloadSummary: Printable {
    let workloads: [any Workload]
    static var formats: [OutputFormat] { [.markdown] }

    /// The names, one per line: what `arena list --workloads` prints without `--format`.
    var names: String { workloads.map { $0.name + "\n" }.joined() }

    func text(_ format: OutputFormat) -> String {
        var lines = ["| Workload | What it measures | Headline | Needs | Parameters |", "| --- | --- | --- | --- | --- |"]
        for workload in workloads {
            let needs = workload.requirements.sorted().map { "`\($0.rawValue)`" }.joined(separator: ", ")
            let cells = [
                "`\(workload.name)`", Self.escaped(workload.summary), Self.headline(workload.headline), needs,
                Self.escaped(Self.parameters(of: workload)),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// "`mode` sync, async-write; `threads` 1, 2, 4, 8, 16 (quick 1, 2, 4, 8)": each parameter and the values of a
    /// full run (default settings), with a quick run's where they differ; "none" for a workload without parameters.
    static func parameters(of workload: any Workload) -> String {
        let full = workload.parameters(BenchSettings()), quick = workload.parameters(.quickDefaults())
        guard !full.isEmpty else { return "none" }
        return full.map { declaration in
            var text = "`\(declaration.name)` " + declaration.values.joined(separator: ", ")
            if let other = quick.first(where: { $0.name == declaration.name }), other.values != declaration.values {
                text += " (quick " + other.values.joined(separator: ", ") + ")"
            }
            return text
        }.joined(separator: "; ")
    }

    /// The headline's unit and which way is better.
    static func headline(_ headline: Headline) -> String {
        "\(headline.title), \(headline.higherIsBetter ? "higher" : "lower") is better"
    }

    /// `text` with its pipes escaped, so it stays in one table cell.
    static func escaped(_ text: String) -> String { text.replacing("|", with: "\\|") }
}
