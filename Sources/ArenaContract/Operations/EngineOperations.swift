/// The operation-queue layer every engine gets by default: Foundation's `OperationQueue` contract built from the
/// engine's own queues and groups, as Foundation builds it on Dispatch. Each operation queue runs its operations on a
/// concurrent engine queue of its own and counts its width itself; bookkeeping (dependencies, ready lists, counts)
/// sits under pthread mutexes, and waits are engine groups.
///
/// A cheap value: it holds the engine handle and nothing else, so `engine.operations` costs nothing to make.
public struct EngineOperations<E: Engine>: OperationLayer {
    /// The engine whose queues and groups run this layer.
    public let engine: E

    /// The layer over `engine`. Free: it stores the handle.
    public init(_ engine: E) { self.engine = engine }

    /// A new queue with an engine queue of its own (one `makeQueue` and one `makeGroup` on the engine).
    public func makeQueue(label: String) -> EngineOperationQueue<E> {
        EngineOperationQueue(engine: engine, label: label)
    }

    /// A block operation: one allocation, plus the array of its blocks.
    public func makeBlockOperation(label: String, _ block: @escaping @Sendable () -> Void) -> EngineOperation<E> {
        EngineOperation(engine: engine, name: label, work: .blocks([block]))
    }

    /// An operation whose work is `main`: one allocation.
    public func makeOperation(label: String, main: @escaping @Sendable (EngineOperation<E>) -> Void) -> EngineOperation<E> {
        EngineOperation(engine: engine, name: label, work: .main(main))
    }

    /// An asynchronous operation, executing from `start` until its `finish` is called: one allocation.
    public func makeAsynchronousOperation(
        label: String,
        start: @escaping @Sendable (EngineOperation<E>, _ finish: @escaping @Sendable () -> Void) -> Void
    ) -> EngineOperation<E> {
        EngineOperation(engine: engine, name: label, work: .start(start))
    }
}
