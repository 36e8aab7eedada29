/// The result of one rule on one engine.
public enum Status: String, Sendable, Codable, CaseIterable {
    case pass, fail, unsupported, timeout

    /// Whether this result makes `arena conform` exit non-zero.
    public var isFailure: Bool { self == .fail || self == .timeout }
}

/// How one run of a rule ended: `pass`, `fail` or `timeout`, and what was observed (for a passing misuse rule, the
/// diagnostic seen); `unsupported` when it could not run, with the engine's reason.
public struct RunOutcome: Sendable, Codable, Equatable {
    public let status: Status
    public let detail: String

    public init(_ status: Status, _ detail: String = "") {
        self.status = status
        self.detail = detail
    }
}

/// One cell of the conformance matrix: every run of one rule on one engine, as a histogram of outcomes (how
/// jcstress reports a test: each distinct outcome with how often it was seen).
public struct RuleResult: Sendable, Codable {
    /// One distinct way runs did not pass, and how many runs ended that way.
    public struct Failure: Sendable, Codable, Equatable {
        public let status: Status
        public let detail: String
        public let count: Int

        public init(status: Status, detail: String, count: Int) {
            self.status = status
            self.detail = detail
            self.count = count
        }
    }

    public let engine: String
    public let rule: String
    /// `pass` when every run passed; `fail` when a run failed; `timeout` when runs only passed or timed out;
    /// `unsupported` when the rule did not run.
    public let status: Status
    /// What was observed (fail, timeout: the most frequent failure of that status, with how many runs saw it when
    /// there were several), the reason (unsupported) or the diagnostic seen (misuse pass).
    public let detail: String
    /// Wall time over all runs.
    public let seconds: Double
    /// How many runs were made.
    public let repeats: Int
    /// How many of them passed.
    public let passes: Int
    /// Every distinct failure with its count, most frequent first (ties in the order first seen).
    public let failures: [Failure]

    /// The result of `outcomes`, the runs in the order they ended. An `unsupported` outcome (a child asked to run a
    /// rule its engine lacks a capability for) makes the result `unsupported`.
    public init(engine: String, rule: String, outcomes: [RunOutcome], seconds: Double) {
        if let skipped = outcomes.first(where: { $0.status == .unsupported }) {
            self.init(engine: engine, rule: rule, unsupported: skipped.detail)
            return
        }
        var failures: [Failure] = []
        for outcome in outcomes where outcome.status != .pass {
            if let index = failures.firstIndex(where: { $0.status == outcome.status && $0.detail == outcome.detail }) {
                let seen = failures[index]
                failures[index] = Failure(status: seen.status, detail: seen.detail, count: seen.count + 1)
            } else {
                failures.append(Failure(status: outcome.status, detail: outcome.detail, count: 1))
            }
        }
        // A stable sort: equal counts keep the order they were first seen in.
        failures = failures.enumerated().sorted { ($0.element.count, -$0.offset) > ($1.element.count, -$1.offset) }.map(\.element)
        let status: Status
        let detail: String
        if !failures.isEmpty {
            status = failures.contains { $0.status == .fail } ? .fail : .timeout
            let shown = failures.first { $0.status == status }!
            let prefix = outcomes.count == 1 ? "" : "\(shown.count) of \(outcomes.count) runs: "
            let others = failures.count - 1
            detail = prefix + shown.detail + (others == 0 ? "" : " (and \(others) other failure\(others == 1 ? "" : "s"))")
        } else if outcomes.isEmpty {
            (status, detail) = (.fail, "no run was made")
        } else {
            (status, detail) = (.pass, outcomes.first { !$0.detail.isEmpty }?.detail ?? "")
        }
        self.init(
            engine: engine, rule: rule, status: status, detail: detail, seconds: (seconds * 1000).rounded() / 1000,
            repeats: outcomes.count, passes: outcomes.count { $0.status == .pass }, failures: failures)
    }

    /// A rule that did not run: the engine lacks a capability it needs.
    public init(engine: String, rule: String, unsupported reason: String) {
        self.init(engine: engine, rule: rule, status: .unsupported, detail: reason, seconds: 0, repeats: 0, passes: 0, failures: [])
    }

    private init(
        engine: String, rule: String, status: Status, detail: String, seconds: Double, repeats: Int, passes: Int,
        failures: [Failure]
    ) {
        self.engine = engine
        self.rule = rule
        self.status = status
        self.detail = detail
        self.seconds = seconds
        self.repeats = repeats
        self.passes = passes
        self.failures = failures
    }
}
