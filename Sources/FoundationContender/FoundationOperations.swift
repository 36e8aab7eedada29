import ArenaContract
import Contenders
import Foundation

/// Foundation's `OperationQueue`, `BlockOperation` and `Operation` subclasses behind `OperationLayer`: the reference
/// the layer on every engine is checked against. A cheap value; each call makes one Foundation object and its
/// wrapper.
public struct FoundationOperations: OperationLayer {
    public init() {}

    public func makeQueue(label: String) -> FoundationOperationQueue { FoundationOperationQueue(label: label) }

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
