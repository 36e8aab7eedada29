/// One operation of `EngineOperations`: its work, its dependencies and dependents, its stage and its queue, under one
/// mutex. Every call costs one or two uncontended lock round trips (~20 ns each).
///
/// Locking: an operation's lock is a leaf. Its queue may hold the queue lock while it takes an operation's lock, but
/// an operation never holds its lock while it takes another operation's or a queue's, and never runs user code or
/// calls into the engine under it.
///
/// References: a dependent holds its dependencies (`dependencies`); a dependency holds its dependents, and an enqueued
/// operation its queue, only until it finished. A cancelled operation that finishes early leaves its dependencies'
/// lists, so nothing it is part of outlives its finish as a cycle (short of a dependency cycle, which never finishes).
public final class EngineOperation<E: Engine, ReadyList: OperationReadyList, Admission: OperationAdmission>: LayerOperation,
    @unchecked Sendable
{
    /// What the operation runs.
    enum Work {
        /// A block operation: every block, concurrently through `Engine.apply` when there are several.
        case blocks([@Sendable () -> Void])
        /// An operation with a main body, called with the operation.
        case main(@Sendable (EngineOperation) -> Void)
        /// An asynchronous operation: `start` gets the operation and its `finish`.
        case start(@Sendable (EngineOperation, _ finish: @escaping @Sendable () -> Void) -> Void)
    }

    /// Where the operation stands; stages only move forward.
    enum Stage {
        /// Made, not on a queue.
        case idle
        /// On a queue, not started: it waits for its dependencies or for room.
        case enqueued
        /// Taken by its queue, which submitted it to the engine queue.
        case started
        /// Its work is running (for an asynchronous operation: until `finish`).
        case executing
        case finished
    }

    public let name: String?
    /// A queue's internal barrier (`addBarrierBlock`), not counted in `operationCount`.
    let isBarrier: Bool
    private let engine: E
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    /// Dropped when the operation runs or is skipped, so what the work captured goes with it.
    private var work: Work?
    private var stage = Stage.idle
    private var cancelled = false
    private var priority = OperationPriority.normal
    private var completion: (@Sendable () -> Void)?
    /// The dependencies added with `addDependency`, in order.
    private var dependencyList: [EngineOperation] = []
    /// The dependencies not known to have finished, the queue's hidden barrier dependencies included. The operation is
    /// ready when this is empty, or once it is cancelled.
    private var awaited: Set<ObjectIdentifier> = []
    /// The operations to tell when this one finishes.
    private var dependents: [EngineOperation] = []
    /// The queue, from `addOperation` until the operation finished.
    private var queue: EngineOperationQueue<E, ReadyList, Admission>?
    /// Order of addition on the queue, for the ready list.
    private var sequence = 0
    /// A group entered once, by the first `waitUntilFinished`, and left at the finish; most operations are never
    /// waited for, so most never make one.
    private var finishWaiters: E.Group?

    init(engine: E, name: String?, work: Work, isBarrier: Bool = false) {
        self.engine = engine
        self.name = name
        self.work = work
        self.isBarrier = isBarrier
    }

    /// The name misuse messages give.
    private var label: String { name ?? "unnamed" }

    // MARK: The contract

    /// Adds a block to run beside the others; a lock round trip and an array append. Until the operation executes it
    /// may wait on a queue (its work is taken under the lock when it starts: the block runs with the others). Misuse
    /// on an operation that is not a block operation, or once it executes or finished (Foundation stops there too).
    public func addExecutionBlock(_ block: @escaping @Sendable () -> Void) {
        lock.lock()
        guard stage != .executing && stage != .finished else {
            lock.unlock()
            misuse("operation '\(label)': addExecutionBlock after it started executing or finished")
        }
        guard case .blocks(var blocks) = work else {
            lock.unlock()
            misuse("operation '\(label)': addExecutionBlock on an operation that is not a block operation")
        }
        work = nil  // keeps `blocks` unique, so the append does not copy
        blocks.append(block)
        work = .blocks(blocks)
        lock.unlock()
    }

    /// Makes this operation wait for `operation`; two lock round trips, and a scan of the dependencies to skip a
    /// repeat.
    public func addDependency(_ operation: EngineOperation) {
        let added = lock.withLock {
            guard !dependencyList.contains(where: { $0 === operation }) else { return false }
            dependencyList.append(operation)
            return true
        }
        if added { track(operation)?.operationBecameReady(self) }
    }

    /// Stops waiting for `operation`; readies this one if it was the last awaited. Two lock round trips and a scan.
    public func removeDependency(_ operation: EngineOperation) {
        var found = false
        let readiedOn: EngineOperationQueue<E, ReadyList, Admission>? = lock.withLock {
            guard let index = dependencyList.firstIndex(where: { $0 === operation }) else { return nil }
            found = true
            dependencyList.remove(at: index)
            guard awaited.remove(ObjectIdentifier(operation)) != nil else { return nil }
            return turnedReady()
        }
        if found { operation.forget(self) }
        readiedOn?.operationBecameReady(self)
    }

    /// A copy of the dependency list: a lock round trip and an array retain.
    public var dependencies: [EngineOperation] { lock.withLock { dependencyList } }

    /// A lock round trip to read; setting it on an enqueued ready operation also re-files it in its queue's ready list.
    public var queuePriority: OperationPriority {
        get { lock.withLock { priority } }
        set {
            let readyOn: EngineOperationQueue<E, ReadyList, Admission>? = lock.withLock {
                guard priority != newValue else { return nil }
                priority = newValue
                // A fresh entry at the new priority; the one at the old priority is dropped as stale when taken.
                return stage == .enqueued && isReadyLocked ? queue : nil
            }
            readyOn?.operationBecameReady(self)
        }
    }

    /// A lock round trip.
    public var completionBlock: (@Sendable () -> Void)? {
        get { lock.withLock { completion } }
        set { lock.withLock { completion = newValue } }
    }

    /// Marks the operation cancelled; an enqueued one that waited for dependencies becomes ready, so that its queue
    /// clears it. A lock round trip, plus the queue's when that happens.
    public func cancel() {
        let readiedOn: EngineOperationQueue<E, ReadyList, Admission>? = lock.withLock {
            guard !cancelled, stage != .finished else { return nil }
            let wasReady = isReadyLocked
            cancelled = true
            return stage == .enqueued && !wasReady ? queue : nil
        }
        readiedOn?.operationBecameReady(self)
    }

    /// A lock round trip.
    public var isCancelled: Bool { lock.withLock { cancelled } }
    /// A lock round trip.
    public var isReady: Bool { lock.withLock { isReadyLocked } }
    /// A lock round trip.
    public var isExecuting: Bool { lock.withLock { stage == .executing } }
    /// A lock round trip.
    public var isFinished: Bool { lock.withLock { stage == .finished } }

    /// Blocks on an engine group that the operation leaves when it finishes; the first wait makes the group.
    public func waitUntilFinished() {
        guard let group = finishGroup() else { return }
        _ = group.wait(until: .distantFuture)
    }

    /// The same engine group, waited on until `deadline`: the contract's wait with a deadline costs what the engine's
    /// group wait costs.
    public func waitUntilFinished(until deadline: Deadline) -> WaitResult {
        guard let group = finishGroup() else { return .success }
        return group.wait(until: deadline)
    }

    /// Runs the operation on the caller's thread, off any queue: a lock round trip to claim it, then its work and
    /// finish as a queue would run them. Misuse when it is not ready (and not cancelled), on a queue, or executing.
    public func start() {
        lock.lock()
        switch stage {
        case .finished:
            lock.unlock()
            return
        case .idle where isReadyLocked:
            stage = .started
            lock.unlock()
        case .idle:
            lock.unlock()
            misuse("operation '\(label)': start() while it is not yet ready to execute (a dependency is unfinished)")
        case .enqueued, .started:
            lock.unlock()
            misuse("operation '\(label)': start() while it is on a queue")
        case .executing:
            lock.unlock()
            misuse("operation '\(label)': start() while it is already executing")
        }
        run()
    }

    // MARK: Dependencies

    private var isReadyLocked: Bool { awaited.isEmpty || cancelled }

    /// The queue to tell now that `awaited` changed: the operation just turned ready while enqueued. Under `lock`.
    private func turnedReady() -> EngineOperationQueue<E, ReadyList, Admission>? {
        awaited.isEmpty && !cancelled && stage == .enqueued ? queue : nil
    }

    /// Awaits `dependency` and asks it to report its finish. Returns the queue to tell if the operation turned ready
    /// meanwhile (the dependency had already finished): the caller tells it, without holding any lock of ours.
    func track(_ dependency: EngineOperation) -> EngineOperationQueue<E, ReadyList, Admission>? {
        let id = ObjectIdentifier(dependency)
        guard lock.withLock({ awaited.insert(id).inserted }) else { return nil }
        // Depending on itself is a cycle: awaited for good, and its own lock must not be taken twice.
        if dependency === self || dependency.notify(self) { return nil }
        return dependencyFinished(dependency)
    }

    /// Adds `dependent` to the operations told when this one finishes; false when it already finished.
    private func notify(_ dependent: EngineOperation) -> Bool {
        lock.withLock {
            guard stage != .finished else { return false }
            dependents.append(dependent)
            return true
        }
    }

    /// Drops `dependent` from the operations told when this one finishes.
    private func forget(_ dependent: EngineOperation) {
        lock.withLock {
            if let index = dependents.firstIndex(where: { $0 === dependent }) { dependents.remove(at: index) }
        }
    }

    /// Records that `dependency` finished; returns the queue to tell if that made this operation ready. Repeats and
    /// dependencies removed meanwhile change nothing.
    private func dependencyFinished(_ dependency: EngineOperation) -> EngineOperationQueue<E, ReadyList, Admission>? {
        lock.withLock {
            guard awaited.remove(ObjectIdentifier(dependency)) != nil else { return nil }
            return turnedReady()
        }
    }

    // MARK: Life on a queue (called by `EngineOperationQueue`)

    /// Joins `queue` as its `sequence`th operation. Misuse when the operation is on a queue already, or finished.
    func adopt(by queue: EngineOperationQueue<E, ReadyList, Admission>, sequence: Int) {
        lock.lock()
        guard stage == .idle else {
            lock.unlock()
            misuse("operation '\(label)' is already on a queue")
        }
        stage = .enqueued
        self.queue = queue
        self.sequence = sequence
        lock.unlock()
    }

    /// Its order of addition on its queue (`LayerQueue.operations`): a lock round trip.
    var sequenceOnQueue: Int { lock.withLock { sequence } }

    /// Its priority and order of addition if it is enqueued and ready (and so belongs in the ready list), else nil.
    func readyKey() -> (priority: OperationPriority, sequence: Int)? {
        lock.withLock { stage == .enqueued && isReadyLocked ? (priority, sequence) : nil }
    }

    /// Moves an enqueued, ready operation to `started` if its ready-list entry at `entryPriority` is current; the
    /// queue then submits it. False for a stale entry: the operation started already, is not ready any more, or was
    /// re-filed at another priority.
    func claim(at entryPriority: OperationPriority) -> Bool {
        lock.withLock {
            guard stage == .enqueued, isReadyLocked, priority == entryPriority else { return false }
            stage = .started
            return true
        }
    }

    /// Runs the operation's work on the engine queue, or skips it if cancelled, and finishes it (an asynchronous
    /// operation finishes when its `finish` is called).
    func run() {
        let work: Work? = lock.withLock {
            let work = cancelled ? nil : self.work
            self.work = nil
            if work != nil { stage = .executing }
            return work
        }
        switch work {
        case nil:
            finish()
        case .blocks(let blocks):
            if blocks.count == 1 {
                blocks[0]()
            } else {
                // Each block, on whichever thread `apply` gives it, runs in this operation's queue: the caller's mark
                // (nil for an operation started by hand) goes with it, as Foundation's blocks run in their queue.
                let mark = CurrentOperationQueue.current.map(UncheckedPointer.init)
                engine.apply(iterations: blocks.count) { index in
                    let previous = CurrentOperationQueue.exchange(mark?.pointer)
                    blocks[index]()
                    _ = CurrentOperationQueue.exchange(previous)
                }
            }
            finish()
        case .main(let main):
            main(self)
            finish()
        case .start(let start):
            start(self) { [self] in finish() }
        }
    }

    /// Marks the operation finished, then, outside the lock: wakes its waiters, readies its dependents, submits its
    /// completion block to the engine queue (the global queue for an operation started by hand) and gives its queue
    /// back the slot. A second call (an asynchronous operation's `finish` called twice) is misuse.
    private func finish() {
        lock.lock()
        guard stage != .finished else {
            lock.unlock()
            misuse("operation '\(label)': finish called twice")
        }
        let queue = self.queue  // nil for an operation started by hand
        stage = .finished
        self.queue = nil
        let dependents = self.dependents
        self.dependents = []
        let completion = self.completion
        self.completion = nil
        let waiters = finishWaiters
        // Cancelled, it may finish before some dependencies: it leaves their lists rather than be held by them.
        let unfinished = awaited.isEmpty ? [] : dependencyList.filter { awaited.contains(ObjectIdentifier($0)) }
        lock.unlock()

        for dependency in unfinished { dependency.forget(self) }
        waiters?.leave()
        for dependent in dependents { dependent.dependencyFinished(self)?.operationBecameReady(dependent) }
        if let completion { (queue?.engineQueue ?? engine.globalQueue).async(completion) }
        queue?.operationFinished(self)
    }

    /// The group to wait on for the finish, made and entered by the first waiter; nil once finished.
    private func finishGroup() -> E.Group? {
        let (finished, existing) = lock.withLock { (stage == .finished, finishWaiters) }
        if finished { return nil }
        if let existing { return existing }
        let made = engine.makeGroup(label: "operation '\(label)' finished")
        made.enter()
        let installed: E.Group? = lock.withLock {
            guard stage != .finished else { return nil }
            if finishWaiters == nil { finishWaiters = made }
            return finishWaiters
        }
        if installed !== made { made.leave() }  // finished meanwhile, or another waiter's group won: balance ours
        return installed
    }
}
