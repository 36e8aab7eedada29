import Contenders
import Harness

/// Runs an async check from the synchronous world of the runner: the check runs in a detached task (on Swift's
/// global executor, with no executor preference), and the calling thread, a plain one, waits for it until a
/// deadline. A check that does not end by then is abandoned, as the watchdog abandons a thread.
public enum AsyncCheck {
    private final class Outcome: Sendable {
        let ended = Latch()
        let failure = Locked<String?>(nil)
    }

    /// Runs `check`, and returns when it returned; throws what it threw, or a `RuleFailure` if it is still running at
    /// `deadline`.
    public static func run(until deadline: Deadline, _ check: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Outcome()
        Task.detached {
            do { try await check() } catch { outcome.failure.withLock { $0 = String(describing: error) } }
            outcome.ended.countDown()
        }
        guard outcome.ended.wait(until: deadline) else {
            throw RuleFailure("the check's task did not end before its deadline (a job lost, or never run)")
        }
        if let failure = outcome.failure.snapshot { throw RuleFailure(failure) }
    }
}
