/// What runs a Swift job (an `UnownedJob`: a task's next piece) that it handed to an engine's queue: the default
/// layer's executors (`EngineSerialExecutor`, `EnginePoolExecutor`) are runners. The queue carries the job and calls
/// `runJob` in the job's turn, on the thread that runs the queue's blocks; the runner runs the job on itself
/// (`runSynchronously(on:)`) with the marks its executor needs. The seam through which a queue can take a job
/// natively (`EngineQueue.async(job:runner:)`) instead of as a block wrapping it.
public protocol JobRunner: AnyObject, Sendable {
    /// Runs `job` now, on the calling thread, which is inside a block of the queue the job was submitted to. Called by
    /// that queue, once per job; elsewhere it would run the job off its queue.
    func runJob(_ job: UnownedJob)
}
