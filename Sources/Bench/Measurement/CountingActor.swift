import ArenaContract

/// An actor holding a counter, for the executor workloads: `ExecutorCounter` on a layer's serial executor, or
/// `DefaultCounter`, a default actor, where the layer has none to make (the `swift` contender). A workload is generic
/// over it, so each runs specialised on either, and a call is a plain actor call.
@usableFromInline protocol CountingActor: Actor {
    /// Counts one call.
    func increment()
    /// Counts one call and whether it ran isolated (`LayerSerialExecutor.isIsolatingCurrentContext`).
    func checkedIncrement()
    /// The calls counted.
    var count: Int { get }
    /// The checked calls that found themselves off the actor's serial executor; 0 on a default actor, which has no
    /// executor value to ask.
    var isolationMisses: Int { get }
}

/// A counter actor on a serial executor of a layer: its methods run as jobs of the queue behind the executor.
@usableFromInline actor ExecutorCounter<Executor: LayerSerialExecutor>: CountingActor {
    @usableFromInline let executor: Executor
    @usableFromInline nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    @usableFromInline var count = 0
    @usableFromInline var isolationMisses = 0

    @inlinable init(_ executor: Executor) { self.executor = executor }

    @inlinable func increment() { count &+= 1 }

    /// Counts the call, and a miss where the executor says the caller is not isolated to it (one `currentSpecific`
    /// lookup on the engine layers).
    @inlinable func checkedIncrement() {
        count &+= 1
        if executor.isIsolatingCurrentContext() != true { isolationMisses &+= 1 }
    }
}

/// A counter actor with the runtime's own executor: the `swift` contender's actors.
@usableFromInline actor DefaultCounter: CountingActor {
    @usableFromInline var count = 0
    @usableFromInline let isolationMisses = 0

    @inlinable init() {}

    @inlinable func increment() { count &+= 1 }

    @inlinable func checkedIncrement() { count &+= 1 }
}
