import ArenaContract
import Contenders
import Foundation

/// Foundation's `OperationQueue` behind `LayerQueue`: every call is forwarded as it is.
public final class FoundationOperationQueue: LayerQueue, @unchecked Sendable {
    /// The queue every call goes to.
    public let queue = OperationQueue()

    init(label: String) { queue.name = label }

    /// `OperationQueue.defaultMaxConcurrentOperationCount` (-1).
    public static var unlimited: Int { OperationQueue.defaultMaxConcurrentOperationCount }

    public var name: String? { queue.name }

    public func addOperation(_ operation: FoundationOperation) { queue.addOperation(operation.operation) }

    public func addOperations(_ operations: [FoundationOperation], waitUntilFinished: Bool) {
        queue.addOperations(operations.map(\.operation), waitUntilFinished: waitUntilFinished)
    }

    public func addOperation(_ block: @escaping @Sendable () -> Void) { queue.addOperation(block) }

    public func addBarrierBlock(_ block: @escaping @Sendable () -> Void) { queue.addBarrierBlock(block) }

    public var maxConcurrentOperationCount: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = newValue }
    }

    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    public var operationCount: Int { queue.operationCount }

    public func cancelAllOperations() { queue.cancelAllOperations() }

    public func waitUntilAllOperationsAreFinished() { queue.waitUntilAllOperationsAreFinished() }
}
