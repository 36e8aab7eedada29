import ArenaContract
import Contenders
import Foundation

/// Foundation's `OperationQueue` behind `LayerQueue`: every call is forwarded as it is.
public final class FoundationOperationQueue: LayerQueue, @unchecked Sendable {
    /// The queue every call goes to.
    public let queue: OperationQueue
    private let lock = NSLock()
    /// The engine queue set as `underlyingQueue`, kept here: Foundation's property is `unowned(unsafe)`.
    private var underlying: SystemQueue?

    init(label: String) {
        queue = OperationQueue()
        queue.name = label
        queueWrappers.register(self, for: queue)
    }

    /// The wrapper of Foundation's main operation queue.
    init(main: ()) {
        queue = OperationQueue.main
        queueWrappers.register(self, for: queue)
    }

    deinit { queueWrappers.forget(queue) }

    /// `OperationQueue.defaultMaxConcurrentOperationCount` (-1).
    public static var unlimited: Int { OperationQueue.defaultMaxConcurrentOperationCount }

    public var name: String? { queue.name }

    public func addOperation(_ operation: FoundationOperation) {
        operation.enqueue()
        queue.addOperation(operation.operation)
    }

    public func addOperations(_ operations: [FoundationOperation], waitUntilFinished: Bool) {
        for operation in operations { operation.enqueue() }
        queue.addOperations(operations.map(\.operation), waitUntilFinished: waitUntilFinished)
    }

    public func addOperation(_ block: @escaping @Sendable () -> Void) { queue.addOperation(block) }

    public func addBarrierBlock(_ block: @escaping @Sendable () -> Void) { queue.addBarrierBlock(block) }

    /// Foundation's, after the check Foundation makes (`fatalError("count (-5) cannot be negative")`, without the
    /// queue's name), said with its name.
    public var maxConcurrentOperationCount: Int {
        get { queue.maxConcurrentOperationCount }
        set {
            if newValue < 0 && newValue != Self.unlimited {
                misuse("maxConcurrentOperationCount \(newValue) on operation queue '\(name ?? "")': a width cannot be negative")
            }
            queue.maxConcurrentOperationCount = newValue
        }
    }

    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    public var operationCount: Int { queue.operationCount }

    /// Foundation's `operations`, each given as the wrapper the caller made (or a new one, for an operation Foundation
    /// made): a lock round trip per operation.
    public var operations: [FoundationOperation] { queue.operations.map(FoundationOperation.wrapping) }

    /// Foundation's `underlyingQueue`, as the system engine's queue. Set on a queue with operations, Foundation stops
    /// the process ('operation queue must be empty in order to change underlying dispatch queue', without the
    /// queue's name): the same check is made here first, to name the queue.
    public var underlyingQueue: SystemQueue? {
        get {
            if queue === OperationQueue.main { return SystemEngine().mainQueue }
            return lock.withLock { underlying }
        }
        set {
            if queue.operationCount > 0 {
                misuse(
                    "operation queue '\(name ?? "")' must be empty to change its underlying queue (\(queue.operationCount) operations on it)"
                )
            }
            lock.withLock { underlying = newValue }
            queue.underlyingQueue = newValue?.dispatchQueue
        }
    }

    public func cancelAllOperations() { queue.cancelAllOperations() }

    public func waitUntilAllOperationsAreFinished() { queue.waitUntilAllOperationsAreFinished() }

    /// Foundation has no wait with a deadline: its `waitUntilAllOperationsAreFinished` on a thread of its own
    /// (`FoundationWaiter`), none when the queue is empty already.
    public func waitUntilAllOperationsAreFinished(until deadline: Deadline) -> WaitResult {
        if queue.operationCount == 0 { return .success }
        let queue = queue
        return FoundationWaiter.wait(until: deadline) { queue.waitUntilAllOperationsAreFinished() }
    }
}
