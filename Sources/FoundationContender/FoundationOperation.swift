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

    init(_ operation: Operation) {
        self.operation = operation
        (operation as? BodyOwning)?.owner = self
    }

    public var name: String? { operation.name }

    public func addExecutionBlock(_ block: @escaping @Sendable () -> Void) {
        guard let blocks = operation as? BlockOperation else {
            misuse("operation '\(name ?? "")' is not a block operation: it takes no execution blocks")
        }
        blocks.addExecutionBlock(block)
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
}

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
