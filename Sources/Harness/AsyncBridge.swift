import ArenaContract

/// Runs async code from a plain thread that may block: a detached task runs the body (preferring `pool`, if given,
/// from its first job on), and the calling thread waits for it until a deadline. A body still running then is
/// abandoned, as a watchdog abandons a thread: a wedged executor may never run it again. Costs a task and a latch.
public enum AsyncBridge {
    /// What `body` returned or threw, or `nil` when it had not ended by `deadline`.
    public static func run<T: Sendable, Failure: Error>(
        preferring pool: (any TaskExecutor)? = nil, until deadline: Deadline,
        _ body: @escaping @Sendable () async throws(Failure) -> T
    ) -> Result<T, Failure>? {
        let outcome = Outcome<T, Failure>()
        Task.detached(executorPreference: pool) {
            do throws(Failure) {
                // The preference around the body too, as the executor workloads' figures were measured.
                outcome.result = .success(
                    try await withTaskExecutorPreference(pool) { () async throws(Failure) -> T in
                        try await body()
                    })
            } catch {
                outcome.result = .failure(error)
            }
            outcome.ended.countDown()
        }
        return outcome.ended.wait(until: deadline) ? outcome.result : nil
    }

    /// Written once by the task before `ended` opens, read only after it opened (the latch's lock orders the two).
    private final class Outcome<T: Sendable, Failure: Error>: @unchecked Sendable {
        let ended = Latch()
        var result: Result<T, Failure>?
    }
}
