import ArenaContract
import Harness

/// Runs an async check from the synchronous world of the runner, through `AsyncBridge`: the check runs in a detached
/// task with no executor preference, and the runner's thread waits for it until a deadline.
public enum AsyncCheck {
    /// Runs `check`, and returns when it returned; throws what it threw (as a `RuleFailure`), or a `RuleFailure` if it
    /// is still running at `deadline`.
    public static func run(until deadline: Deadline, _ check: @escaping @Sendable () async throws -> Void) throws {
        guard let outcome = AsyncBridge.run(until: deadline, check) else {
            throw RuleFailure(.missing, "the check's task did not end before its deadline (a job lost, or never run)")
        }
        if case .failure(let error) = outcome {
            throw (error as? RuleFailure) ?? RuleFailure(.unkeyed, String(describing: error))
        }
    }
}

/// Polls `condition` (async) every millisecond, sleeping in between, until it holds or `timeout` passed; false on the
/// deadline. For checks that run in a task: the executor and global-executor rules.
func eventually(within timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = Deadline.now() + timeout
    while Deadline.now() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}
