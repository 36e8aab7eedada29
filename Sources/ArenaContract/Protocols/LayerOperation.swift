/// Where an operation stands among the ready operations of its queue (`Operation.QueuePriority`): higher starts
/// first when the queue is saturated. It does not order operations of different queues, nor outrank dependencies.
public enum OperationPriority: Int, Sendable, Codable, CaseIterable, Comparable {
    case veryLow = -8
    case low = -4
    case normal = 0
    case high = 4
    case veryHigh = 8

    public static func < (lhs: OperationPriority, rhs: OperationPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One operation of an `OperationLayer` (`Foundation.Operation`): a unit of work that runs once, when it is ready
/// (every dependency finished) and its queue has room, and that can be cancelled, waited for, and followed by a
/// completion block.
///
/// Its states move one way: pending, ready, executing, finished. A cancelled operation that has not started goes
/// to finished without running its work when its queue gets to it (or at once, where the layer does so), and its
/// dependents then become ready as if it had run.
public protocol LayerOperation: AnyObject, Sendable {
    /// The label the operation was made with (`Operation.name`).
    var name: String? { get }

    /// Adds a block to a block operation that has not been enqueued; the blocks may run concurrently, and the
    /// operation finishes after all of them. Misuse, stopping the process, on any other operation or once enqueued.
    func addExecutionBlock(_ block: @escaping @Sendable () -> Void)

    /// Makes this operation wait for `operation` to finish before it becomes ready, whichever queues the two are on.
    /// A cycle of dependencies is never ready.
    func addDependency(_ operation: Self)

    /// Removes `operation` from the dependencies; if it was the last one unfinished, this operation becomes ready.
    func removeDependency(_ operation: Self)

    /// The operations this one depends on, finished or not, in the order added.
    var dependencies: [Self] { get }

    /// This operation's standing among its queue's ready operations. Setting it after the operation is enqueued
    /// changes the order only of operations that have not started.
    var queuePriority: OperationPriority { get set }

    /// A block run once after the operation finished, on a thread of the layer's choosing; set it before the
    /// operation is enqueued. A cancelled operation runs it too.
    var completionBlock: (@Sendable () -> Void)? { get set }

    /// Asks the operation to stop: one that has not started will not run its work; a running one sees
    /// `isCancelled` and may stop early. Cancelling twice, or a finished operation, does nothing.
    func cancel()

    /// Whether `cancel()` was called.
    var isCancelled: Bool { get }
    /// Whether every dependency finished (or was removed).
    var isReady: Bool { get }
    /// Whether the operation's work is running now.
    var isExecuting: Bool { get }
    /// Whether the operation finished (ran, or was cancelled and skipped). Once true, true for good.
    var isFinished: Bool { get }

    /// Blocks the caller until the operation finished. No deadline: Foundation offers none; callers that need one
    /// wait from a thread of their own. Waiting from inside the operation itself never returns.
    func waitUntilFinished()

    /// As `waitUntilFinished`, but returns `.timedOut` once `deadline` passed with the operation unfinished. A contract
    /// extension: Foundation has no such wait; its contender builds it from Foundation's own calls (see
    /// `FoundationOperation`).
    func waitUntilFinished(until deadline: Deadline) -> WaitResult

    /// Runs the operation on the caller's thread, outside any queue (`Operation.start()`): its work, then its finish
    /// (dependents become ready, waiters return, the completion block is submitted), before `start` returns; an
    /// asynchronous operation's `start` body is called and the operation executes until its `finish`. A cancelled
    /// operation finishes without its work; a finished one does nothing. Starting an operation that is not ready
    /// (and not cancelled), or one on a queue, or one executing, is misuse and stops the process (Foundation:
    /// 'receiver is not yet ready to execute').
    func start()
}
