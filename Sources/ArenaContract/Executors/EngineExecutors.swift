/// The executor layer every engine gets by default: a serial executor per actor over a serial queue of the engine,
/// and the engine's global queue as the task executor. Jobs go to the queues through `async(job:runner:)`: by default
/// as blocks (one closure per job, which captures the job and the executor), so an engine needs nothing beyond the
/// GCD contract to run actors and tasks; a queue that carries jobs natively saves the closure.
///
/// A cheap value: it holds the engine handle and nothing else, so `engine.executors` costs nothing to make.
public struct EngineExecutors<E: Engine>: ExecutorLayer {
    /// The engine whose queues run the jobs.
    public let engine: E

    /// The layer over `engine`. Free: it stores the handle.
    public init(_ engine: E) { self.engine = engine }

    /// A serial executor over a new serial queue of the engine (one `makeQueue`, one `setSpecific`). Never `nil`.
    public func makeActorExecutor(label: String) -> EngineSerialExecutor<E>? {
        EngineSerialExecutor(engine: engine, label: label)
    }

    /// A task executor over the engine's global queue: one small allocation per read; every one it makes runs jobs
    /// on the same queue, and `isCurrent` holds in the jobs of any of them.
    public var poolExecutor: EnginePoolExecutor<E> { EnginePoolExecutor(engine: engine) }

    /// The engine's global queues as Swift's global executor (`EngineGlobalExecutor`): one object and the main
    /// queue's mark; `nil` where the engine lists `global-executor` in its limits.
    public func makeGlobalExecutor() -> EngineGlobalExecutor<E>? {
        engine.limits[.globalExecutor] == nil ? EngineGlobalExecutor(engine: engine) : nil
    }
}
