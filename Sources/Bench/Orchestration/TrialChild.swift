import ArenaContract
import FoundationEssentials
import Harness

/// One contender's process at one point, as its parent starts it: which engine, which point, under which settings,
/// with the parent's calibrated spin, and how much of the point's budget the contender has left.
public struct TrialRequest: ChildRequest, Equatable {
    public static let kind = "trials"

    public let engine: String
    public let point: Point
    public let settings: BenchSettings
    /// The parent's `Spinner.stepsPerMicrosecond`: every process of a run spins the same simulated work.
    public let spinnerStepsPerMicrosecond: Double
    /// The budget left to this contender at this point, in seconds (its session's budget).
    public let budgetSeconds: Double
    /// How long the process may live at most, waiting for its turns included: the alarm that ends it if its parent
    /// is gone and a trial hangs.
    public let lifetimeSeconds: Double

    public init(
        engine: String, point: Point, settings: BenchSettings, spinnerStepsPerMicrosecond: Double, budgetSeconds: Double,
        lifetimeSeconds: Double
    ) {
        self.engine = engine
        self.point = point
        self.settings = settings
        self.spinnerStepsPerMicrosecond = spinnerStepsPerMicrosecond
        self.budgetSeconds = budgetSeconds
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// The process's backstop: its lifetime.
    public var limit: Duration { .milliseconds(Int64(lifetimeSeconds * 1000)) }

    /// The settings the session measures under: the run's, with this contender's budget left.
    var sessionSettings: BenchSettings {
        var settings = settings
        settings.budgetSeconds = budgetSeconds
        return settings
    }
}

/// A benchmark child's conversation with its parent (`ChildTrialProcess` is the parent's side): a session on one
/// point (`PointSession`), driven by one command per line on standard input, each answered by one JSON line on the
/// answer pipe (`ChildSession`). Between commands the child blocks on its standard input and uses no CPU; the parent
/// hands the turn to another contender's process meanwhile.
///
/// Commands: `warm-up` (or `warm-up N [B]`: warm with N operations, the count another process of this contender
/// chose, and take B as the baseline it measured),
/// `trial R` (measure the repetition of round R), `finish` (send the result and leave). A wrong answer, a budget run
/// out or an unknown command is answered with `failed` and ends the child.
public enum TrialChild {
    /// What the child answers.
    public enum Answer: Codable, Sendable {
        /// Warmed up: every trial runs `operations` operations; the workload's baseline, if it has one.
        case ready(operations: Int, baseline: Double?)
        /// The repetition of round `round` was measured in `wallNanoseconds`.
        case measured(round: Int, wallNanoseconds: UInt64)
        /// The session's result: every repetition, the resources, the merged latencies.
        case finished(PointResult)
        /// Why the session ended without a result.
        case failed(Failure)
    }

    /// The child's whole life: arms the lifetime alarm, answers each command, and leaves with `_exit` when told to
    /// finish, on a failure, or when the parent closes its end (it never waits for a wedged engine's threads).
    public static func main(_ request: TrialRequest, session: (Point, PointRunner) -> PointSession?) -> Never {
        let channel = ChildChannel<Answer>(marker: "")
        channel.armBackstop(request.limit)
        let runner = PointRunner(
            settings: request.sessionSettings, spinner: Spinner(stepsPerMicrosecond: request.spinnerStepsPerMicrosecond))
        guard let session = session(request.point, runner) else {
            send(.failed(Failure(.error, "engine '\(request.engine)' has no workload '\(request.point.workload)'")))
            channel.leave()
        }
        while let command = ChildSession.nextCommand() {
            let words = command.split(separator: " ")
            do throws(WorkloadError) {
                switch (words.first, words.count) {
                case ("warm-up", 1):
                    send(.ready(operations: try session.warmUp(), baseline: session.baseline))
                case ("warm-up", 2...3) where Int(words[1]) != nil && (words.count == 2 || Double(words[2]) != nil):
                    let baseline = words.count == 3 ? Double(words[2]) : nil
                    send(.ready(operations: try session.warmUp(operations: Int(words[1])!, baseline: baseline), baseline: session.baseline))
                case ("trial", 2) where Int(words[1]) != nil:
                    let repetition = try session.measure(round: Int(words[1])!)
                    send(.measured(round: repetition.round ?? 0, wallNanoseconds: repetition.wallNanoseconds))
                case ("finish", 1):
                    send(.finished(session.finish()))
                    channel.leave()
                default:
                    send(.failed(Failure(.error, "the child does not know the command '\(command)'")))
                    channel.leave()
                }
            } catch {
                send(.failed(session.fail(error).failure!))
                channel.leave()
            }
        }
        channel.leave()
    }

    /// Throws unless the request's point is one its workload, found by name among `workloads`, declares under the
    /// request's settings (`Workload.check(_:settings:)`): the child says so in one line instead of measuring. Costs
    /// the workload's `points` and `parameters` once.
    public static func check(_ request: TrialRequest, among workloads: [any Workload]) throws(UndeclaredPoint) {
        let name = request.point.workload
        guard let workload = workloads.first(where: { $0.name == name }) else {
            throw UndeclaredPoint("no workload '\(name)' (known: \(workloads.map(\.name).joined(separator: ", ")))")
        }
        try workload.check(request.point, settings: request.settings)
    }

    private static func send(_ answer: Answer) {
        ChildSession.answer(String(decoding: try! JSONEncoder().encode(answer), as: UTF8.self))
    }
}
