/// An operation queue of an `OperationLayer` (`Foundation.OperationQueue`): it starts each added operation once it
/// is ready, never more at a time than `maxConcurrentOperationCount`, the ready ones in order of priority and then
/// of addition.
public protocol LayerQueue: AnyObject, Sendable {
    /// The layer's operation type.
    associatedtype Operation: LayerOperation

    /// `maxConcurrentOperationCount` for a queue whose width only the system limits
    /// (`OperationQueue.defaultMaxConcurrentOperationCount`).
    static var unlimited: Int { get }

    /// The label the queue was made with.
    var name: String? { get }

    /// Adds `operation`, which starts once it is ready and the queue has room. Adding an operation that is already
    /// on a queue, or finished, is misuse and stops the process.
    func addOperation(_ operation: Operation)

    /// Adds `operations` in order; with `waitUntilFinished`, returns only after every one of them finished.
    func addOperations(_ operations: [Operation], waitUntilFinished: Bool)

    /// Adds a block operation made from `block`.
    func addOperation(_ block: @escaping @Sendable () -> Void)

    /// Adds a block that runs after every operation added before it finished, and before any added after it starts.
    func addBarrierBlock(_ block: @escaping @Sendable () -> Void)

    /// The most operations the queue runs at once: 1 makes it serial (in order of readiness and priority, not
    /// strictly of addition), `unlimited` leaves the width to the layer. Changing it applies to later starts.
    var maxConcurrentOperationCount: Int { get set }

    /// While true, the queue starts no operation; those already running go on. Setting it false starts what is ready.
    var isSuspended: Bool { get set }

    /// The operations added and not yet finished.
    var operationCount: Int { get }

    /// Cancels every operation on the queue now (`LayerOperation.cancel()`); they still finish, and run their
    /// completion blocks.
    func cancelAllOperations()

    /// Blocks the caller until every operation added before the call finished. No deadline, as in Foundation.
    func waitUntilAllOperationsAreFinished()
}
