import ArenaContract
import FoundationEssentials
import Harness

/// One contender's measuring process at one point, as the schedule (`PairedPoint`) drives it: warm it up, measure a
/// repetition when its turn comes, collect its result. `ChildTrialProcess` is a child process of this program; tests
/// drive stand-ins. Each call returns when the process answered, or with a failure when it cannot (a wrong answer, a
/// crash, the budget); after a failure the process is gone and `finish` returns the failure.
public protocol TrialProcess: AnyObject {
    /// Warms the process up: grows the operation count (`known` nil) or warms with `known`, measuring the workload's
    /// baseline or taking `baseline`; the count and the baseline, or why not.
    func warmUp(operations known: Int?, baseline: Double?) -> Result<WarmUp, Failure>
    /// Measures the repetition of `round`; `nil` when measured, or why not.
    func measure(round: Int) -> Failure?
    /// The process's result (its repetitions, resources and latencies), or its failure; ends the process.
    func finish() -> PointResult
    /// The CPU every thread of the process used so far, in nanoseconds; `nil` when it cannot be read.
    func cpuNanoseconds() -> UInt64?
}

extension Failure: Error {}

/// What a warm-up chose: the operation count every trial runs, and the workload's baseline (wall ns per operation
/// without the engine) where it has one. A contender's later processes are handed both.
public struct WarmUp: Sendable, Equatable {
    public var operations: Int
    public var baseline: Double?

    public init(operations: Int, baseline: Double? = nil) {
        self.operations = operations
        self.baseline = baseline
    }
}

/// A contender's process as a child of this program (`arena child --request`, `TrialChild` on the other side): each
/// call sends one command and waits for its answer until the contender's budget is spent, plus 15 seconds to start,
/// calibrate and answer; past that the child is killed and the point stopped.
public final class ChildTrialProcess: TrialProcess {
    private let request: TrialRequest
    private let session: ChildSession?
    private let deadline: Deadline
    private var failure: Failure?

    /// Starts the child for `request`, with `executable` (this program by default).
    public init(_ request: TrialRequest, executable: String = "/proc/self/exe") {
        self.request = request
        deadline = .now() + .milliseconds(Int64(request.budgetSeconds * 1000)) + .seconds(15)
        switch ChildSession.start(ChildRequests.arguments(for: request), executable: executable) {
        case .success(let session): self.session = session
        case .failure(let error):
            session = nil
            failure = Failure(.error, "cannot start the child: \(error)")
        }
    }

    public func warmUp(operations known: Int?, baseline: Double?) -> Result<WarmUp, Failure> {
        // Shortest round-trip text: the child reads back the very Double measured.
        let command = known.map { "warm-up \($0)" + (baseline.map { " \($0)" } ?? "") } ?? "warm-up"
        switch exchange(command) {
        case .success(.ready(let operations, let measured)): return .success(WarmUp(operations: operations, baseline: measured))
        case .success(let other): return .failure(unexpected(other))
        case .failure(let failure): return .failure(failure)
        }
    }

    public func measure(round: Int) -> Failure? {
        switch exchange("trial \(round)") {
        case .success(.measured): nil
        case .success(let other): unexpected(other)
        case .failure(let failure): failure
        }
    }

    public func finish() -> PointResult {
        let result: PointResult
        switch exchange("finish") {
        case .success(.finished(let finished)): result = finished
        case .success(let other): result = failed(unexpected(other))
        case .failure(let failure): result = failed(failure)
        }
        _ = session?.end(until: .now() + .seconds(5))
        return result
    }

    public func cpuNanoseconds() -> UInt64? { failure == nil ? session?.cpuNanoseconds() : nil }

    /// Sends `command` and reads the answer; a failure once the child failed, died or ran out of time.
    private func exchange(_ command: String) -> Result<TrialChild.Answer, Failure> {
        if let failure { return .failure(failure) }
        guard let session, session.send(command) else { return .failure(ended()) }
        switch session.receive(until: deadline) {
        case .line(let line):
            guard let answer = try? JSONDecoder().decode(TrialChild.Answer.self, from: Data(line.utf8)) else {
                return .failure(fail(Failure(.error, "the child answered '\(line.prefix(200))'")))
            }
            if case .failed(let reason) = answer { return .failure(fail(reason)) }
            return .success(answer)
        case .closed:
            return .failure(ended())
        case .timedOut:
            session.kill()
            return .failure(
                fail(Failure(.stopped, "exceeded the time budget of \(request.settings.budgetSeconds) s and was stopped")))
        }
    }

    /// The failure of a child that stopped answering: how it ended, in words.
    private func ended() -> Failure {
        if let failure { return failure }
        let outcome = session?.end(until: .now() + .seconds(5))
        let lines = outcome.map { $0.standardError.split(separator: "\n", omittingEmptySubsequences: false) } ?? []
        let description =
            outcome.flatMap { ChildEnding($0.termination, quoting: lines).description } ?? "the child ended without an answer"
        return fail(Failure(.error, description))
    }

    private func unexpected(_ answer: TrialChild.Answer) -> Failure {
        fail(Failure(.error, "the child answered \(answer) out of turn"))
    }

    private func fail(_ failure: Failure) -> Failure {
        self.failure = failure
        return failure
    }

    private func failed(_ failure: Failure) -> PointResult {
        PointResult(engine: request.engine, point: request.point, settings: request.settings, failure: failure)
    }
}
