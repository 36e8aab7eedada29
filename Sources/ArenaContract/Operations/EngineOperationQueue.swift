import Glibc

/// An operation queue of `EngineOperations`: it starts its ready operations on a concurrent engine queue of its own,
/// in its `ReadyList`'s order (highest priority, then oldest, first), as its `Admission` allows (never more at a time
/// than `maxConcurrentOperationCount`, counted here, so width 1 makes it serial), and waits for them on an engine
/// group entered per added operation.
///
/// The ready list, the members and the counts sit under one mutex, held briefly: engine submissions and group calls
/// happen after it is released. It may take an operation's lock while holding its own (`EngineOperation` explains
/// the order). Each added operation costs a few lock round trips, a heap insert and take, a dictionary insert and
/// removal, one `async` onto the engine queue, and a group enter and leave.
public final class EngineOperationQueue<E: Engine, ReadyList: OperationReadyList, Admission: OperationAdmission>: LayerQueue,
    @unchecked Sendable
{
    public typealias Operation = EngineOperation<E, ReadyList, Admission>
    public typealias UnderlyingQueue = E.Queue

    /// Width left to the engine (`OperationQueue.defaultMaxConcurrentOperationCount`): ready operations are submitted
    /// as they come, and the engine queue decides how many run.
    public static var unlimited: Int { WidthAdmission.unlimited }

    public let name: String?
    private let engine: E
    /// Where the operations run and the completion blocks are submitted.
    let engineQueue: E.Queue
    /// Entered per added operation (barriers too) and left as each finishes.
    private let unfinished: E.Group
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    private var ready = ReadyList()
    /// Every operation added and not finished, barriers included (`cancelAllOperations`, `addBarrierBlock`).
    private var members: [ObjectIdentifier: Operation] = [:]
    /// The barriers not finished: every operation added meanwhile waits for each.
    private var barriers: [Operation] = []
    private var nextSequence = 0
    /// Operations started and not finished (an asynchronous one holds its slot until `finish`).
    private var running = 0
    private var width = EngineOperationQueue.unlimited
    private var suspended = false
    /// The dispatch queue set as `underlyingQueue`, where operations are submitted instead of `engineQueue`.
    private var underlying: E.Queue?
    /// Whether this is the engine's main operation queue: width 1 on the main queue, settings fixed.
    private let isMain: Bool

    /// A queue over a new concurrent queue of `engine` and a new group (`EngineOperations.makeQueue`).
    public init(engine: E, label: String) {
        self.engine = engine
        self.name = label
        engineQueue = engine.makeQueue(label: label, kind: .concurrent)
        unfinished = engine.makeGroup(label: "\(label) unfinished")
        isMain = false
    }

    /// The main operation queue over `engine.mainQueue` (`EngineOperations.mainQueue` makes it once per engine).
    init(mainOf engine: E) {
        self.engine = engine
        name = "main operation queue"
        engineQueue = engine.mainQueue
        unfinished = engine.makeGroup(label: "main operation queue unfinished")
        width = 1
        isMain = true
    }

    // MARK: The contract

    /// Adds `operation`, which starts once ready and given room.
    public func addOperation(_ operation: Operation) {
        add(CollectionOfOne(operation))
    }

    /// Adds `operations` under one lock round trip; with `waitUntilFinished`, waits for each on its own group.
    public func addOperations(_ operations: [Operation], waitUntilFinished: Bool) {
        add(operations)
        if waitUntilFinished {
            for operation in operations { operation.waitUntilFinished() }
        }
    }

    /// Adds a new block operation made from `block`: one allocation more than `addOperation`.
    public func addOperation(_ block: @escaping @Sendable () -> Void) {
        add(CollectionOfOne(Operation(engine: engine, name: nil, work: .blocks([block]))))
    }

    /// Adds an internal operation that depends on every unfinished operation of the queue and that every operation
    /// added later depends on until it finished; O(operations on the queue).
    public func addBarrierBlock(_ block: @escaping @Sendable () -> Void) {
        let barrier = Operation(engine: engine, name: "\(name ?? "queue") barrier", work: .blocks([block]), isBarrier: true)
        unfinished.enter()
        lock.lock()
        // A member finishing meanwhile is fine: `track` learns it finished and does not wait for it.
        for member in members.values { _ = barrier.track(member) }
        admit(barrier)
        barriers.append(barrier)
        let starts = takeStarts()
        lock.unlock()
        submit(starts)
    }

    /// A lock round trip; setting it starts what the new width allows. Negative values other than `unlimited` are
    /// misuse. The main queue keeps width 1, as Foundation's does.
    public var maxConcurrentOperationCount: Int {
        get { lock.withLock { width } }
        set {
            if newValue < 0 && newValue != Self.unlimited {
                misuse("maxConcurrentOperationCount \(newValue) on operation queue '\(name ?? "queue")'")
            }
            if !isMain { update { width = newValue } }
        }
    }

    /// A lock round trip; setting it false starts what is ready. The main queue is never suspended, as Foundation's.
    public var isSuspended: Bool {
        get { lock.withLock { suspended } }
        set { if !isMain { update { suspended = newValue } } }
    }

    /// A lock round trip, a copy of the members and a sort by order of addition: O(n log n).
    public var operations: [Operation] {
        let listed = lock.withLock { members.values.filter { !$0.isBarrier } }
        return listed.map { ($0.sequenceOnQueue, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// A lock round trip. Setting it on a queue with operations is misuse; the main queue's is the engine's main
    /// queue, for good.
    public var underlyingQueue: E.Queue? {
        get { isMain ? engineQueue : lock.withLock { underlying } }
        set {
            guard !isMain else { return }
            lock.lock()
            guard members.count == barriers.count else {
                let count = members.count - barriers.count
                lock.unlock()
                misuse(
                    "operation queue '\(name ?? "queue")' must be empty to change its underlying queue (\(count) operations on it)")
            }
            underlying = newValue
            lock.unlock()
        }
    }

    /// A lock round trip.
    public var operationCount: Int { lock.withLock { members.count - barriers.count } }

    /// Cancels every operation on the queue, barriers included (as Foundation does): a copy of the members, then each
    /// operation's `cancel`.
    public func cancelAllOperations() {
        let operations = lock.withLock { Array(members.values) }
        for operation in operations { operation.cancel() }
    }

    /// Waits on the engine group the queue enters per added operation.
    public func waitUntilAllOperationsAreFinished() {
        _ = unfinished.wait(until: .distantFuture)
    }

    /// The same group, waited on until `deadline`: what the engine's group wait costs.
    public func waitUntilAllOperationsAreFinished(until deadline: Deadline) -> WaitResult {
        unfinished.wait(until: deadline)
    }

    // MARK: Scheduling

    /// Adds `operations` in order under one lock round trip, entering the group for each first, so that none can
    /// finish before it is counted.
    private func add(_ operations: some Collection<Operation>) {
        for _ in operations { unfinished.enter() }
        lock.lock()
        for operation in operations { admit(operation) }
        let starts = takeStarts()
        lock.unlock()
        submit(starts)
    }

    /// Makes `operation` a member: its order of addition, the barriers it waits for, and a ready-list entry if it is
    /// ready. Under `lock`, so that a barrier added from another thread is either before or after it.
    private func admit(_ operation: Operation) {
        operation.adopt(by: self, sequence: nextSequence)
        nextSequence += 1
        members[ObjectIdentifier(operation)] = operation
        // A barrier that finished meanwhile is not awaited; the entry below covers an operation ready either way.
        for barrier in barriers { _ = operation.track(barrier) }
        file(operation)
    }

    /// Puts `operation` in the ready list if it is enqueued and ready. Under `lock`.
    private func file(_ operation: Operation) {
        if let key = operation.readyKey() {
            ready.insert(OperationReadyEntry(operation: operation, priority: key.priority, sequence: key.sequence))
        }
    }

    /// Takes the ready operations that may start now, marking each started. Under `lock`; the caller submits them
    /// once it released it.
    private func takeStarts() -> [Operation] {
        var starts: [Operation] = []
        while !suspended, Admission.admits(running: running, width: width), let entry = ready.popFirst() {
            // Only this queue files entries in its list, so each holds one of its operations.
            let operation = unsafeDowncast(entry.operation, to: Operation.self)
            guard operation.claim(at: entry.priority) else { continue }  // a stale entry
            running += 1
            starts.append(operation)
        }
        return starts
    }

    /// Submits each started operation to the underlying queue, or the queue's own, marked as this queue's
    /// (`EngineOperations.currentQueue`) while it runs.
    private func submit(_ starts: [Operation]) {
        guard !starts.isEmpty else { return }
        let target = lock.withLock { underlying } ?? engineQueue
        for operation in starts {
            target.async { [self] in
                let previous = CurrentOperationQueue.exchange(Unmanaged.passUnretained(self).toOpaque())
                operation.run()
                _ = CurrentOperationQueue.exchange(previous)
            }
        }
    }

    /// Changes the settings under the lock, then starts what they now allow.
    private func update(_ change: () -> Void) {
        lock.lock()
        change()
        let starts = takeStarts()
        lock.unlock()
        submit(starts)
    }

    /// `operation` turned ready (its last dependency finished or was removed, it was cancelled, or its priority
    /// changed): files it and starts what may start.
    func operationBecameReady(_ operation: Operation) {
        update { file(operation) }
    }

    /// `operation` finished: it leaves the members and gives back its slot, and the next ready operations start.
    func operationFinished(_ operation: Operation) {
        update {
            members[ObjectIdentifier(operation)] = nil
            if operation.isBarrier { barriers.removeAll { $0 === operation } }
            running -= 1
        }
        unfinished.leave()
    }
}

/// The operation queue whose operation the calling thread runs (`OperationLayer.currentQueue`): an unretained pointer
/// in a pthread key, set around each operation's run (the queue is alive meanwhile: its running operation holds it).
enum CurrentOperationQueue {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Sets the calling thread's queue pointer and returns the one it replaces: two pthread calls.
    static func exchange(_ queue: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, queue)
        return previous
    }

    /// The calling thread's queue pointer: one pthread call.
    static var current: UnsafeMutableRawPointer? { pthread_getspecific(key) }
}

/// A raw pointer a `@Sendable` closure may carry: the current-queue mark, which points at a queue kept alive by the
/// operation running (`CurrentOperationQueue`).
struct UncheckedPointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
