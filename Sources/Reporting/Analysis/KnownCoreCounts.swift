/// What the committed runs on other core counts say, so that a report's summary says where its answer is known to
/// change with cores: results/reference (2 cores) and results/reference-16-cores (16 cores), side by side as
/// results/machines puts them. The data is `known-core-counts.md` beside this file, compiled in (SwiftPM's
/// `embedInCode`), whose lines between its markers `arena docs` writes from those records (`DocFigures`,
/// `machines.known`); a test fails when they differ from what the records say. Parsed on first use (a few lines).
public enum KnownCoreCounts {
    /// Where the committed runs are, as the summary names them.
    public static let source = "results/machines"

    /// One machine's text for a workload: its core count and its verdict or answer.
    public typealias Entry = (cores: Int, text: String)

    /// Per workload whose verdict differs between the committed machines: each machine's cores and verdict.
    static var verdicts: [String: [Entry]] { table.verdicts }

    /// Per workload that gives a summary answer (queue, actor or lock?): each machine's cores and answer.
    static var answers: [String: [Entry]] { table.answers }

    /// The core counts of the committed machines, fewest first.
    static var cores: [Int] {
        Array(Set([table.verdicts, table.answers].flatMap { $0.values.flatMap { $0.map(\.cores) } })).sorted()
    }

    /// The entries of `known` for core counts other than `cores` (every one when `cores` is unknown).
    static func others(_ known: [Entry]?, than cores: Int?) -> [Entry] { (known ?? []).filter { $0.cores != cores } }

    /// The file's lines, `verdict` or `answer`, the workload, the cores and the text, tab-separated.
    private static let table: (verdicts: [String: [Entry]], answers: [String: [Entry]]) = {
        var verdicts: [String: [Entry]] = [:]
        var answers: [String: [Entry]] = [:]
        for line in String(decoding: PackageResources.known_core_counts_md, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3).map(String.init)
            guard fields.count == 4, let cores = Int(fields[2]) else { continue }
            switch fields[0] {
            case "verdict": verdicts[fields[1], default: []].append((cores, fields[3]))
            case "answer": answers[fields[1], default: []].append((cores, fields[3]))
            default: continue
            }
        }
        return (verdicts, answers)
    }()

    /// The lines of the table for `machines`: a `verdict` line per machine of each workload whose verdict differs
    /// between them, an `answer` line per machine of each workload that gives one.
    static func lines(_ machines: MachinesReport) -> String {
        var text = ""
        for workload in machines.workloads where !workload.verdictsAgree {
            for (machine, analysis) in zip(machines.machines, workload.analyses) {
                text += "verdict\t\(workload.name)\t\(machine.cores)\t\(MachinesReport.verdictText(analysis))\n"
            }
        }
        for (workload, answers) in machines.answers() {
            for (machine, answer) in zip(machines.machines, answers) {
                guard let answer else { continue }
                text += "answer\t\(workload)\t\(machine.cores)\t\(answer)\n"
            }
        }
        return text
    }
}
