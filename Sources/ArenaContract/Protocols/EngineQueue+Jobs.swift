// MARK: Swift jobs as blocks

extension EngineQueue {
    /// The default for every queue: a block that calls the runner, submitted with `async`. Costs what `async` costs
    /// plus one closure allocated per job (it captures the job and the runner, retaining the runner until it ran).
    @inlinable
    public func async(job: UnownedJob, runner: any JobRunner) {
        async { runner.runJob(job) }
    }
}
