import ArenaContract

/// A Swift job and the executor that runs it (`JobRunner`), carried in a job node where a block would be: what
/// `LockFreeQueue.async(job:runner:)` submits, so an actor's or a task's job costs no closure allocation. Three
/// words: the job, and the runner as an unowned existential (a reference and its witness table).
///
/// Unowned: the runner is a default-layer executor, which the actor it serves (or the task that prefers it) keeps
/// alive while its jobs wait (`EngineQueue.async(job:runner:)`); a retain and release per job would be two atomic
/// operations on a count that the submitting and the running thread share.
struct LockFreeSwiftJob {
    let job: UnownedJob
    unowned(unsafe) let runner: any JobRunner

    @inline(__always)
    init(job: UnownedJob, runner: any JobRunner) {
        self.job = job
        self.runner = runner
    }

    /// Runs the job on its executor: one call through the runner's witness table.
    @inline(__always)
    func run() { runner.runJob(job) }
}
