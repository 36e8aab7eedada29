import ArenaContract
import Contenders
import Foundation

/// Foundation's `OperationQueue`, `BlockOperation` and `Operation` subclasses behind `OperationLayer`: the reference
/// the layer on every engine is checked against. A cheap value; each call makes one Foundation object and its
/// wrapper.
public struct FoundationOperations: OperationLayer {
    public init() {}

    public func makeQueue(label: String) -> FoundationOperationQueue { FoundationOperationQueue(label: label) }

    /// `OperationQueue.main`'s wrapper, made once.
    public var mainQueue: FoundationOperationQueue { foundationMainQueue }

    /// `OperationQueue.current`, as the wrapper the caller holds: a thread-specific read and a look-up.
    public var currentQueue: FoundationOperationQueue? {
        OperationQueue.current.flatMap { queueWrappers.wrapper(of: $0) }
    }

    /// A queue of the system engine, whose `DispatchQueue` Foundation is given.
    public func makeUnderlyingQueue(label: String, kind: QueueKind) -> SystemQueue {
        SystemEngine().makeQueue(label: label, kind: kind)
    }

    public func makeBlockOperation(label: String, _ block: @escaping @Sendable () -> Void) -> FoundationOperation {
        let operation = BlockOperation(block: block)
        operation.name = label
        return FoundationOperation(operation)
    }

    public func makeOperation(label: String, main: @escaping @Sendable (FoundationOperation) -> Void) -> FoundationOperation {
        FoundationOperation(MainBodyOperation(label: label, main: main))
    }

    public func makeAsynchronousOperation(
        label: String,
        start: @escaping @Sendable (FoundationOperation, _ finish: @escaping @Sendable () -> Void) -> Void
    )
        -> FoundationOperation
    {
        FoundationOperation(AsynchronousBodyOperation(label: label, start: start))
    }
}

/// The wrapper of Foundation's main operation queue, made on first use.
private let foundationMainQueue = FoundationOperationQueue(main: ())
