/// An operation-queue layer: Foundation's `OperationQueue` contract (operations with dependencies, readiness,
/// priorities, cancellation and completion blocks, on queues of a chosen width) as a factory of queues and
/// operations.
///
/// Every engine has one (`Engine.operations`): by default `EngineOperations`, which builds the layer from the
/// engine's own queues, groups and semaphores the way Foundation builds `OperationQueue` on Dispatch. The
/// `foundation` contender's is Foundation's own `OperationQueue`, the reference. Rules and workloads are generic
/// over `L: OperationLayer`, so each runs specialised on every layer.
public protocol OperationLayer: Sendable {
    /// The layer's operation queues.
    associatedtype Queue: LayerQueue where Queue.Operation == Operation
    /// The layer's operations: block operations, operations with a main body, asynchronous operations.
    associatedtype Operation: LayerOperation

    /// A new queue, not suspended, as wide as the layer allows (`LayerQueue.unlimited`). `label` is its `name`.
    func makeQueue(label: String) -> Queue

    /// A block operation whose first execution block is `block` (`BlockOperation(block:)`); more may be added with
    /// `addExecutionBlock` until it is enqueued. It finishes once every block returned.
    func makeBlockOperation(label: String, _ block: @escaping @Sendable () -> Void) -> Operation

    /// An operation whose work is `main`, called with the operation itself so that it can read `isCancelled` as it
    /// goes (an `Operation` subclass overriding `main()`). Cancelled before it starts, it finishes without calling
    /// `main`.
    func makeOperation(label: String, main: @escaping @Sendable (Operation) -> Void) -> Operation

    /// An asynchronous operation (`isAsynchronous`, overriding `start()`): once ready and started, `start` is called
    /// with the operation and a `finish` function, and the operation executes until `finish` is called (once, from
    /// any thread, at any later time). Its dependents and waiters wait for `finish`, not for `start` to return.
    /// Cancelled before it starts, it finishes without calling `start`.
    func makeAsynchronousOperation(
        label: String,
        start: @escaping @Sendable (Operation, _ finish: @escaping @Sendable () -> Void) -> Void
    ) -> Operation
}
