import Contenders
import FoundationEssentials
import Harness
import Glibc

/// One rule on one engine, as a child process is asked to run it.
public struct ChildRequest: Sendable, Codable, Equatable {
    public let engine: String
    public let rule: String
    /// Runs inside the child (a misuse child always makes one).
    public let repeats: Int
    /// The watchdog of one run, in seconds.
    public let timeoutSeconds: Double

    public init(engine: String, rule: String, repeats: Int, timeout: Duration) {
        self.engine = engine
        self.rule = rule
        self.repeats = repeats
        timeoutSeconds = timeout.seconds
    }

    public var timeout: Duration { .milliseconds(Int64(timeoutSeconds * 1000)) }

    /// How long the parent waits for the whole child: every run's watchdog plus time to start and stop.
    public var limit: Duration { timeout * repeats + .seconds(5) }
}

/// Starts a child process for a request and waits for it.
public protocol ChildLauncher: Sendable {
    func launch(_ request: ChildRequest) -> ChildOutcome
}

/// The child's side, and the parent's reading of what a child printed. Every rule runs in a process of its own
/// when a launcher is given: a deadlocked engine keeps its stuck threads to itself, and a crash becomes a `fail`
/// of that one rule instead of the end of the run.
public enum ConformanceChild {
    /// Marks the line that carries a behaviour child's result on standard output.
    static let resultMarker = "arena-result: "

    /// The child's whole life. A misuse rule misuses the engine and should die; a behaviour rule runs in-process
    /// under the watchdog, `repeats` times, and its result is printed as one JSON line.
    public static func main(_ request: ChildRequest, engine: any Engine, rule: Rule) -> Never {
        begin(request, engine: engine, rule: rule)
        report(ConformanceRunner(timeout: request.timeout, repeats: request.repeats).run(rule, on: engine))
    }

    /// As `main`, for a child whose entry point is async (a Swift Testing exit test). The rule runs and reports on
    /// a thread of its own while the caller stays suspended for good: it holds none of the workers libdispatch
    /// shares with the cooperative pool, and a wedged engine holding all of them cannot stop the report.
    public static func main(_ request: ChildRequest, engine: any Engine, rule: Rule) async -> Never {
        begin(request, engine: engine, rule: rule)
        Threads.detach {
            report(ConformanceRunner(timeout: request.timeout, repeats: request.repeats).run(rule, on: engine))
        }
        while true { try? await Task.sleep(for: .seconds(3600)) }  // the report thread ends the process
    }

    private static func begin(_ request: ChildRequest, engine: any Engine, rule: Rule) {
        // A backstop in case everything else hangs and the parent is gone.
        alarm(UInt32(max(1, Int(request.limit.seconds.rounded(.up)))))
        if rule.isMisuse { MisuseChild.run(engine: engine, rule: rule) }
    }

    private static func report(_ result: RuleResult) -> Never {
        let line = resultMarker + String(decoding: try! JSONEncoder().encode(result), as: UTF8.self) + "\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
        // Threads of a timed-out check may still be blocked: leave without waiting for anything.
        _exit(0)
    }

    /// The result a behaviour child reported, or what its ending says when it reported none. A sanitizer report on
    /// the child's standard error fails the rule whatever the check said: under `swift test --sanitize=thread` a
    /// data race is a result.
    public static func result(of outcome: ChildOutcome, for request: ChildRequest, seconds: Double) -> RuleResult {
        if let report = sanitizerReport(in: outcome.standardError) {
            return RuleResult(engine: request.engine, rule: request.rule, status: .fail, detail: report,
                              seconds: seconds, repeats: request.repeats)
        }
        if let reported = outcome.lastLine(markedWith: resultMarker),
           let result = try? JSONDecoder().decode(RuleResult.self, from: Data(reported.utf8)) {
            return result
        }
        let (status, detail): (Status, String) = switch outcome.termination {
        case .timedOut: (.timeout, "the child process did not finish within \(request.limit.seconds) s")
        case .signalled(let signal): (.fail, "the engine crashed the process (signal \(signal)): \(outcome.firstErrorLine)")
        case .exited(let code): (.fail, "the child exited \(code) without a result: \(outcome.firstErrorLine)")
        }
        return RuleResult(engine: request.engine, rule: request.rule, status: status, detail: detail,
                          seconds: seconds, repeats: request.repeats)
    }

    /// The first sanitizer warning on `standardError` with the first frame of ours it names, if there is one.
    static func sanitizerReport(in standardError: String) -> String? {
        let lines = standardError.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.contains("WARNING: ThreadSanitizer") || $0.contains("ERROR: AddressSanitizer") })
        else { return nil }
        let frame = lines[start...].first { $0.contains("/Sources/") || $0.contains("/Tests/") }
        return ([lines[start]] + (frame.map { [String($0.drop { $0 == " " })] } ?? [])).joined(separator: " at ")
    }
}
