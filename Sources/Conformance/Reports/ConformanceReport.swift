import ArenaContract
import FoundationEssentials

/// The conformance matrix of one `arena conform` run, and its three renderings. It only formats: the results
/// come from `ConformanceRunner`.
public struct ConformanceReport: Sendable, Codable {
    public struct RuleDescription: Sendable, Codable {
        public let id: String
        public let concept: String
        public let title: String
        public let source: String
        /// The layer the rule checks (`Rule.layer`).
        public let layer: Capability?
        /// The contender that decides the rule: the one holding the reference role of `Rule.referenceLayer` in the
        /// lineup that ran it; absent when the lineup had none.
        public let reference: String?
    }

    public let engines: [EngineDescription]
    public let rules: [RuleDescription]
    public let results: [RuleResult]

    /// The matrix of `results` for `rules` on `engines`; `references` names the contender holding each layer's
    /// reference role (`Rule.referenceLayer`), which decides the rule and which the details hold the others against.
    public init(engines: [EngineDescription], rules: [Rule], results: [RuleResult], references: [Capability: String] = [:]) {
        self.engines = engines
        self.rules = rules.map {
            RuleDescription(
                id: $0.id, concept: $0.concept.rawValue, title: $0.title, source: $0.source, layer: $0.layer,
                reference: references[$0.referenceLayer])
        }
        self.results = results
    }

    /// Whether any result failed or timed out.
    public var hasFailures: Bool { results.contains { $0.status.isFailure } }

    private func result(_ engine: String, _ rule: String) -> RuleResult? {
        results.first { $0.engine == engine && $0.rule == rule }
    }

    /// How many results of each status `engine` has, and how many rules it was not checked on (`-` cells: the GCD
    /// rules for a contender that stands for an operation layer only).
    private func counts(_ engine: String) -> String {
        let own = results.filter { $0.engine == engine }
        let notChecked = rules.count - own.count
        return
            (Status.allCases.compactMap { status in
                let count = own.filter { $0.status == status }.count
                return count == 0 ? nil : "\(count) \(status.rawValue)"
            } + (notChecked > 0 ? ["\(notChecked) not checked (-)"] : [])).joined(separator: ", ")
    }

    private var notable: [RuleResult] { results.filter { $0.status != .pass } }

    /// The contender that decides the contract of `rule` (docs/ARCHITECTURE.md, "The layer references"), when the
    /// matrix has one.
    private func reference(for rule: String) -> String? {
        rules.first { $0.id == rule }?.reference
    }

    /// Passes of rules the reference does not keep here (it lacks a capability the rule needs): an engine going
    /// beyond the reference, which the details say, since a plain `pass` beside `unsupported` reads like a gap.
    private var beyondReference: [RuleResult] {
        results.filter { outcome in
            guard let reference = reference(for: outcome.rule) else { return false }
            return outcome.status == .pass && outcome.engine != reference
                && result(reference, outcome.rule)?.status == .unsupported
        }
    }

    /// What the details say of a pass the reference lacks.
    private func beyondNote(_ rule: String) -> String {
        "beyond the reference: \(reference(for: rule) ?? "the reference") lacks what the rule needs on this platform (see its unsupported detail)"
    }

    /// What the details say of a result that did not pass: its detail, or with several runs how many passed and the
    /// histogram by outcome key (`17 of 20 runs passed; early 2, timeout 1`), then a line per key with its example.
    private func explanation(_ result: RuleResult) -> (summary: String, failures: [String]) {
        guard result.repeats > 1 else { return (result.detail, []) }
        return (
            "\(result.passes) of \(result.repeats) runs passed; \(result.histogram)",
            result.failures.map { "\($0.outcome) \($0.count)× (\($0.status.rawValue)), e.g. \($0.example)" }
        )
    }

    /// A fixed-width matrix for a terminal, with the details of every non-pass below it. A cell is the status and
    /// the wall time; with more than one run, also how many passed (`fail 17/20 9.1s`).
    public func table() -> String {
        let idWidth = max(4, rules.map(\.id.count).max() ?? 0)
        func cell(_ result: RuleResult) -> String {
            let runs = result.repeats > 1 ? " \(result.passes)/\(result.repeats)" : ""
            return "\(result.status.rawValue)\(runs) \(format(result.seconds))"
        }
        let columnWidth = max(12, engines.map(\.name.count).max() ?? 0, results.map { cell($0).count }.max() ?? 0) + 2
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = [pad("rule", idWidth + 2) + engines.map { pad($0.name, columnWidth) }.joined()]
        for rule in rules {
            lines.append(pad(rule.id, idWidth + 2) + engines.map { pad(result($0.name, rule.id).map(cell) ?? "-", columnWidth) }.joined())
        }
        lines.append("")
        for engine in engines { lines.append("\(engine.name): \(counts(engine.name))") }
        if !notable.isEmpty || !beyondReference.isEmpty {
            lines.append("")
            for result in notable {
                let (summary, failures) = explanation(result)
                lines.append("\(result.engine) \(result.rule) \(result.status.rawValue): \(summary)")
                lines += failures.map { "    " + $0 }
            }
            for result in beyondReference { lines.append("\(result.engine) \(result.rule) pass: \(beyondNote(result.rule))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Markdown matrix with a details section; with more than one run, cells say how many passed.
    public func markdown() -> String {
        var lines = [
            "| Rule | " + engines.map(\.name).joined(separator: " | ") + " |",
            "| --- |" + String(repeating: " --- |", count: engines.count),
        ]
        for rule in rules {
            let cells = engines.map { engine in
                result(engine.name, rule.id).map {
                    $0.repeats > 1 ? "\($0.status.rawValue) (\($0.passes)/\($0.repeats))" : $0.status.rawValue
                } ?? "-"
            }
            lines.append("| `\(rule.id)` | " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        for engine in engines { lines.append("- **\(engine.name)**: \(counts(engine.name))") }
        if !notable.isEmpty || !beyondReference.isEmpty {
            lines.append("")
            lines.append("### Details")
            lines.append("")
            for result in notable {
                let (summary, failures) = explanation(result)
                lines.append("- `\(result.rule)` on **\(result.engine)**: \(result.status.rawValue), \(summary)")
                lines += failures.map { "  - " + $0 }
            }
            for result in beyondReference { lines.append("- `\(result.rule)` on **\(result.engine)**: pass, \(beyondNote(result.rule))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The JSON other tools read: `{"engines": [...], "rules": [...], "results": [...]}`, each result with its runs
    /// (`repeats`), how many passed (`passes`) and every distinct failure with its count (`failures`).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    private func format(_ seconds: Double) -> String {
        seconds < 10 ? String(Double(Int(seconds * 100)) / 100) + "s" : "\(Int(seconds))s"
    }
}
