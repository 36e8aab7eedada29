import ArenaContract
import Harness

/// A call that blocks with no deadline of its own (`waitUntilFinished`, `waitUntilAllOperationsAreFinished`,
/// `addOperations(_:waitUntilFinished: true)`), made on a plain thread so that a check can wait for it with one. A
/// call that never returns leaves its thread behind, blocked, and the check fails instead of hanging.
public final class BlockingCall: Sendable {
    private let returned = Latch()

    /// Starts `call` on a plain thread of its own.
    public init(_ call: @escaping @Sendable () -> Void) {
        let returned = returned
        Threads.detach {
            call()
            returned.countDown()
        }
    }

    /// Whether the call returned already.
    public var hasReturned: Bool { returned.isOpen }

    /// Whether the call returned within `timeout`.
    public func returns(within timeout: Duration = .seconds(5)) -> Bool { returned.wait(timeout) }
}
