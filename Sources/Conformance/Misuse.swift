import ArenaContract
import Glibc
import Harness

/// Decides a misuse rule from how its child ended: it must die, and say what it died of.
public enum MisuseVerdict {
    /// The run's outcome: `pass` with the diagnostic seen, or `fail` keyed `allowed` (the trigger returned) or `unnamed`
    /// (the child died without naming the object and the misuse), or `timeout`.
    public static func judge(_ outcome: ChildOutcome, rule: any MisuseRule.Type) -> RunOutcome {
        let how: String
        switch outcome.termination {
        case .timedOut:
            return RunOutcome(.timeout, "the child hung instead of diagnosing the misuse", outcome: .timeout)
        case .exited(0):
            return RunOutcome(.fail, "the engine let the misuse pass (the child exited normally)", outcome: .allowed)
        case .exited(let code):
            how = "exit \(code)"
        case .signalled(let signal):
            how = "signal \(signal)"
        }
        let lines = outcome.standardError.split(separator: "\n")
        let named = lines.first { line in
            let lower = line.lowercased()
            return line.contains(rule.objectLabel) && rule.keywords.contains { lower.contains($0.lowercased()) }
        }
        if let named { return RunOutcome(.pass, "\(how): \(named)") }
        let said = ChildOutcome.firstLine(of: lines)
        return RunOutcome(
            .fail, "died (\(how)) without naming '\(rule.objectLabel)' and the misuse; said: \(said)", outcome: .unnamed)
    }
}

/// The child side of a misuse rule: run its trigger and, if it returns, report that the engine let it pass.
enum MisuseChild {
    static func run<E: Engine>(engine: E, rule: Rule) -> Never {
        guard let misuse = rule.misuse else {
            report("rule \(rule.id) is not a misuse rule")
            exit(2)
        }
        trigger(misuse, on: engine)
        report("\(rule.id): the trigger returned; the engine let the misuse pass")
        exit(0)
    }

    private static func trigger<E: Engine>(_ rule: any MisuseRule.Type, on engine: E) {
        rule.trigger(engine)
    }

    private static func report(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}
