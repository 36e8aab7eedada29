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

    /// The engine's main operation queue, made on first use over `engine.mainQueue` and kept for the process: a
    /// lock round trip and a dictionary look-up.
    public var mainQueue: EngineOperationQueue<E> {
        let key = ObjectIdentifier(engine.mainQueue)
        return mainOperationQueues.withLock { queues in
            if let known = queues[key] as? EngineOperationQueue<E> { return known }
            let made = EngineOperationQueue(mainOf: engine)
            queues[key] = made
            return made
        }
    }

    /// The queue whose operation the calling thread runs: one pthread call and a cast.
    public var currentQueue: EngineOperationQueue<E>? {
        guard let raw = CurrentOperationQueue.current else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue() as? EngineOperationQueue<E>
    }

    /// A serial or concurrent queue of the engine: `engine.makeQueue`.
    public func makeUnderlyingQueue(label: String, kind: QueueKind) -> E.Queue {
        engine.makeQueue(label: label, kind: kind)
    }

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

/// The main operation queue of each engine, by the identity of the engine's main queue (a generic type has no stored
/// statics): made once, kept for the process.
private final class MainOperationQueues: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var queues: [ObjectIdentifier: AnyObject] = [:]

    func withLock<T>(_ body: (inout [ObjectIdentifier: AnyObject]) -> T) -> T {
        lock.withLock { body(&queues) }
    }
}

private let mainOperationQueues = MainOperationQueues()
