import ArenaContract

/// The default executor layer with its pool replaced: tasks on four threads of their own (`ThreadPoolExecutor`), each
/// actor's serial executor a serial queue of the engine as by default (`EngineSerialExecutor`, with the co-located
/// task executors the default layer makes beside one).
public struct ThreadPool<E: Engine>: ExecutorLayer {
    public let engine: E
    public let poolExecutor = ThreadPoolExecutor(label: "threads.pool", threads: 4)

    public init(engine: E) { self.engine = engine }

    public func makeActorExecutor(label: String) -> EngineSerialExecutor<E>? { EngineSerialExecutor(engine: engine, label: label) }

    public func colocatedExecutor(for executor: EngineSerialExecutor<E>) -> EngineColocatedExecutor<E>? {
        EngineColocatedExecutor(beside: executor)
    }
}
