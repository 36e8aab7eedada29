import ArenaContract
import Contenders
import FoundationEssentials
import Harness

/// One point on one engine, as a child process is asked to measure it.
public struct BenchRequest: Sendable, Codable, Equatable {
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

    /// The request as one command-line argument.
    public func encoded() -> String { String(decoding: try! JSONEncoder().encode(self), as: UTF8.self) }

    /// The request encoded by `encoded()`, or `nil` if `text` is not one.
    public static func decode(_ text: String) -> BenchRequest? { try? JSONDecoder().decode(BenchRequest.self, from: Data(text.utf8)) }
}

/// Every point runs in a process of its own: a wedged engine's threads die with it, a crash is one point's error,
/// and each point starts clean, so its peak threads and memory are its own. This is both sides of that exchange.
public enum BenchChild {
    /// The line that carries the child's result on standard error.
    static let channel = ChildChannel<PointResult>(marker: "arena-bench-result: ")

    /// The child's whole life: measure the point on the contender it names, report the result as one line, exit at
    /// once (threads of a wedged engine may still be blocked; nothing waits for them).
    public static func main(_ request: BenchRequest, contenders: [Contender]) -> Never {
        channel.armBackstop(request.limit)
        if let workload = WorkloadCatalog.workload(named: request.point.workload),
           let contender = contenders.first(where: { $0.name == request.engine }) {
            channel.send(contender.measure(request.point, of: workload, with: PointRunner(settings: request.settings)))
        } else {
            channel.send(PointResult(engine: request.engine, point: request.point, settings: request.settings,
                                     failure: Failure(.error, "unknown workload or engine")))
        }
        channel.leave()
    }

    /// Runs `request` in a child process started with `arguments` and reads its result.
    public static func run(_ request: BenchRequest, arguments: [String]) -> PointResult {
        let start = Deadline.now()
        let outcome = ChildProcess.run(arguments, limit: request.limit)
        return result(of: outcome, for: request, seconds: (Deadline.now() - start).seconds)
    }

    /// The result a child reported, or what its ending says when it reported none.
    public static func result(of outcome: ChildOutcome, for request: BenchRequest, seconds: Double) -> PointResult {
        let transcript = channel.read(outcome)
        if var result = transcript.entries.last?.message {
            result.seconds = seconds
            return result
        }
        let ending = ChildEnding(outcome.termination, quoting: transcript.trailing)
        let failure = ending.description.map { Failure(.error, $0) }
            ?? Failure(.stopped, "exceeded the time budget of \(request.settings.budgetSeconds) s and was stopped")
        return PointResult(engine: request.engine, point: request.point, settings: request.settings, failure: failure, seconds: seconds)
    }
}
