import Contenders
import Harness

/// The async part of a synchronous trial (`Workload.trial` is synchronous; tasks and actors are not): a detached task
/// runs it preferring a layer's task executor, and the trial's own thread, a plain one, waits for it until a deadline.
public enum AsyncTrial {
    /// Runs `body` in a detached task inside `withTaskExecutorPreference(pool)`, so its non-isolated code and its
    /// child tasks run on `pool`, and returns what it returned (or throws what it threw) once it has. Throws a
    /// timed-out error naming `what` when `body` has not returned by `deadline`: the task is abandoned, as a wedged
    /// executor may never run it again. `body` times itself: the task's start and the wake-up of the waiting thread
    /// are not the workload's.
    @inlinable
    public static func run<P: TaskExecutor, T: Sendable>(
        preferring pool: P, until deadline: Deadline, waitingFor what: String,
        _ body: @escaping @Sendable () async throws(WorkloadError) -> T
    ) throws(WorkloadError) -> T {
        let outcome = AsyncOutcome<T>()
        // The task prefers `pool` from its first job on: started without a preference it would begin on Swift's
        // global executor, whose threads would then count as the engine's (`ThreadCensus`).
        Task.detached(executorPreference: pool) {
            do throws(WorkloadError) {
                outcome.result = .success(try await withTaskExecutorPreference(pool) { () async throws(WorkloadError) -> T in
                    try await body()
                })
            } catch {
                outcome.result = .failure(error)
            }
            outcome.ended.countDown()
        }
        guard outcome.ended.wait(until: deadline) else {
            throw WorkloadError("timed out waiting for \(what)", timedOut: true)
        }
        return try outcome.result!.get()
    }
}

/// What the task of `AsyncTrial.run` returned: written once, before `ended` opens, and read only after it opened (the
/// latch's lock orders the two).
@usableFromInline final class AsyncOutcome<T: Sendable>: @unchecked Sendable {
    @usableFromInline let ended = Latch()
    @usableFromInline var result: Result<T, WorkloadError>?

    @inlinable init() {}
}
