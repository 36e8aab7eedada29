import Contenders
import Harness

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

/// Checks rules on engines: the capability gate, repeats, a watchdog per run.
///
/// With a `launcher`, every rule runs in a child process of its own (misuse rules one child per run, behaviour rules
/// one child for all runs). Without one, behaviour rules run in this process, which is what the child itself does,
/// and misuse rules cannot run.
public struct ConformanceRunner: Sendable {
    /// The longest one run of one rule may take.
    public var timeout: Duration
    /// How many times each rule runs; it passes only if every run passes.
    public var repeats: Int
    /// Starts child processes; `nil` runs behaviour rules in this process.
    public var launcher: (any ChildLauncher)?

    public init(timeout: Duration = .seconds(10), repeats: Int = 1, launcher: (any ChildLauncher)? = nil) {
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
        if let launcher, !rule.isMisuse {
            let request = ChildRequest(engine: engine.name, rule: rule.id, repeats: repeats, timeout: timeout)
            return ConformanceChild.result(of: launcher.launch(request), for: request, seconds: (Deadline.now() - start).seconds)
        }
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

    /// Runs `rule` on `engine` from async code without blocking the caller's executor: the run happens on a thread
    /// of its own while the caller is suspended. On Linux the cooperative pool shares libdispatch's workers, so a
    /// blocked pool thread would take one of the engine's workers away and hide concurrency from the checks.
    public func run<E: Engine>(_ rule: Rule, on engine: E) async -> RuleResult {
        await withCheckedContinuation { continuation in
            Threads.detach { continuation.resume(returning: self.run(rule, on: engine)) }
        }
    }

    private func runOnce<E: Engine>(_ rule: Rule, on engine: E) -> (Status, String) {
        if let misuse = rule.misuse {
            guard let launcher else { return (.fail, "misuse rules need a child process, and no launcher was given") }
            let request = ChildRequest(engine: engine.name, rule: rule.id, repeats: 1, timeout: timeout)
            return MisuseVerdict.judge(launcher.launch(request), rule: misuse)
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
