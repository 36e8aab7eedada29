import ArenaContract
import Harness

/// What an I/O channel's operation handler saw: one entry per call, in order, with a latch that opens on the call
/// marked `done`.
public final class IOLog<Data: EngineData>: @unchecked Sendable {
    /// One handler call.
    public struct Call: Sendable {
        public let done: Bool
        /// The call's bytes (none when `data` was nil).
        public let bytes: [UInt8]
        public let error: Int32
    }

    private let recorded = Recorder<Call>()
    /// How many calls overlapped (the calls of one operation run one at a time).
    public let meter = ConcurrencyMeter()
    /// Opens on the first `done` call.
    public let ended = Latch()
    private let what: String

    /// `what` names the operation in failures ("the read of 512 bytes").
    public init(_ what: String) { self.what = what }

    /// The handler to pass to `read` or `write`; `work` runs inside each call, after it was recorded.
    public func handler(_ work: @escaping @Sendable (Call) -> Void = { _ in }) -> IOHandler<Data> {
        { [self] done, data, error in
            meter.measure {
                let call = Call(done: done, bytes: data?.bytes ?? [], error: error)
                recorded.append(call)
                work(call)
            }
            if done { ended.countDown() }
        }
    }

    public var calls: [Call] { recorded.elements }

    /// The bytes of every call, in order.
    public var bytes: [UInt8] { calls.flatMap(\.bytes) }

    /// The error of the `done` call (nil before it).
    public var error: Int32? { calls.first(where: \.done)?.error }

    /// Waits (bounded) for the `done` call, then fails unless it came exactly once, last, and calls never overlapped.
    public func expectEnded(within timeout: Duration = .seconds(5)) throws {
        try expectOpens(ended, within: timeout, "the done call of \(what)")
        let calls = calls
        try expect(
            calls.filter(\.done).count == 1 && calls.last?.done == true, .wrongValue,
            "\(what): done calls at \(calls.indices.filter { calls[$0].done }) of \(calls.count) (exactly one, last, expected)")
        try expect(meter.maximum == 1, .overlap, "\(what): \(meter.maximum) handler calls ran at once")
    }
}
