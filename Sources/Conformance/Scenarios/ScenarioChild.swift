import ArenaContract
import Harness

/// Scenarios for a child process to run on one engine (`arena explore`): each token's program, up to `repeats`
/// times or until a run disagrees with the model, each run under a watchdog.
public struct ScenarioRequest: ChildRequest, Equatable {
    public static let kind = "scenarios"

    public let engine: String
    /// The programs, as `ScenarioToken`s.
    public let tokens: [String]
    /// Runs of each program; a program stops at its first disagreement.
    public let repeats: Int
    /// The watchdog of one run, in seconds.
    public let timeoutSeconds: Double
    /// Whether the child runs its scenarios beside a `StressLoad`.
    public let stress: Bool

    public init(engine: String, tokens: [String], repeats: Int, timeout: Duration, stress: Bool) {
        self.engine = engine
        self.tokens = tokens
        self.repeats = repeats
        timeoutSeconds = timeout.seconds
        self.stress = stress
    }

    public var timeout: Duration { .milliseconds(Int64(timeoutSeconds * 1000)) }

    /// Every run's watchdog, plus time to start and stop; the parent kills the child after it.
    public var limit: Duration { timeout * (tokens.count * repeats) + .seconds(5) }
}

/// What one program did in a child: how many runs it made, and the disagreement that ended them, if one did.
public struct ScenarioOutcome: Codable, Sendable, Equatable {
    public let token: String
    public let runs: Int
    public let disagreement: ScenarioDisagreement?

    public init(token: String, runs: Int, disagreement: ScenarioDisagreement?) {
        self.token = token
        self.runs = runs
        self.disagreement = disagreement
    }
}

/// The child's side of `arena explore`, and the parent's reading of what it printed: one `arena-scenario:` line per
/// program on standard error, as `ConformanceChild` reports runs.
public enum ScenarioChild {
    static let channel = ChildChannel<ScenarioOutcome>(marker: "arena-scenario: ")

    /// The child's whole life: every program of `request` on `engine`. A run that outlives its watchdog is reported
    /// as a `timeout` and ends the child, whose engine may now be wedged; the parent goes on in a fresh one.
    public static func main<E: Engine>(_ request: ScenarioRequest, engine: E) -> Never {
        channel.armBackstop(request.limit)
        if request.stress { _ = StressLoad.start(until: .now() + request.limit) }
        let generator = ScenarioGenerator(features: .init(engine.capabilities))
        let operations = OperationGenerator(features: .init(engine.capabilities))
        let executors = ExecutorGenerator(features: .init(engine.capabilities))
        for text in request.tokens {
            let run: @Sendable () -> ScenarioDisagreement?
            do {
                let token = try ScenarioToken(parsing: text)
                switch token.layer {
                case .dispatch:
                    let model = ScenarioModel(try token.scenario(generator))
                    run = { ScenarioRun.run(model, on: engine) }
                case .operations:
                    let program = try token.program(operations)
                    run = { OperationRun.run(program, on: engine, features: operations.features) }
                case .executors:
                    let program = try token.program(executors)
                    let timeout = request.timeout * 0.9
                    run = { ExecutorRun.run(program, on: engine, features: executors.features, timeout: timeout) }
                }
            } catch {
                channel.send(ScenarioOutcome(token: text, runs: 0, disagreement: .init("setup", error.description)))
                continue
            }
            var runs = 0
            var found: ScenarioDisagreement?
            while runs < request.repeats && found == nil {
                runs += 1
                switch Watchdog.run(timeout: request.timeout, { if let found = run() { throw RuleFailure(found.key, found.detail) } }) {
                case .returned: break
                case .threw(let failure): found = .init(failure.outcome, failure.observed)
                case .timedOut:
                    let detail =
                        "a run did not end within \(request.timeoutSeconds) s (a wait without its deadline, or a sync that never ran)"
                    channel.send(ScenarioOutcome(token: text, runs: runs, disagreement: .init(.timeout, detail)))
                    channel.leave()
                }
            }
            channel.send(ScenarioOutcome(token: text, runs: runs, disagreement: found))
        }
        channel.leave()
    }

    /// What a child reported, and for a child that ended before reporting every program, one more outcome for the
    /// program it was in: a crash (with the child's last words) or a timeout.
    public static func outcomes(of child: ChildOutcome, for request: ScenarioRequest) -> [ScenarioOutcome] {
        let transcript = channel.read(child)
        var outcomes = transcript.entries.compactMap(\.message)
        let last = outcomes.last
        if outcomes.count < request.tokens.count && last?.disagreement?.key != .timeout {
            let detail =
                ChildEnding(child.termination, quoting: transcript.trailing).description
                ?? "the child process did not finish within \(request.limit.seconds) s"
            outcomes.append(
                ScenarioOutcome(token: request.tokens[outcomes.count], runs: 1, disagreement: .init(.crash, detail)))
        }
        return outcomes
    }
}
