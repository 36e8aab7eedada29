/// An operation queue of an `OperationLayer` (`Foundation.OperationQueue`): it starts each added operation once it
/// is ready, never more at a time than `maxConcurrentOperationCount`, the ready ones in order of priority and then
/// of addition.
public protocol LayerQueue: AnyObject, Sendable {
    /// The layer's operation type.
    associatedtype Operation: LayerOperation
    /// The engine's dispatch queues (`OperationLayer` makes it its `UnderlyingQueue`, an `EngineQueue`).
    associatedtype UnderlyingQueue: AnyObject

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

    /// The operations added and not yet finished (waiting, suspended or running), in the order they were added;
    /// barrier blocks are not listed, blocks added with `addOperation(_:)` are. A snapshot: it may be stale as soon
    /// as it is returned. O(operations on the queue).
    var operations: [Operation] { get }

    /// The dispatch queue the operations run on (`OperationQueue.underlyingQueue`); nil, the default, lets the queue
    /// use one of its own. It may be set only while the queue has no operation: setting it otherwise is misuse and
    /// stops the process (Foundation: 'operation queue must be empty in order to change underlying dispatch
    /// queue'). The width still applies: a serial underlying queue runs one operation at a time whatever the width.
    var underlyingQueue: UnderlyingQueue? { get set }

    /// Cancels every operation on the queue now (`LayerOperation.cancel()`); they still finish, and run their
    /// completion blocks.
    func cancelAllOperations()

    /// Blocks the caller until the queue has no unfinished operation: every one added before the call finished, and
    /// every one added while it waits (Apple: while it waits "other threads may" add operations). No deadline, as in
    /// Foundation.
    func waitUntilAllOperationsAreFinished()

    /// As `waitUntilAllOperationsAreFinished`, but returns `.timedOut` once `deadline` passed with an operation
    /// unfinished. A contract extension: Foundation has no such wait; its contender builds it from
    /// Foundation's own calls (see `FoundationOperationQueue`).
    func waitUntilAllOperationsAreFinished(until deadline: Deadline) -> WaitResult
}
