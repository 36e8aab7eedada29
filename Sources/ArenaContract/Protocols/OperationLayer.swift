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
    associatedtype Queue: LayerQueue where Queue.Operation == Operation, Queue.UnderlyingQueue == UnderlyingQueue
    /// The engine's dispatch queues, which an operation queue can run its operations on (`underlyingQueue`).
    associatedtype UnderlyingQueue: EngineQueue
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

    /// The main operation queue (`OperationQueue.main`): one queue for the process, as wide as 1, whose operations
    /// run on the engine's main loop (the thread in `dispatchMain()`), through the engine's main queue. Every call
    /// returns the same queue. Foundation ignores changes to its width, suspension and underlying queue.
    var mainQueue: Queue { get }

    /// The queue whose operation the calling thread is running (`OperationQueue.current`), or nil on a thread that
    /// runs none (an operation started by hand with `start()` has no queue). Foundation answers the main queue on the
    /// process's main thread, in an operation or not. One thread-local read.
    var currentQueue: Queue? { get }

    /// A new dispatch queue of the engine (`kind`, no class, targeting the global queue), to give an operation queue
    /// as its `underlyingQueue`. The same as the engine's `makeQueue`.
    func makeUnderlyingQueue(label: String, kind: QueueKind) -> UnderlyingQueue
}
