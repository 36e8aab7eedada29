import ArenaContract

/// The default executor layer with its serial executors replaced: each actor's a thread of its own
/// (`ThreadSerialExecutor`), tasks on the engine's pool as by default (`EnginePoolExecutor`, its global queue).
public struct ThreadActors<E: Engine>: SpecificValueLayer {
    public let engine: E

    public init(engine: E) { self.engine = engine }

    public func makeActorExecutor(label: String) -> ThreadSerialExecutor? { ThreadSerialExecutor(label: label) }

    public var poolExecutor: EnginePoolExecutor<E> { EnginePoolExecutor(engine: engine) }

    /// The value set on the serial executor whose thread the caller is on.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? { WorkerThreads.current?.specific(key) }
}
