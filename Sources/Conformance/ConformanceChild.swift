import ArenaContract
import Harness

/// One rule on one engine, as a child process is asked to run it: the runs to make, each under its watchdog.
public struct RuleRequest: ChildRequest, Equatable {
    public static let kind = "rule"

    public let engine: String
    public let rule: String
    /// Runs inside the child (a misuse child always makes one).
    public let repeats: Int
    /// The watchdog of one run, in seconds.
    public let timeoutSeconds: Double
    /// Whether the child runs the rule beside a `StressLoad`.
    public let stress: Bool

    public init(engine: String, rule: String, repeats: Int, timeout: Duration, stress: Bool = false) {
        self.engine = engine
        self.rule = rule
        self.repeats = repeats
        timeoutSeconds = timeout.seconds
        self.stress = stress
    }

    public var timeout: Duration { .milliseconds(Int64(timeoutSeconds * 1000)) }

    /// How long the parent waits for the whole child: every run's watchdog plus time to start and stop.
    public var limit: Duration { timeout * repeats + .seconds(5) }
}

/// Starts a child process for a request and waits for it (`ReexecLauncher` in the arena; a test may count or fake
/// the children).
public protocol ChildLauncher: Sendable {
    func launch(_ request: RuleRequest) -> ChildOutcome
}

/// The child's side, and the parent's reading of what a child printed. Every rule runs in a process of its own
/// when a launcher is given: a deadlocked engine keeps its stuck threads to itself, and a crash becomes a `fail`
/// of that one run instead of the end of the whole run.
///
/// A behaviour child writes one line per run, `arena-run: {"status":…,"detail":…}`, on standard error as the run
/// ends. Standard error, because that is where a sanitizer writes its reports: in one stream, a report lands
/// before the line of the run it happened in, so the parent can fail that run and not the others.
public enum ConformanceChild {
    /// The line that carries one run's outcome on standard error.
    static let channel = ChildChannel<RunOutcome>(marker: "arena-run: ")

    /// Whether this process is a rule's child (`main` ran): only such a process may install a global executor, for
    /// good, for a `GlobalExecutorRule`. Set once, before the rule's first run.
    nonisolated(unsafe) static var hostsRule = false

    /// The child's whole life. A misuse rule misuses the engine and should die; a behaviour rule runs in-process
    /// under the watchdog, `repeats` times (fewer if a run times out), each run reported as it ends.
    ///
    /// A rule that needs the main loop gets the calling thread, the one the process started on, as the engine's
    /// main-loop thread (`system` accepts no other) and runs on a thread of its own.
    public static func main<E: Engine>(_ request: RuleRequest, engine: E, rule: Rule) -> Never {
        hostsRule = true
        channel.armBackstop(request.limit)
        live(request, engine: engine, rule: rule)
    }

    /// As `main`, for a child whose entry point is async (a Swift Testing exit test). The rule runs and reports on
    /// a thread of its own while the caller stays suspended for good: it holds none of the workers libdispatch
    /// shares with the cooperative pool, and a wedged engine holding all of them cannot stop the report. A rule
    /// that needs the main loop gets a new thread for it: the async entry point has no thread to give (Swift's async
    /// main called `dispatch_main()` on the first one), so `system` refuses it and dies saying so.
    public static func main<E: Engine>(_ request: RuleRequest, engine: E, rule: Rule) async -> Never {
        hostsRule = true
        channel.armBackstop(request.limit)
        Threads.detach { live(request, engine: engine, rule: rule) }
        while true { try? await Task.sleep(for: .seconds(3600)) }  // the report thread ends the process
    }

    /// The rule's life from the calling thread: for a rule that needs the main loop, that thread becomes the loop's and
    /// the rule lives on another.
    private static func live<E: Engine>(_ request: RuleRequest, engine: E, rule: Rule) -> Never {
        if rule.needsMainLoop { MainLoopThread.run(engine) { life(request, engine: engine, rule: rule) } }
        life(request, engine: engine, rule: rule)
    }

    /// A misuse rule misuses the engine and should die; a behaviour rule's runs are reported and the process ends.
    private static func life<E: Engine>(_ request: RuleRequest, engine: E, rule: Rule) -> Never {
        if rule.isMisuse {
            // The load ends with the process, which the misuse ends; the alarm bounds it otherwise.
            if request.stress { _ = StressLoad.start(until: .now() + request.limit) }
            MisuseChild.run(engine: engine, rule: rule)
        }
        runAndExit(request, engine: engine, rule: rule)
    }

    private static func runAndExit<E: Engine>(_ request: RuleRequest, engine: E, rule: Rule) -> Never {
        let runner = ConformanceRunner(timeout: request.timeout, repeats: request.repeats, stress: request.stress)
        let result = runner.run(rule, on: engine, observing: channel.send)
        if result.status == .unsupported { channel.send(RunOutcome(.unsupported, result.detail)) }
        channel.leave()
    }

    /// The runs a behaviour child reported, and for a child that ended before making them all, one more outcome for
    /// the run it was in: `timeout` when it had to be killed, `fail` when it crashed or exited without a line. A
    /// sanitizer report fails the run it appeared in, whatever the check ended: under `swift test
    /// --sanitize=thread` a data race is a result. (ThreadSanitizer reports each race once per process, so later
    /// runs in the same child may pass over the same race.)
    public static func outcomes(of child: ChildOutcome, for request: RuleRequest) -> [RunOutcome] {
        let transcript = channel.read(child)
        var outcomes: [RunOutcome] = []
        var reported = false  // whether a sanitizer report was seen (it explains a sanitizer's exit code)
        for entry in transcript.entries {
            if let report = sanitizerReport(in: entry.before) {
                outcomes.append(RunOutcome(.fail, report, outcome: .sanitizer))
                reported = true
            } else {
                outcomes.append(
                    entry.message ?? RunOutcome(.fail, "the child wrote an unreadable run line: \(entry.line)", outcome: .crash))
            }
        }
        let late = sanitizerReport(in: transcript.trailing).map { RunOutcome(.fail, $0, outcome: .sanitizer) }
        let ended =
            ChildEnding(child.termination, quoting: transcript.trailing).description.map { RunOutcome(.fail, $0, outcome: .crash) }
            ?? RunOutcome(.timeout, "the child process did not finish within \(request.limit.seconds) s", outcome: .timeout)
        let stopped = [Status.timeout, .unsupported].contains { $0 == outcomes.last?.status }
        guard outcomes.count >= request.repeats || stopped else {
            return outcomes + [late ?? ended]  // the run in progress ended with the child
        }
        // Every run was reported. What came after the last line (a thread still running, the exit itself) is the
        // last run's: a sanitizer report, or a crash or exit status no earlier report explains.
        if let late {
            outcomes[outcomes.count - 1] = late
        } else if child.termination != .exited(0) && !reported {
            outcomes[outcomes.count - 1] = RunOutcome(ended.status, "after its last run: " + ended.detail, outcome: ended.outcome)
        }
        return outcomes
    }

    /// The result of one behaviour child, for callers that start the child themselves (the tests' exit tests).
    public static func result(of child: ChildOutcome, for request: RuleRequest, seconds: Double) -> RuleResult {
        RuleResult(engine: request.engine, rule: request.rule, outcomes: outcomes(of: child, for: request), seconds: seconds)
    }

    /// The first sanitizer warning in `lines` with the first frame of ours it names, if there is one.
    static func sanitizerReport(in lines: [Substring]) -> String? {
        let warnings = ["WARNING: ThreadSanitizer", "ERROR: AddressSanitizer"]
        guard let start = lines.firstIndex(where: { line in warnings.contains { line.contains($0) } }) else { return nil }
        let frame = lines[start...].first { $0.contains("/Sources/") || $0.contains("/Tests/") }
        return ([String(lines[start])] + (frame.map { [String($0.drop { $0 == " " })] } ?? [])).joined(separator: " at ")
    }
}
