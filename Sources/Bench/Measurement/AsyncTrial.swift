import ArenaContract
import Harness

/// The async part of a synchronous trial (`Workload.trial` is synchronous; tasks and actors are not), run through
/// `AsyncBridge` preferring a layer's task executor.
public enum AsyncTrial {
    /// Runs `body` in a detached task preferring `pool`, so its non-isolated code and its child tasks run on `pool`
    /// (started without a preference it would begin on Swift's global executor, whose threads would then count as the
    /// engine's, `ThreadCensus`), and returns what it returned (or throws what it threw) once it has. Throws a
    /// timed-out error naming `what` when `body` has not returned by `deadline`. `body` times itself: the task's start
    /// and the wake-up of the waiting thread are not the workload's.
    @inlinable
    public static func run<P: TaskExecutor, T: Sendable>(
        preferring pool: P, until deadline: Deadline, waitingFor what: String,
        _ body: @escaping @Sendable () async throws(WorkloadError) -> T
    ) throws(WorkloadError) -> T {
        guard let outcome = AsyncBridge.run(preferring: pool, until: deadline, body) else {
            throw WorkloadError("timed out waiting for \(what)", timedOut: true)
        }
        return try outcome.get()
    }
}
