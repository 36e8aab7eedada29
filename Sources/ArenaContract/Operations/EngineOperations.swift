/// The operation-queue layer every engine gets by default: Foundation's `OperationQueue` contract built from the
/// engine's own queues and groups, as Foundation builds it on Dispatch. Each operation queue runs its operations on a
/// concurrent engine queue of its own and counts its width itself; bookkeeping (dependencies, ready lists, counts)
/// sits under pthread mutexes, and waits are engine groups.
///
/// Each queue keeps its ready operations in a `ReadyList` and starts them as its `Admission` allows: by default
/// (`Engine.operations`) `PriorityReadyList` and `WidthAdmission`, Foundation's order and width; either may be the
/// author's own (`EngineOperations(engine, readyList: MyList.self)`, `EngineOperations(engine, admission:
/// MyAdmission.self)`, or both), the rest of the layer unchanged.
///
/// A cheap value: it holds the engine handle and nothing else, so `engine.operations` costs nothing to make.
public struct EngineOperations<E: Engine, ReadyList: OperationReadyList, Admission: OperationAdmission>: OperationLayer {
    /// The layer's operation queues.
    public typealias Queue = EngineOperationQueue<E, ReadyList, Admission>
    /// The layer's operations.
    public typealias Operation = EngineOperation<E, ReadyList, Admission>

    /// The engine whose queues and groups run this layer.
    public let engine: E

    /// The layer over `engine`, its ready list and admission named by the context (`Engine.operations`). Free: it
    /// stores the handle.
    public init(_ engine: E) { self.engine = engine }

    /// The layer over `engine` with queues keeping their ready operations in a `readyList` and starting them as
    /// `admission` allows. Free: it stores the handle.
    public init(_ engine: E, readyList: ReadyList.Type, admission: Admission.Type) { self.engine = engine }

    /// The engine's main operation queue, made on first use over `engine.mainQueue` and kept for the process (one per
    /// ready list and admission): a lock round trip and a dictionary look-up.
    public var mainQueue: Queue {
        let key = MainOperationQueues.Key(mainQueue: ObjectIdentifier(engine.mainQueue), layer: ObjectIdentifier(Queue.self))
        return mainOperationQueues.withLock { queues in
            if let known = queues[key] as? Queue { return known }
            let made = Queue(mainOf: engine)
            queues[key] = made
            return made
        }
    }

    /// The queue whose operation the calling thread runs: one pthread call and a cast.
    public var currentQueue: Queue? {
        guard let raw = CurrentOperationQueue.current else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue() as? Queue
    }

    /// A serial or concurrent queue of the engine: `engine.makeQueue`.
    public func makeUnderlyingQueue(label: String, kind: QueueKind) -> E.Queue {
        engine.makeQueue(label: label, kind: kind)
    }

    /// A new queue with an engine queue of its own (one `makeQueue` and one `makeGroup` on the engine).
    public func makeQueue(label: String) -> Queue {
        EngineOperationQueue(engine: engine, label: label)
    }

    /// A block operation: one allocation, plus the array of its blocks.
    public func makeBlockOperation(label: String, _ block: @escaping @Sendable () -> Void) -> Operation {
        EngineOperation(engine: engine, name: label, work: .blocks([block]))
    }

    /// An operation whose work is `main`: one allocation.
    public func makeOperation(label: String, main: @escaping @Sendable (Operation) -> Void) -> Operation {
        EngineOperation(engine: engine, name: label, work: .main(main))
    }

    /// An asynchronous operation, executing from `start` until its `finish` is called: one allocation.
    public func makeAsynchronousOperation(
        label: String,
        start: @escaping @Sendable (Operation, _ finish: @escaping @Sendable () -> Void) -> Void
    ) -> Operation {
        EngineOperation(engine: engine, name: label, work: .start(start))
    }
}

extension EngineOperations where Admission == WidthAdmission {
    /// The layer over `engine` with queues keeping their ready operations in a `readyList`, Foundation's admission
    /// otherwise. Free: it stores the handle.
    public init(_ engine: E, readyList: ReadyList.Type) { self.engine = engine }
}

extension EngineOperations where ReadyList == PriorityReadyList {
    /// The layer over `engine` with queues starting their ready operations as `admission` allows, the default ready
    /// list otherwise. Free: it stores the handle.
    public init(_ engine: E, admission: Admission.Type) { self.engine = engine }
}

/// The main operation queue of each engine, ready list and admission, by the identity of the engine's main queue and the queue's
/// type (a generic type has no stored statics): made once, kept for the process.
private final class MainOperationQueues: @unchecked Sendable {
    struct Key: Hashable {
        let mainQueue: ObjectIdentifier
        let layer: ObjectIdentifier
    }

    private let lock = PthreadMutex()
    private var queues: [Key: AnyObject] = [:]

    func withLock<T>(_ body: (inout [Key: AnyObject]) -> T) -> T {
        lock.withLock { body(&queues) }
    }
}

private let mainOperationQueues = MainOperationQueues()
