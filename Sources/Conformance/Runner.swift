import Contenders

/// The result of one rule on one engine.
public enum Status: String, Sendable, Codable, CaseIterable {
    case pass, fail, unsupported, timeout

    /// Whether this result makes `arena conform` exit non-zero.
    public var isFailure: Bool { self == .fail || self == .timeout }
}

/// One cell of the conformance matrix.
public struct RuleResult: Sendable, Codable {
    public let engine: String
    public let rule: String
    public let status: Status
    /// What was observed (fail, timeout), the reason (unsupported) or the diagnostic seen (misuse pass).
    public let detail: String
    /// Wall time over all repeats.
    public let seconds: Double
    /// How many runs were made (the run stops at the first that does not pass).
    public let repeats: Int
}

/// Checks rules on engines: capability gate, repeats, a watchdog per run, misuse rules in a child process.
public struct ConformanceRunner: Sendable {
    /// The longest one run of one rule may take.
    public var timeout: Duration
    /// How many times each rule runs; it passes only if every run passes.
    public var repeats: Int
    /// Starts the child process for misuse rules.
    public var launcher: any MisuseLauncher

    public init(timeout: Duration = .seconds(10), repeats: Int = 1, launcher: any MisuseLauncher) {
        self.timeout = timeout
        self.repeats = repeats
        self.launcher = launcher
    }

    /// Runs `rule` on `engine`.
    public func run<E: Engine>(_ rule: Rule, on engine: E) -> RuleResult {
        if let missing = rule.needs.first(where: { engine.limits[$0] != nil }) {
            return RuleResult(engine: engine.name, rule: rule.id, status: .unsupported,
                              detail: "needs \(missing.rawValue): \(engine.limits[missing]!)", seconds: 0, repeats: 0)
        }
        let start = Deadline.now()
        var runs = 0
        var status = Status.pass
        var detail = ""
        while runs < repeats && status == .pass {
            runs += 1
            (status, detail) = runOnce(rule, on: engine)
        }
        if status != .pass && repeats > 1 { detail = "run \(runs) of \(repeats): \(detail)" }
        return RuleResult(engine: engine.name, rule: rule.id, status: status, detail: detail,
                          seconds: ((Deadline.now() - start).seconds * 1000).rounded() / 1000, repeats: runs)
    }

    private func runOnce<E: Engine>(_ rule: Rule, on engine: E) -> (Status, String) {
        if let misuse = rule.type as? any MisuseRule.Type {
            let outcome = launcher.launch(engine: engine.name, rule: rule.id, timeout: timeout)
            return MisuseVerdict.judge(outcome, rule: misuse)
        }
        guard let behaviour = rule.type as? any BehaviourRule.Type else {
            return (.fail, "rule \(rule.id) is neither a behaviour nor a misuse rule")
        }
        switch Watchdog.run(timeout: timeout, { try behaviour.check(engine) }) {
        case .returned: return (.pass, "")
        case .threw(let observed): return (.fail, observed)
        case .timedOut: return (.timeout, "no result within \(timeout.seconds) s (deadlock or lost wake-up)")
        }
    }
}
