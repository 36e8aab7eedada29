/// The result of one rule on one engine.
public enum Status: String, Sendable, Codable, CaseIterable {
    case pass, fail, unsupported, timeout

    /// Whether this result makes `arena conform` exit non-zero.
    public var isFailure: Bool { self == .fail || self == .timeout }
}

/// How one run of a rule ended: `pass`, `fail` or `timeout`, the outcome key of a run that did not pass (`Outcome`),
/// and what was observed (for a passing misuse rule, the diagnostic seen); `unsupported` when it could not run, with
/// the engine's reason.
public struct RunOutcome: Sendable, Codable, Equatable {
    public let status: Status
    /// The key of what a failing or timed-out run saw (`nil` for a pass or an unsupported rule): a fail without one is
    /// `unkeyed`, a timeout without one `timeout`.
    public let outcome: Outcome?
    public let detail: String

    public init(_ status: Status, _ detail: String = "", outcome: Outcome? = nil) {
        self.status = status
        self.detail = detail
        self.outcome =
            switch status {
            case .pass, .unsupported: nil
            case .fail: outcome ?? .unkeyed
            case .timeout: outcome ?? .timeout
            }
    }

    /// A failed run, from what its check threw.
    public init(failure: RuleFailure) { self.init(.fail, failure.observed, outcome: failure.outcome) }

    private enum CodingKeys: String, CodingKey { case status, outcome, detail }

    /// Decodes a run line, giving a line without a key (from a child that predates keys, or a test's script) the key
    /// its status implies.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(Status.self, forKey: .status), try container.decodeIfPresent(String.self, forKey: .detail) ?? "",
            outcome: try container.decodeIfPresent(Outcome.self, forKey: .outcome))
    }
}

/// One cell of the conformance matrix: every run of one rule on one engine, as a histogram keyed by outcome (how
/// jcstress reports a test: each distinct outcome with how often it was seen, and one example of it).
public struct RuleResult: Sendable, Codable {
    /// One outcome runs ended with, how many runs did, and what the first of them saw.
    public struct Failure: Sendable, Codable, Equatable {
        public let status: Status
        public let outcome: Outcome
        public let count: Int
        /// The detail of the first run that ended this way (later runs' numbers differ; the key does not).
        public let example: String

        public init(status: Status, outcome: Outcome, count: Int, example: String) {
            self.status = status
            self.outcome = outcome
            self.count = count
            self.example = example
        }
    }

    public let engine: String
    public let rule: String
    /// `pass` when every run passed; `fail` when a run failed; `timeout` when runs only passed or timed out;
    /// `unsupported` when the rule did not run.
    public let status: Status
    /// What was observed: for one run its key and detail; for several, how many failed and the histogram by key with
    /// the example of the most frequent (`3 of 20 runs: missing 2, timeout 1; missing: round 0 …`). For an
    /// unsupported rule, the reason; for a passing misuse rule, the diagnostic seen.
    public let detail: String
    /// Wall time over all runs.
    public let seconds: Double
    /// How many runs were made.
    public let repeats: Int
    /// How many of them passed.
    public let passes: Int
    /// The histogram: every outcome runs failed with and its count, most frequent first (ties in the order first seen).
    public let failures: [Failure]

    /// The result of `outcomes`, the runs in the order they ended. An `unsupported` outcome (a child asked to run a
    /// rule its engine lacks a capability for) makes the result `unsupported`.
    public init(engine: String, rule: String, outcomes: [RunOutcome], seconds: Double) {
        if let skipped = outcomes.first(where: { $0.status == .unsupported }) {
            self.init(engine: engine, rule: rule, unsupported: skipped.detail)
            return
        }
        var failures: [Failure] = []
        for run in outcomes where run.status != .pass {
            let key = run.outcome ?? .unkeyed
            if let index = failures.firstIndex(where: { $0.status == run.status && $0.outcome == key }) {
                let seen = failures[index]
                failures[index] = Failure(status: seen.status, outcome: key, count: seen.count + 1, example: seen.example)
            } else {
                failures.append(Failure(status: run.status, outcome: key, count: 1, example: run.detail))
            }
        }
        // A stable sort: equal counts keep the order they were first seen in.
        failures = failures.enumerated().sorted { ($0.element.count, -$0.offset) > ($1.element.count, -$1.offset) }.map(\.element)
        let status: Status
        let detail: String
        if !failures.isEmpty {
            status = failures.contains { $0.status == .fail } ? .fail : .timeout
            let shown = failures.first { $0.status == status }!
            if outcomes.count == 1 {
                detail = "\(shown.outcome): \(shown.example)"
            } else {
                let failed = failures.reduce(0) { $0 + $1.count }
                detail = "\(failed) of \(outcomes.count) runs: \(Self.histogram(failures)); \(shown.outcome): \(shown.example)"
            }
        } else if outcomes.isEmpty {
            (status, detail) = (.fail, "no run was made")
        } else {
            (status, detail) = (.pass, outcomes.first { !$0.detail.isEmpty }?.detail ?? "")
        }
        self.init(
            engine: engine, rule: rule, status: status, detail: detail, seconds: (seconds * 1000).rounded() / 1000,
            repeats: outcomes.count, passes: outcomes.count { $0.status == .pass }, failures: failures)
    }

    /// The histogram in one line, most frequent key first: `early 2, timeout 1`.
    public var histogram: String { Self.histogram(failures) }

    private static func histogram(_ failures: [Failure]) -> String {
        failures.map { "\($0.outcome) \($0.count)" }.joined(separator: ", ")
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
