import Reporting

/// A reporter of this package's own (docs/EXTENDING.md, section 11): every contender's ratio to its workload's
/// reference at every point, one tab-separated line each, for a spreadsheet or `sort -t$'\t' -k5 -g`. It reads the
/// run as every built-in reporter does (`RunAnalysis`), so its ratios are the report's, intervals and all.
struct RatiosReporter: RunReporter {
    var name: String { "ratios" }
    var summary: String { "ratios.tsv: every contender's ratio to its workload's reference at every point, with its interval" }

    func outputs(_ run: RunAnalysis) -> [ReportOutput] {
        var lines = ["workload\tpoint\tengine\treference\tratio\tlow\thigh\tunstable"]
        for workload in run.workloads {
            guard let reference = workload.reference else { continue }
            for path in workload.paths {
                for engine in workload.engines where engine != reference {
                    guard let ratio = workload.ratioToReference(engine, at: path) else { continue }
                    let cells = [
                        workload.name, path.isEmpty ? "-" : path, engine, reference, "\(ratio.value)",
                        ratio.low.map { "\($0)" } ?? "", ratio.high.map { "\($0)" } ?? "", ratio.isUnstable ? "yes" : "no",
                    ]
                    lines.append(cells.joined(separator: "\t"))
                }
            }
        }
        return [.file("ratios.tsv", lines.joined(separator: "\n") + "\n")]
    }
}
