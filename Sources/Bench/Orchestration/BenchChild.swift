import ArenaContract
import Harness

/// One point on one engine, as a child process is asked to measure it.
public struct PointRequest: ChildRequest, Equatable {
    public static let kind = "point"

    public let engine: String
    public let point: Point
    public let settings: BenchSettings

    public init(engine: String, point: Point, settings: BenchSettings) {
        self.engine = engine
        self.point = point
        self.settings = settings
    }

    /// How long the parent lets the child live: the point's budget, plus time to start, calibrate and report.
    public var limit: Duration { .milliseconds(Int64(settings.budgetSeconds * 1000)) + .seconds(15) }
}

/// Every point runs in a process of its own: a wedged engine's threads die with it, a crash is one point's error,
/// and each point starts clean, so its peak threads and memory are its own. This is both sides of that exchange.
public enum BenchChild {
    /// The line that carries the child's result on standard error.
    static let channel = ChildChannel<PointResult>(marker: "arena-bench-result: ")

    /// The child's whole life: measure the point with `measure` (the named engine's trials, compiled for its type),
    /// report the result as one line, exit at once (threads of a wedged engine may still be blocked; nothing waits
    /// for them).
    public static func main(_ request: PointRequest, measure: (Point, PointRunner) -> PointResult) -> Never {
        channel.armBackstop(request.limit)
        channel.send(measure(request.point, PointRunner(settings: request.settings)))
        channel.leave()
    }

    /// Throws unless the request's point is one its workload, found by name among `workloads`, declares under the
    /// request's settings (`Workload.check(_:settings:)`): the child says so in one line instead of measuring. Costs
    /// the workload's `points` and `parameters` once.
    public static func check(_ request: PointRequest, among workloads: [any Workload]) throws(UndeclaredPoint) {
        let name = request.point.workload
        guard let workload = workloads.first(where: { $0.name == name }) else {
            throw UndeclaredPoint("no workload '\(name)' (known: \(workloads.map(\.name).joined(separator: ", ")))")
        }
        try workload.check(request.point, settings: request.settings)
    }

    /// Runs `request` in a child process of this program and reads its result.
    public static func run(_ request: PointRequest) -> PointResult {
        let start = Deadline.now()
        let outcome = ChildRequests.run(request)
        return result(of: outcome, for: request, seconds: (Deadline.now() - start).seconds)
    }

    /// The result a child reported, or what its ending says when it reported none.
    public static func result(of outcome: ChildOutcome, for request: PointRequest, seconds: Double) -> PointResult {
        let transcript = channel.read(outcome)
        if var result = transcript.entries.last?.message {
            result.seconds = seconds
            return result
        }
        let ending = ChildEnding(outcome.termination, quoting: transcript.trailing)
        let failure =
            ending.description.map { Failure(.error, $0) }
            ?? Failure(.stopped, "exceeded the time budget of \(request.settings.budgetSeconds) s and was stopped")
        return PointResult(engine: request.engine, point: request.point, settings: request.settings, failure: failure, seconds: seconds)
    }
}
