import ArenaContract
import Contenders
import Foundation

/// A Foundation operation behind `LayerOperation`: a `BlockOperation`, or one of the two subclasses below, with
/// every call forwarded. The wrapper keeps the dependencies it was given, so that `dependencies` returns wrappers.
public final class FoundationOperation: LayerOperation, @unchecked Sendable {
    /// The operation every call goes to.
    public let operation: Operation
    private let lock = NSLock()
    private var dependencyList: [FoundationOperation] = []
    private var completion: (@Sendable () -> Void)?
    /// Set when a queue of this layer took it: Foundation keeps the fact private.
    private var enqueued = false

    init(_ operation: Operation) {
        self.operation = operation
        (operation as? BodyOwning)?.owner = self
        operationWrappers.register(self, for: operation)
    }

    deinit { operationWrappers.forget(operation) }

    /// The wrapper of `operation`: the one the caller made, while it lives, else a new one (an operation Foundation
    /// made, such as the block operation of `addOperation(_:)`). A lock round trip and a dictionary look-up.
    static func wrapping(_ operation: Operation) -> FoundationOperation {
        operationWrappers.wrapper(of: operation) ?? FoundationOperation(operation)
    }

    public var name: String? { operation.name }

    /// Foundation's `addExecutionBlock`, after the check Foundation makes too (`fatalError("blocks cannot be added
    /// after the operation has started executing or finished")`, without the operation's name), said with its name.
    public func addExecutionBlock(_ block: @escaping @Sendable () -> Void) {
        guard let blocks = operation as? BlockOperation else {
            misuse("operation '\(name ?? "")' is not a block operation: it takes no execution blocks")
        }
        if blocks.isExecuting || blocks.isFinished {
            misuse("operation '\(name ?? "")': addExecutionBlock after it started executing or finished")
        }
        blocks.addExecutionBlock(block)
    }

    /// Marks the operation taken by a queue, after the check Foundation makes (`fatalError("operations finished,
    /// executing or already in a queue cannot be enqueued")`, without a name), said with its name.
    func enqueue() {
        let before = lock.withLock {
            defer { enqueued = true }
            return enqueued
        }
        if before || operation.isExecuting || operation.isFinished {
            misuse("operation '\(name ?? "")' is already on a queue, executing or finished: it cannot be enqueued")
        }
    }

    public func addDependency(_ other: FoundationOperation) {
        lock.withLock { if !dependencyList.contains(where: { $0 === other }) { dependencyList.append(other) } }
        operation.addDependency(other.operation)
    }

    public func removeDependency(_ other: FoundationOperation) {
        lock.withLock { dependencyList.removeAll { $0 === other } }
        operation.removeDependency(other.operation)
    }

    public var dependencies: [FoundationOperation] { lock.withLock { dependencyList } }

    public var queuePriority: OperationPriority {
        get { OperationPriority(rawValue: operation.queuePriority.rawValue) ?? .normal }
        set { operation.queuePriority = Operation.QueuePriority(rawValue: newValue.rawValue) ?? .normal }
    }

    /// Kept here as well as given to Foundation, whose property holds a block that is not `@Sendable`.
    public var completionBlock: (@Sendable () -> Void)? {
        get { lock.withLock { completion } }
        set {
            lock.withLock { completion = newValue }
            operation.completionBlock = newValue
        }
    }

    public func cancel() { operation.cancel() }
    public var isCancelled: Bool { operation.isCancelled }
    public var isReady: Bool { operation.isReady }
    public var isExecuting: Bool { operation.isExecuting }
    public var isFinished: Bool { operation.isFinished }
    public func waitUntilFinished() { operation.waitUntilFinished() }

    /// Foundation has no wait with a deadline: its `waitUntilFinished` on a thread of its own (`FoundationWaiter`),
    /// none when the operation finished already.
    public func waitUntilFinished(until deadline: Deadline) -> WaitResult {
        if operation.isFinished { return .success }
        let operation = operation
        return FoundationWaiter.wait(until: deadline) { operation.waitUntilFinished() }
    }

    /// Foundation's `start()`, after the checks Foundation makes too, whose messages do not name the operation
    /// ("receiver is not yet ready to execute", "receiver is already executing", "something is trying to start the
    /// receiver simultaneously from more than one thread" for one waiting on a queue): each is misuse, said with its
    /// name.
    public func start() {
        if operation.isFinished { return operation.start() }
        if operation.isExecuting { misuse("operation '\(name ?? "")': start() while it is already executing") }
        if lock.withLock({ enqueued }) { misuse("operation '\(name ?? "")': start() while it is on a queue") }
        if !operation.isCancelled && !operation.isReady {
            misuse("operation '\(name ?? "")': start() while it is not yet ready to execute")
        }
        operation.start()
    }
}

/// Foundation's waits with a deadline, which Foundation lacks: Foundation's own blocking wait (`waitUntilFinished`,
/// `waitUntilAllOperationsAreFinished`) on a thread of its own, which signals a semaphore the caller waits on until the
/// deadline. A wait that timed out leaves its thread blocked until Foundation's wait returns. One thread per call
/// that does not return at once: the waits are the conformance checks', never a workload's hot path. (A waiter
/// operation depending on the awaited ones, as this was, meets two of swift-corelibs-foundation's faults: a waiter
/// added as its last dependency finishes may never start, docs/FINDINGS.md §12, and cancelling a timed-out one crashes,
/// §2; and it waited for a snapshot of the queue where Foundation's wait also waits for what is added meanwhile.)
enum FoundationWaiter {
    /// Waits until `wait` returned, on a thread of its own, or `deadline` passed.
    static func wait(until deadline: Deadline, _ wait: @escaping @Sendable () -> Void) -> WaitResult {
        let semaphore = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            wait()
            semaphore.signal()
        }
        while true {
            if semaphore.wait(timeout: deadline.dispatchTime) == .success { return .success }
            // libdispatch on Linux ends a timed semaphore wait at a CLOCK_REALTIME instant (sem_timedwait), made from
            // a realtime and a monotonic reading: a step of the realtime clock, or a preemption between the readings,
            // ends it before its monotonic deadline (seen once, in CI's quiet matrix: op.wait-deadline on foundation,
            // "timed out before its deadline"). The contract's wait ends at the deadline: wait out the rest.
            if Deadline.now() >= deadline { return .timedOut }
        }
    }
}

/// Which wrapper stands for which Foundation object: wrappers register themselves weakly, so that what Foundation
/// hands back (`OperationQueue.current`, `operations`) is given as the wrapper the caller holds.
final class FoundationWrappers<Wrapper: AnyObject>: @unchecked Sendable {
    private struct Weak {
        weak var wrapper: Wrapper?
    }

    private let lock = NSLock()
    private var wrappers: [ObjectIdentifier: Weak] = [:]

    func register(_ wrapper: Wrapper, for object: AnyObject) {
        lock.withLock { wrappers[ObjectIdentifier(object)] = Weak(wrapper: wrapper) }
    }

    func forget(_ object: AnyObject) {
        lock.withLock { _ = wrappers.removeValue(forKey: ObjectIdentifier(object)) }
    }

    func wrapper(of object: AnyObject) -> Wrapper? {
        lock.withLock { wrappers[ObjectIdentifier(object)]?.wrapper }
    }
}

/// The wrappers of Foundation's operations and queues.
let operationWrappers = FoundationWrappers<FoundationOperation>()
let queueWrappers = FoundationWrappers<FoundationOperationQueue>()

/// A Foundation operation that hands its wrapper to the caller's body.
protocol BodyOwning: AnyObject {
    var owner: FoundationOperation? { get set }
}

/// An `Operation` subclass overriding `main()`, as the concurrency guide's non-concurrent operations do.
final class MainBodyOperation: Operation, BodyOwning, @unchecked Sendable {
    private let body: @Sendable (FoundationOperation) -> Void
    /// Weak: the wrapper holds this operation; a body whose wrapper is gone gets a fresh one.
    weak var owner: FoundationOperation?

    init(label: String, main: @escaping @Sendable (FoundationOperation) -> Void) {
        body = main
        super.init()
        name = label
    }

    override func main() { body(owner ?? FoundationOperation(self)) }
}

/// An asynchronous `Operation` subclass, as the concurrency guide's concurrent operations are: it overrides `start()`,
/// `isAsynchronous`, `isExecuting` and `isFinished`, and reports the last two changing (`didChangeValue(forKey:)`,
/// which is how swift-corelibs-foundation's queue learns of them, with no key-value observing on Linux).
final class AsynchronousBodyOperation: Operation, BodyOwning, @unchecked Sendable {
    private let body: @Sendable (FoundationOperation, @escaping @Sendable () -> Void) -> Void
    private let stateLock = NSLock()
    private var executing = false
    private var finished = false
    weak var owner: FoundationOperation?

    init(label: String, start: @escaping @Sendable (FoundationOperation, @escaping @Sendable () -> Void) -> Void) {
        body = start
        super.init()
        name = label
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { stateLock.withLock { executing } }
    override var isFinished: Bool { stateLock.withLock { finished } }

    override func start() {
        if isCancelled {
            stateLock.withLock { finished = true }
            didChangeValue(forKey: "isFinished")
            return
        }
        stateLock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        body(owner ?? FoundationOperation(self)) { [self] in finish() }
    }

    private func finish() {
        let first = stateLock.withLock {
            defer { (executing, finished) = (false, true) }
            return !finished
        }
        guard first else { misuse("operation '\(name ?? "")': finish called twice") }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
