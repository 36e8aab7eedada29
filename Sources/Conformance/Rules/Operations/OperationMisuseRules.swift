import ArenaContract
import Harness

// Operations in the states where Foundation stops the process, and the one where it does not: measured on the
// reference (swift-corelibs-foundation, `OperationQueue` and `BlockOperation` driven directly), each of the misuses
// below ends in `fatalError`, and a block added to an operation still waiting on a queue runs.

/// Adds a block operation labelled `label` to a queue of its own and, from the operation's block, calls `misuse` on
/// the operation itself; returns once that call returned (the layer let it pass) or after 5 s.
private func misuseWhileRunning<L: OperationLayer>(
    _ layer: L, label: String, _ misuse: @escaping @Sendable (L.Operation) -> Void
) {
    let itself = Locked<L.Operation?>(nil)
    let returned = Latch()
    let op = layer.makeBlockOperation(label: label) {
        if let op = itself.snapshot { misuse(op) }
        returned.countDown()
    }
    itself.withLock { $0 = op }
    layer.makeQueue(label: label + ".queue").addOperation(op)
    _ = returned.wait(.seconds(5))
}

enum OpAddTwice: MisuseRule {
    static let id = "op.add-twice"
    static let title =
        "Adding an operation that is already on a queue to a queue is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, OperationQueue.addOperation(_:) ('An operation object can be in at most one operation queue at a time and this method throws an invalidArgumentException exception if the operation is already in another queue'); swift-corelibs-foundation Operation.swift (fatalError 'operations finished, executing or already in a queue cannot be enqueued')"
    static let objectLabel = "arena.op.add-twice"
    static let keywords = ["already", "enqueued"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        let layer = engine.operations
        let first = layer.makeQueue(label: "arena.op.add-twice.first")
        first.isSuspended = true
        let op = layer.makeBlockOperation(label: objectLabel) {}
        first.addOperation(op)
        layer.makeQueue(label: "arena.op.add-twice.second").addOperation(op)
    }
}

enum OpStartEnqueued: MisuseRule {
    static let id = "op.start-enqueued"
    static let title =
        "start() on an operation waiting on a queue is misuse (its queue starts it): the process stops with a message naming the operation."
    static let source =
        "Apple, Operation.start() ('If you are adding an operation to a queue, you should not call this method'; calling it on an operation that is not ready raises an exception); swift-corelibs-foundation Operation.swift (fatalError 'something is trying to start the receiver simultaneously from more than one thread', measured on an operation of a suspended queue)"
    static let objectLabel = "arena.op.start-enqueued"
    static let keywords = ["queue"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        let layer = engine.operations
        let queue = layer.makeQueue(label: "arena.op.start-enqueued.queue")
        queue.isSuspended = true
        let op = layer.makeBlockOperation(label: objectLabel) {}
        queue.addOperation(op)
        op.start()
    }
}

enum OpStartExecuting: MisuseRule {
    static let id = "op.start-executing"
    static let title =
        "start() on an operation that is executing (from its own block) is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, Operation.start() (an operation starts once; 'isExecuting' while it runs); swift-corelibs-foundation Operation.swift (fatalError 'receiver is already executing')"
    static let objectLabel = "arena.op.start-executing"
    static let keywords = ["executing"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        misuseWhileRunning(engine.operations, label: objectLabel) { $0.start() }
    }
}

enum OpNegativeWidth: MisuseRule {
    static let id = "op.negative-width"
    static let title =
        "A negative maxConcurrentOperationCount other than the default (-1) is misuse: the process stops with a message naming the queue."
    static let source =
        "Apple, OperationQueue.maxConcurrentOperationCount (a count of operations, or defaultMaxConcurrentOperationCount); swift-corelibs-foundation Operation.swift (fatalError 'count (-5) cannot be negative', measured)"
    static let objectLabel = "arena.op.negative-width"
    static let keywords = ["maxConcurrentOperationCount", "negative"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        engine.operations.makeQueue(label: objectLabel).maxConcurrentOperationCount = -5
    }
}

enum OpBlockWhileExecuting: MisuseRule {
    static let id = "op.block-while-executing"
    static let title =
        "addExecutionBlock on a block operation that is executing (from one of its blocks) is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, BlockOperation.addExecutionBlock(_:) ('Calling this method while the receiver is executing or already finished causes an invalidArgumentException exception to be thrown'); swift-corelibs-foundation Operation.swift (fatalError 'blocks cannot be added after the operation has started executing or finished')"
    static let objectLabel = "arena.op.block-while-executing"
    static let keywords = ["addExecutionBlock"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        misuseWhileRunning(engine.operations, label: objectLabel) { $0.addExecutionBlock {} }
    }
}

enum OpBlockOnPlainOperation: MisuseRule {
    static let id = "op.block-on-plain-operation"
    static let title =
        "addExecutionBlock on an operation that is not a block operation (made with a main body) is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, BlockOperation.addExecutionBlock(_:) (execution blocks belong to block operations: Operation has no such method, so Swift rejects the call at compile time; the contract's protocol offers it on every operation, and stops where Foundation's types would not compile)"
    static let objectLabel = "arena.op.block-on-plain-operation"
    static let keywords = ["block operation"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        engine.operations.makeOperation(label: objectLabel) { _ in }.addExecutionBlock {}
    }
}

enum OpFinishTwice: MisuseRule {
    static let id = "op.finish-twice"
    static let title =
        "Calling an asynchronous operation's finish a second time is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, Operation (an asynchronous operation 'must generate KVO notifications' for isFinished once, when it finishes: finishing is a single transition, and its dependents and waiters are released once); the contract's asynchronous operation, whose finish replaces that transition"
    static let objectLabel = "arena.op.finish-twice"
    static let keywords = ["twice"]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        let layer = engine.operations
        let returned = Latch()
        let op = layer.makeAsynchronousOperation(label: objectLabel) { _, finish in
            finish()
            finish()
            returned.countDown()
        }
        layer.makeQueue(label: "arena.op.finish-twice.queue").addOperation(op)
        _ = returned.wait(.seconds(5))  // the second finish returned: the layer let it pass
    }
}

enum OpBlockWhileEnqueued: OperationRule {
    static let id = "op.block-while-enqueued"
    static let title =
        "A block added to a block operation that waits on a queue (suspended) runs with its first block, exactly once, before the operation finishes."
    static let source =
        "Apple, BlockOperation.addExecutionBlock(_:) (an exception only 'while the receiver is executing or already finished'); swift-corelibs-foundation Operation.swift (the check is isExecuting || isFinished; measured: a block added to an operation of a suspended queue runs once the queue resumes)"
    static let forbidden: [Outcome] = [.missing, .notOnce, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.block-while-enqueued")
        queue.isSuspended = true
        let hits = IndexCounters(2)
        let op = layer.makeBlockOperation(label: "arena.op.block-while-enqueued.op") { hits.hit(0) }
        queue.addOperation(op)
        op.addExecutionBlock { hits.hit(1) }
        let finishedEarly = op.isFinished
        queue.isSuspended = false
        let waited = BlockingCall { op.waitUntilFinished() }
        try expect(waited.returns(), .missing, "the operation with a block added while it waited finishing within 5 s")
        try expect(!finishedEarly, .wrongValue, "the operation finished while its queue was suspended")
        try expect(hits.hits(0) == 1, .notOnce, "its first block ran \(hits.hits(0)) times")
        try expect(hits.hits(1) == 1, hits.hits(1) == 0 ? .missing : .notOnce, "the block added while it waited ran \(hits.hits(1)) times")
    }
}
