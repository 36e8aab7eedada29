import ArenaContract
import Contenders
import Harness

/// A correct operation layer with one fault (see `Fault`, the operation-queue cases): every call is forwarded to
/// the base layer's queue or operation, and only the call the fault names misbehaves. Under any other fault the
/// wrapper is transparent, so a mutant's operation rules see the base layer as it is.
struct MutantOperations<Base: OperationLayer>: OperationLayer {
    typealias Queue = MutantOperationQueue<Base>
    typealias Operation = MutantOperation<Base>
    typealias UnderlyingQueue = Base.UnderlyingQueue

    let fault: Fault
    let base: Base

    init(fault: Fault, base: Base) {
        self.fault = fault
        self.base = base
    }

    /// The shared state of a new operation; under `dependencyOnFinishedNeverReady` it holds an operation that never
    /// finishes, which a dependency on a finished operation becomes.
    private func state(isBlockOperation: Bool = false) -> MutantOperationState<Base> {
        let standIn = fault == .dependencyOnFinishedNeverReady ? base.makeBlockOperation(label: "mutant.never-finishes") {} : nil
        return MutantOperationState<Base>(fault: fault, standIn: standIn, isBlockOperation: isBlockOperation)
    }

    func makeQueue(label: String) -> MutantOperationQueue<Base> {
        MutantOperationQueue(base: base.makeQueue(label: label), fault: fault, layer: base)
    }

    /// The wrapper of the base layer's main queue, made once; under `mainOperationsOffLoop`, of a plain queue instead.
    var mainQueue: MutantOperationQueue<Base> {
        let key = "\(fault.rawValue) \(Base.self)"
        return mutantMainQueues.withLock { queues in
            if let known = queues[key] as? MutantOperationQueue<Base> { return known }
            let underlying = fault == .mainOperationsOffLoop ? base.makeQueue(label: "mutant main operation queue") : base.mainQueue
            let made = MutantOperationQueue<Base>(base: underlying, fault: fault)
            queues[key] = made
            return made
        }
    }

    /// The wrapper of the base layer's current queue; always nil under `currentQueueNil`.
    var currentQueue: MutantOperationQueue<Base>? {
        if fault == .currentQueueNil { return nil }
        guard let current = base.currentQueue else { return nil }
        return MutantOperationQueue<Base>.wrapper(of: current)
    }

    func makeUnderlyingQueue(label: String, kind: QueueKind) -> Base.UnderlyingQueue {
        base.makeUnderlyingQueue(label: label, kind: kind)
    }

    func makeBlockOperation(label: String, _ block: @escaping @Sendable () -> Void) -> MutantOperation<Base> {
        let state = state(isBlockOperation: true)
        return MutantOperation(base.makeBlockOperation(label: label, state.guarded(block)), state: state)
    }

    func makeOperation(label: String, main: @escaping @Sendable (MutantOperation<Base>) -> Void) -> MutantOperation<Base> {
        let state = state()
        let made = base.makeOperation(label: label) { underlying in
            if state.skipsWork { return }
            main(MutantOperation(underlying, state: state))
        }
        return MutantOperation(made, state: state)
    }

    func makeAsynchronousOperation(
        label: String,
        start: @escaping @Sendable (MutantOperation<Base>, _ finish: @escaping @Sendable () -> Void) -> Void
    )
        -> MutantOperation<Base>
    {
        let state = state()
        let made = base.makeAsynchronousOperation(label: label) { underlying, finish in
            if state.skipsWork { return finish() }
            let operation = MutantOperation(underlying, state: state)
            if state.fault == .asyncFinishesOnReturn {
                start(operation) {}
                finish()
            } else if state.fault == .finishTwiceIgnored {
                let finished = Locked(false)
                start(operation) {
                    let first = finished.withLock { wasFinished in
                        defer { wasFinished = true }
                        return !wasFinished
                    }
                    if first { finish() }
                }
            } else {
                start(operation, finish)
            }
        }
        return MutantOperation(made, state: state)
    }
}

/// What the wrappers of one base operation share: the operation's own `main` and `start` get a fresh wrapper of the
/// base operation, which must see what the check's wrapper set.
final class MutantOperationState<Base: OperationLayer>: Sendable {
    let fault: Fault
    /// The wrappers given to `addDependency`, so that `dependencies` returns them.
    let dependencies = Locked<[MutantOperation<Base>]>([])
    /// Set by `cancel` under the faults that keep the cancellation from the base operation.
    let cancelled = Locked(false)
    /// Whether the operation was added to a queue (`priorityFixedAtEnqueue`).
    let enqueued = Locked(false)
    /// The priority last set, read back under the faults that keep it from the base operation.
    let priority = Locked<OperationPriority?>(nil)
    /// The completion block as set, read back and run early under `completionEarly`.
    let completion = Locked<(@Sendable () -> Void)?>(nil)
    /// Whether a block operation's block started, under `barrierSkipsExecuting`.
    let started = Locked(false)
    /// Whether the operation was made by `makeBlockOperation`, under `blockOnPlainOperationIgnored`.
    let isBlockOperation: Bool

    /// Under `dependencyOnFinishedNeverReady`: an operation never added to a queue, so never finished.
    let standIn: Base.Operation?

    init(fault: Fault, standIn: Base.Operation? = nil, isBlockOperation: Bool = false) {
        self.fault = fault
        self.standIn = standIn
        self.isBlockOperation = isBlockOperation
    }

    /// Whether the work is skipped: under `cancelWaitsForDependencies` a cancelled operation runs only when its
    /// dependencies let it, and then does nothing.
    var skipsWork: Bool { fault == .cancelWaitsForDependencies && cancelled.snapshot }

    /// `block`, skipped as `skipsWork` says; `block` itself under every fault that never skips.
    func guarded(_ block: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        if fault == .barrierSkipsExecuting {
            return { [self] in
                started.withLock { $0 = true }
                block()
            }
        }
        guard fault == .cancelWaitsForDependencies else { return block }
        return { [self] in if !skipsWork { block() } }
    }
}

/// A base operation with the fault applied. Two wrappers of one base operation behave alike (they share the state).
final class MutantOperation<Base: OperationLayer>: LayerOperation, @unchecked Sendable {
    let base: Base.Operation
    let state: MutantOperationState<Base>
    private var fault: Fault { state.fault }

    init(_ base: Base.Operation, state: MutantOperationState<Base>) {
        self.base = base
        self.state = state
    }

    var name: String? { base.name }

    func addExecutionBlock(_ block: @escaping @Sendable () -> Void) {
        if fault == .executionBlocksDropped { return }
        if fault == .blockWhileExecutingIgnored && (base.isExecuting || base.isFinished) { return }
        if fault == .blockOnPlainOperationIgnored && !state.isBlockOperation { return }
        base.addExecutionBlock(state.guarded(block))
    }

    func addDependency(_ operation: MutantOperation<Base>) {
        state.dependencies.withLock { list in
            if !list.contains(where: { $0 === operation }) { list.append(operation) }
        }
        if fault == .dependencyOnFinishedNeverReady, operation.base.isFinished, let standIn = state.standIn {
            // Waits for a finish notice that already went out: the operation stays unready.
            return base.addDependency(standIn)
        }
        if fault != .dependenciesIgnored { base.addDependency(operation.base) }
    }

    func removeDependency(_ operation: MutantOperation<Base>) {
        state.dependencies.withLock { list in list.removeAll { $0 === operation } }
        if fault != .removeDependencyIgnored { base.removeDependency(operation.base) }
    }

    var dependencies: [MutantOperation<Base>] { state.dependencies.snapshot }

    var queuePriority: OperationPriority {
        get { state.priority.snapshot ?? base.queuePriority }
        set {
            state.priority.withLock { $0 = newValue }
            switch fault {
            case .queuePriorityIgnored: break
            case .priorityFixedAtEnqueue where state.enqueued.snapshot: break
            default: base.queuePriority = newValue
            }
        }
    }

    var completionBlock: (@Sendable () -> Void)? {
        get { state.completion.snapshot }
        set {
            state.completion.withLock { $0 = newValue }
            switch fault {
            case .completionTwice:
                guard let block = newValue else {
                    base.completionBlock = nil
                    return
                }
                base.completionBlock = {
                    block()
                    block()
                }
            case .completionEarly: base.completionBlock = nil
            default: base.completionBlock = newValue
            }
        }
    }

    func cancel() {
        switch fault {
        case .operationCancelIgnored: return
        case .cancelRunsWork: state.cancelled.withLock { $0 = true }
        case .cancelWaitsForDependencies where !base.isReady && !base.isFinished: state.cancelled.withLock { $0 = true }
        default: base.cancel()
        }
    }

    var isCancelled: Bool { state.cancelled.snapshot || base.isCancelled }
    var isReady: Bool { base.isReady }
    var isExecuting: Bool { fault == .executingNeverReported ? false : base.isExecuting }
    var isFinished: Bool { base.isFinished }

    func waitUntilFinished() {
        if fault == .operationWaitReturnsAtOnce { return }
        base.waitUntilFinished()
    }

    func waitUntilFinished(until deadline: Deadline) -> WaitResult {
        if fault == .timedWaitSucceedsAtOnce { return .success }
        return base.waitUntilFinished(until: deadline)
    }

    func start() {
        switch fault {
        case .startWhileEnqueuedIgnored where state.enqueued.snapshot && !base.isExecuting && !base.isFinished:
            return
        case .startWhileExecutingIgnored where base.isExecuting:
            return
        case .startOnAnotherThread:
            Threads.detach { [base] in base.start() }
        case .startIgnoresReadiness:
            for dependency in dependencies { base.removeDependency(dependency.base) }
            base.start()
        default:
            base.start()
        }
    }
}

/// A base queue with the fault applied.
final class MutantOperationQueue<Base: OperationLayer>: LayerQueue, @unchecked Sendable {
    typealias Operation = MutantOperation<Base>

    let base: Base.Queue
    private let fault: Fault
    /// The width and suspension as set, read back under `widthIgnored` and `operationSuspendIgnored`.
    private let width = Locked(Base.Queue.unlimited)
    private let suspended = Locked(false)
    /// The operation added last, which the next waits for under `serialInAdditionOrder` at width 1.
    private let lastAdded = Locked<Base.Operation?>(nil)
    /// Under `barrierSkipsExecuting`: the layer (to make barriers of), the operations added, and the last barrier.
    private let layer: Base?
    private let tracked = Locked<[MutantOperation<Base>]>([])
    private let lastBarrier = Locked<Base.Operation?>(nil)
    /// The wrappers of the operations added, by base operation, so that `operations` lists them.
    private let added = Locked<[ObjectIdentifier: MutantOperation<Base>]>([:])
    /// The underlying queue as set, read back under `underlyingQueueIgnored`.
    private let underlying = Locked<Base.UnderlyingQueue?>(nil)

    init(base: Base.Queue, fault: Fault, layer: Base? = nil) {
        self.base = base
        self.fault = fault
        self.layer = layer
        mutantQueueWrappers.withLock { $0[ObjectIdentifier(base)] = WeakQueue(queue: self) }
    }

    /// The wrapper made for `base`, while it lives.
    static func wrapper(of base: Base.Queue) -> MutantOperationQueue? {
        mutantQueueWrappers.withLock { $0[ObjectIdentifier(base)]?.queue as? MutantOperationQueue }
    }

    static var unlimited: Int { Base.Queue.unlimited }

    var name: String? { base.name }

    /// What the fault does to an operation as it is enqueued.
    private func enqueuing(_ operation: MutantOperation<Base>) {
        operation.state.enqueued.withLock { $0 = true }
        if fault == .barrierSkipsExecuting {
            tracked.withLock { $0.append(operation) }
            if let barrier = lastBarrier.snapshot, !barrier.isFinished { operation.base.addDependency(barrier) }
        }
        added.withLock { $0[ObjectIdentifier(operation.base)] = operation }
        switch fault {
        case .completionEarly:
            if let completion = operation.state.completion.snapshot { Threads.detach { completion() } }
        case .serialInAdditionOrder where maxConcurrentOperationCount == 1:
            let previous = lastAdded.withLock { last in
                defer { last = operation.base }
                return last
            }
            if let previous, !previous.isFinished { operation.base.addDependency(previous) }
        default: break
        }
    }

    func addOperation(_ operation: MutantOperation<Base>) {
        if fault == .enqueueTwiceIgnored && (operation.state.enqueued.snapshot || operation.base.isExecuting || operation.base.isFinished) {
            return
        }
        enqueuing(operation)
        base.addOperation(operation.base)
    }

    func addOperations(_ operations: [MutantOperation<Base>], waitUntilFinished: Bool) {
        for operation in operations { enqueuing(operation) }
        base.addOperations(operations.map(\.base), waitUntilFinished: waitUntilFinished && fault != .addWaitingReturnsAtOnce)
    }

    func addOperation(_ block: @escaping @Sendable () -> Void) { base.addOperation(block) }

    func addBarrierBlock(_ block: @escaping @Sendable () -> Void) {
        if fault == .barrierSkipsExecuting, let layer {
            // The barrier waits for the operations still pending only: those executing already left the list it reads.
            let barrier = layer.makeBlockOperation(label: "mutant.barrier", block)
            for operation in tracked.snapshot where !operation.state.started.snapshot && !operation.base.isFinished {
                barrier.addDependency(operation.base)
            }
            lastBarrier.withLock { $0 = barrier }
            return base.addOperation(barrier)
        }
        if fault == .operationBarrierIgnored { base.addOperation(block) } else { base.addBarrierBlock(block) }
    }

    var maxConcurrentOperationCount: Int {
        get { fault == .widthIgnored ? width.snapshot : base.maxConcurrentOperationCount }
        set {
            if fault == .negativeWidthIgnored && newValue < -1 { return }
            width.withLock { $0 = newValue }
            if fault != .widthIgnored { base.maxConcurrentOperationCount = newValue }
        }
    }

    var isSuspended: Bool {
        get { fault == .operationSuspendIgnored ? suspended.snapshot : base.isSuspended }
        set {
            suspended.withLock { $0 = newValue }
            if fault != .operationSuspendIgnored { base.isSuspended = newValue }
        }
    }

    var operationCount: Int { fault == .operationCountIgnored ? 0 : base.operationCount }

    var operations: [MutantOperation<Base>] {
        let listed = base.operations.map { operation in
            added.withLock { $0[ObjectIdentifier(operation)] } ?? MutantOperation(operation, state: MutantOperationState(fault: fault))
        }
        added.withLock { known in
            let current = Set(listed.map { ObjectIdentifier($0.base) })
            known = known.filter { current.contains($0.key) }
        }
        return fault == .operationsReversed ? listed.reversed() : listed
    }

    var underlyingQueue: Base.UnderlyingQueue? {
        get { fault == .underlyingQueueIgnored ? underlying.snapshot : base.underlyingQueue }
        set {
            if fault == .underlyingSetWhileBusyAllowed && base.operationCount > 0 { return }
            underlying.withLock { $0 = newValue }
            if fault != .underlyingQueueIgnored { base.underlyingQueue = newValue }
        }
    }

    func waitUntilAllOperationsAreFinished(until deadline: Deadline) -> WaitResult {
        if fault == .timedWaitSucceedsAtOnce { return .success }
        return base.waitUntilAllOperationsAreFinished(until: deadline)
    }

    func cancelAllOperations() {
        if fault == .cancelAllIgnored { return }
        base.cancelAllOperations()
    }

    func waitUntilAllOperationsAreFinished() {
        if fault == .waitAllReturnsAtOnce { return }
        base.waitUntilAllOperationsAreFinished()
    }
}

/// A mutant queue wrapper, held weakly by the table that finds it again from its base queue.
private struct WeakQueue {
    weak var queue: AnyObject?
}

/// The wrapper of each base queue (`MutantOperations.currentQueue`), by the base queue's identity.
private let mutantQueueWrappers = Locked<[ObjectIdentifier: WeakQueue]>([:])

/// The main-queue wrapper of each mutant layer, by fault and base layer type.
private let mutantMainQueues = Locked<[String: AnyObject]>([:])
