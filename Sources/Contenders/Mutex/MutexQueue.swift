import ArenaContract
import DequeModule
import Synchronization

/// A serial or concurrent queue of the mutex engine: a `Deque` of items under one pthread mutex.
///
/// A queue runs *through* its target: when it has work it asks its target (or, without a target, the worker pool)
/// to run it, by enqueuing a `.drain(self)` item there. A target that is serial runs that item like any of its own
/// blocks, so everything targeting a serial queue is serialised with it; a chain is as wide as its narrowest link.
///
/// - Serial: `busy` is set while a drain is scheduled or running, or while a sync caller owns the queue, so exactly
///   one thread runs its blocks. A drain runs at most `batch` items, then re-enqueues itself behind whatever else
///   its target has, so one busy queue cannot starve others.
/// - Concurrent: `running` blocks run at once; a barrier (or a retarget) at the head waits for `running` to drop
///   to zero and then runs alone. The queue keeps up to one outstanding request per pending item in its target;
///   each request starts items from the head while the head may start, and ends after a barrier, so that the blocks
///   behind it get a request each.
public final class MutexQueue: EngineQueue, @unchecked Sendable {
    public typealias WorkItem = MutexWorkItem

    public let label: String
    public let kind: QueueKind
    /// The class given at creation; `nil` runs at the target's.
    let qos: QoSClass?
    let runtime: MutexRuntime
    /// The global queue ignores suspension, as libdispatch's global queues do.
    @usableFromInline let isGlobal: Bool
    /// The main queue's turns run on the main loop's thread, and a sync onto it never runs inline.
    let isMain: Bool

    /// Items one drain or request runs before yielding its thread.
    static let batch = 16

    let lock = PthreadMutex()
    // Everything below is guarded by `lock`. The hot fields are `@exclusivity(unchecked)`: the lock already rules out
    // overlapping access, and the runtime's dynamic check on every access to a class's field was a fifth of an
    // uncontended `sync` (callgrind: `swift_beginAccess` and its access set, about 100 instructions of 595).
    @exclusivity(unchecked) var items = Deque<MutexQueueItem>()
    @exclusivity(unchecked) var target: MutexQueue?
    @exclusivity(unchecked) var suspensions = 0
    @exclusivity(unchecked) var inactive: Bool
    var specifics: [ObjectIdentifier: Any] = [:]
    /// Serial: a drain is scheduled or running, or a sync caller owns the queue. Cleared only by `clearBusy()`.
    @exclusivity(unchecked) var busy = false
    /// Serial: sync callers waiting for `busy` to clear (`waitForGive`), whether one was signalled and has not woken
    /// yet, and the condition they wait on, made at the first wait (most queues never see one).
    @exclusivity(unchecked) var syncWaiters = 0
    @exclusivity(unchecked) var syncSignalled = false
    var syncGiven: PthreadCondition?
    /// Concurrent: blocks running now, whether a barrier runs, requests outstanding in the target, and the target
    /// generation (a retarget makes requests still waiting in the old target stale).
    @exclusivity(unchecked) var running = 0
    @exclusivity(unchecked) var barrierRunning = false
    @exclusivity(unchecked) var requests = 0
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// Barrier-like items waiting in `items`; a non-barrier sync may run inline only when there are none.
    var pendingBarriers = 0 { didSet { barriersWaiting.store(pendingBarriers, ordering: .relaxed) } }
    /// `pendingBarriers`, published for a request of a queue targeting this one, which reads it without this lock:
    /// a hint, one relaxed load.
    let barriersWaiting = Atomic<Int>(0)
    /// The context and the finalizer that receives it once the queue is gone.
    var contextObject: QueueContext?
    var finalizer: (@Sendable (QueueContext) -> Void)?

    init(
        label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: MutexQueue?, runtime: MutexRuntime,
        isGlobal: Bool = false, isMain: Bool = false
    ) {
        self.label = label
        self.kind = kind
        self.qos = qos
        self.runtime = runtime
        self.isGlobal = isGlobal
        self.isMain = isMain
        inactive = startsInactive
        self.target = target
    }

    /// The last reference is gone, so every block has run: a pending item, a drain scheduled in the target and a
    /// request outstanding there each hold the queue. The finalizer goes to the target with the context.
    deinit {
        if suspensions > 0 { misuse("released while suspended: queue '\(label)'") }
        if inactive { misuse("released while inactive: queue '\(label)'") }
        if let contextObject, let finalizer { (target ?? runtime.global).async { finalizer(contextObject) } }
    }

    /// Whether blocks may start (lock held).
    var isRunnable: Bool { (suspensions == 0 || isGlobal) && !inactive }

    // MARK: Submission

    public func async(_ block: @escaping @Sendable () -> Void) { enqueue(.block(block)) }

    /// A barrier, except on the global queue, which has none (as in libdispatch: there it is a plain `async`).
    public func barrierAsync(_ block: @escaping @Sendable () -> Void) { enqueue(isGlobal ? .block(block) : .barrier(block)) }

    /// A barrier item is a barrier here unless this is the global queue, which has none (as in libdispatch).
    public func async(_ item: MutexWorkItem) {
        enqueue(item.flags.contains(.barrier) && !isGlobal ? .barrier { item.perform() } : .block { item.perform() })
    }

    public func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        runtime.timers.schedule(deadline: deadline, leeway: .zero) { [self] in async(block) }
    }

    public func asyncAfter(deadline: Deadline, _ item: MutexWorkItem) {
        runtime.timers.schedule(deadline: deadline, leeway: .zero) { [self] in async(item) }
    }

    /// Appends `item` and asks the target for a turn if the queue just became runnable work.
    func enqueue(_ item: MutexQueueItem) {
        lock.lock()
        items.append(item)
        if item.isBarrier { pendingBarriers += 1 }
        scheduleAndUnlock()
    }

    /// With `lock` held: asks the target (or the pool) for as many turns as the queue now needs, then unlocks.
    func scheduleAndUnlock() {
        switch kind {
        case .serial:
            guard !busy && isRunnable && !items.isEmpty else { return lock.unlock() }
            busy = true
            let target = target
            lock.unlock()
            submit(to: target, generation: 0)
        case .concurrent:
            let added = requestsToAdd()
            requests += added
            let target = target, generation = generation
            lock.unlock()
            for _ in 0..<added { submit(to: target, generation: generation) }
        }
    }

    /// How many more requests a concurrent queue needs in its target (lock held).
    private func requestsToAdd() -> Int {
        guard isRunnable, !barrierRunning, let head = items.first else { return 0 }
        if head.isBarrier { return running == 0 && requests == 0 ? 1 : 0 }
        return max(0, min(items.count, runtime.pool.maxThreads) - requests)
    }

    private func submit(to target: MutexQueue?, generation: UInt64) {
        if let target {
            target.enqueue(.drain(self, generation: generation))
        } else if isMain {
            runtime.mainLoop.submit { self.drain(generation: generation) }
        } else {
            runtime.pool.push(.drain(self, generation: generation), qos: qos ?? .default)
        }
    }

    // MARK: Draining

    /// Runs the queue's work on the calling thread: a batch of a serial queue, or one request of a concurrent one.
    func drain(generation: UInt64) {
        switch kind {
        case .serial: drainSerial()
        case .concurrent: serveRequest(generation: generation)
        }
    }

    private func drainSerial() {
        let context = MutexThreadContext.current
        var budget = Self.batch
        lock.lock()
        while true {
            guard isRunnable, let item = items.first else {
                clearBusy()
                return lock.unlock()
            }
            if budget == 0 || context.shouldYield {  // yield: stay busy, queue up behind the target's other work
                let target = target
                lock.unlock()
                return submit(to: target, generation: 0)
            }
            items.removeFirst()
            if item.isBarrier { pendingBarriers -= 1 }
            if case .retarget(let newTarget) = item {
                // Between two blocks: later ones run through the new target.
                target = newTarget
                clearBusy()
                return scheduleAndUnlock()
            }
            lock.unlock()
            runReleasing(consume item, context)
            budget -= 1
            lock.lock()
        }
    }

    private func serveRequest(generation request: UInt64) {
        let context = MutexThreadContext.current
        var budget = Self.batch
        lock.lock()
        guard request == generation else { return lock.unlock() }  // stale: issued before a retarget
        requests -= 1
        while budget > 0, isRunnable, !barrierRunning, !context.shouldYield, let head = items.first {
            let alone = head.isBarrier
            if alone {
                guard running == 0 else { break }
                barrierRunning = true
                pendingBarriers -= 1
            } else {
                // A barrier waiting in the target waits for this request to end: start nothing more here, but queue
                // up behind it, as libdispatch pushes a concurrent queue's blocks on to its target (else a block
                // started here could wait for one, or a sync, left behind the barrier: found by `arena explore`).
                if budget < Self.batch, let target, target.barriersWaiting.load(ordering: .relaxed) > 0 { break }
                running += 1
            }
            items.removeFirst()
            if case .retarget(let newTarget) = head {
                target = newTarget
                generation &+= 1
                requests = 0
                barrierRunning = false
                break
            }
            lock.unlock()
            runReleasing(consume head, context)
            lock.lock()
            budget -= 1
            guard alone else {
                running -= 1
                continue
            }
            // The blocks behind a barrier may all start now: end this request so that scheduling asks for a turn for
            // each, rather than running them one after another here (a sync among them would wait for the blocks
            // ahead of it to end, found by `arena explore`: a block waiting for that sync waited out its deadline).
            barrierRunning = false
            break
        }
        scheduleAndUnlock()
    }

    /// Runs `item` inside this queue and releases it before returning: the release may free a queue that targets
    /// this one, whose finalizer submission takes this queue's lock, so it must not wait until the drain locked again.
    private func runReleasing(_ item: consuming MutexQueueItem, _ context: MutexThreadContext) {
        let item = consume item
        context.within(self) { run(item) }
    }

    private func run(_ item: MutexQueueItem) {
        switch item {
        case .block(let block), .barrier(let block): block()
        case .sync(let request): request.execute()
        case .drain(let queue, let generation): queue.drain(generation: generation)
        case .retarget: break
        }
    }
}
