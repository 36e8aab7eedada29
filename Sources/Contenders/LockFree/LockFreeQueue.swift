import ArenaContract
import Synchronization

/// A serial or concurrent queue of the lock-free engine.
///
/// Jobs wait in a Vyukov MPSC queue. The `state` word counts jobs *reserved* (a producer reserves before it links,
/// so a drainer that sees a count knows a job is there or on its way), and holds the `scheduled` bit, the `inactive`
/// bit and the suspend count. Exactly one party holds `scheduled`: the drainer (queued in the target or running), or
/// a sync caller that took the queue. A producer that finds the queue idle and runnable sets `scheduled` in the same
/// CAS that reserves its slot, and rings the doorbell: the queue's own job, enqueued on its target (or pushed to the
/// pool). A holder gives `scheduled` up only with a CAS that also checks the count is zero, so a job reserved
/// meanwhile is never stranded (no lost wake-up).
///
/// - Serial: the drainer runs jobs in order, a batch at a time, then rings the doorbell again behind the target's
///   other work.
/// - Concurrent: a block submitted while nothing is reserved and no barrier is running, waiting or pending takes a
///   running slot in `width` (as an inline sync does) and goes straight to the target. Otherwise the drainer is a
///   dispatcher. It takes jobs in order and fans each out as a job of its own to the target, counting it in `width`; a barrier waits until `width` has none running (the last one to finish rings
///   the doorbell again) and runs alone in the dispatcher.
///
/// Ownership: a queue with `scheduled` set by a producer or drainer is kept alive by one retain taken when the bit is
/// set and released when it is cleared, so the doorbell (which refers to the queue unowned) never outlives it.
/// `target` is read and written only by the holder of `scheduled` (and, for blocks already fanned out, while a
/// barrier cannot run); `stashed` only by the dispatcher.
public final class LockFreeQueue: EngineQueue, @unchecked Sendable {
    public typealias WorkItem = LockFreeWorkItem

    public let label: String
    public let kind: QueueKind
    /// The class given at creation; `nil` runs at the target's.
    let qos: QoSClass?
    let runtime: LockFreeRuntime
    /// The global queue: blocks go straight to the pool; suspension and barriers do not apply.
    @usableFromInline let isGlobal: Bool
    /// The main queue: its doorbell rings on the main loop's thread, and a sync onto it never runs inline.
    let isMain: Bool

    // `state` bits.
    static let countOne: UInt64 = 1
    static let countMask: UInt64 = 0xFFFF_FFFF
    static let scheduled: UInt64 = 1 << 32
    static let inactiveBit: UInt64 = 1 << 33
    /// A sync caller sleeps until `scheduled` is cleared (`takeContended`); set only while `scheduled` is, and
    /// cleared with it.
    static let syncWaiting: UInt64 = 1 << 34
    static let suspendOne: UInt64 = 1 << 40
    // `width` bits (concurrent queues).
    static let runningMask: UInt64 = 0xFFFF_FFFF
    static let barrierRunning: UInt64 = 1 << 32
    static let barrierWaiting: UInt64 = 1 << 33
    static let pendingBarrierOne: UInt64 = 1 << 40

    /// Jobs a drainer runs before ringing the doorbell again.
    static let batch = 64

    let state: PaddedAtomic<UInt64>
    let jobs = VyukovMPSCQueue()
    private(set) var doorbell: LockFreeJob!
    nonisolated(unsafe) var target: LockFreeQueue?
    let width = PaddedAtomic<UInt64>(0)
    /// A barrier the dispatcher took and is waiting to run.
    nonisolated(unsafe) var stashed: LockFreeJob?
    let attachments = LockFreeQueueAttachments()

    init(
        label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: LockFreeQueue?,
        runtime: LockFreeRuntime, isGlobal: Bool = false, isMain: Bool = false
    ) {
        self.label = label
        self.kind = kind
        self.qos = qos
        self.runtime = runtime
        self.isGlobal = isGlobal
        self.isMain = isMain
        self.target = target
        state = PaddedAtomic(startsInactive ? Self.inactiveBit : 0)
        doorbell = LockFreeJob(.stub)
        doorbell.work = .drain(Unmanaged.passUnretained(self))
    }

    /// The last reference is gone, so every job has run: `scheduled` holds a retain, and so does a running count
    /// above zero (every block fanned out, every inline sync of a concurrent queue). The finalizer goes to the target with the context.
    deinit {
        let state = state.atomic.pointee.load(ordering: .relaxed)
        if state >> 40 > 0 && !isGlobal { misuse("released while suspended: queue '\(label)'") }
        if state & Self.inactiveBit != 0 { misuse("released while inactive: queue '\(label)'") }
        if let finalization = attachments.finalization { (target ?? runtime.global).async(finalization) }
    }

    @inline(__always) static func count(_ state: UInt64) -> UInt64 { state & countMask }

    @inline(__always) func isRunnable(_ state: UInt64) -> Bool {
        state & Self.inactiveBit == 0 && (state >> 40 == 0 || isGlobal)
    }

    // MARK: Submission

    public func async(_ block: @escaping @Sendable () -> Void) { async(.block(block), in: nil) }

    /// A Swift job in a job node of its own, as a block would be (`LockFreeSwiftJob`): no closure allocated, and a
    /// warm node reused, so a job costs what an `async` costs less the allocation of its block.
    public func async(job: UnownedJob, runner: any JobRunner) {
        async(.swift(LockFreeSwiftJob(job: job, runner: runner)), in: nil)
    }

    /// async, the body counted in `group` (which it leaves once it ran) when there is one.
    @inline(__always)
    func async(_ body: LockFreeJob.Body, in group: Unmanaged<LockFreeGroup>?) {
        if isGlobal { return fanOut(LockFreeJob.make(.fanned(fannedReference, body), in: group)) }
        if kind == .concurrent && Self.count(state.atomic.pointee.load(ordering: .relaxed)) == 0 && take(alone: false) {
            // Nothing waits before this block and it holds a running slot, so no barrier can start before it ends:
            // it goes where the dispatcher would send it, without the hop through the dispatcher.
            return fanOut(LockFreeJob.make(.fanned(.passUnretained(self), body), in: group))
        }
        enqueue(LockFreeJob.make(.block(body), in: group))
    }

    public func barrierAsync(_ block: @escaping @Sendable () -> Void) {
        if isGlobal { return async(block) }
        enqueue(LockFreeJob.make(.barrier(block)))
    }

    /// A barrier item is a barrier here (on the global queue `barrierAsync` is plain, as in libdispatch).
    public func async(_ item: LockFreeWorkItem) {
        if item.flags.contains(.barrier) { barrierAsync { item.perform() } } else { async { item.perform() } }
    }

    public func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        runtime.timers.schedule(deadline: deadline, leeway: .zero) { [self] in async(block) }
    }

    public func asyncAfter(deadline: Deadline, _ item: LockFreeWorkItem) {
        runtime.timers.schedule(deadline: deadline, leeway: .zero) { [self] in async(item) }
    }

    /// Reserves a slot, links the job, and rings the doorbell if the queue just became runnable work.
    @inline(__always)
    func enqueue(_ job: LockFreeJob) {
        if kind == .concurrent && job.isBarrier {
            width.atomic.pointee.add(Self.pendingBarrierOne, ordering: .relaxed)
        }
        var current = state.atomic.pointee.load(ordering: .relaxed)
        var mustSchedule = false
        while true {
            mustSchedule = isRunnable(current) && current & Self.scheduled == 0
            let desired = (current &+ Self.countOne) | (mustSchedule ? Self.scheduled : 0)
            let (won, seen) = state.atomic.pointee.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if won { break }
            current = seen
        }
        jobs.push(job)
        if mustSchedule { schedule() }
    }

    /// Rings the doorbell for a party that just set `scheduled`: takes the queue's keep-alive retain.
    @inline(__always)
    func schedule() {
        _ = Unmanaged.passRetained(self)
        ringDoorbell()
    }

    /// Sends the doorbell to the target, or to the pool. Only the holder of `scheduled`.
    @inline(__always)
    func ringDoorbell() {
        if let target {
            target.enqueue(doorbell)
        } else if isMain {
            runtime.mainLoop.submit { self.runDoorbell() }  // `scheduled`'s retain keeps the queue
        } else {
            runtime.pool.push(doorbell)
        }
    }

    /// Sends a fanned-out job where this queue's blocks run: the target, or the pool.
    @inline(__always)
    func fanOut(_ job: LockFreeJob) {
        if let target { target.enqueue(job) } else { runtime.pool.push(job) }
    }

    /// The holder of `scheduled` (a drainer) stops: it keeps the bit and rings again when runnable jobs are reserved,
    /// and otherwise clears it (`clearScheduled`) and releases the keep-alive retain (the queue may be freed then).
    func relinquish() {
        if clearScheduled() { Unmanaged.passUnretained(self).release() } else { ringDoorbell() }
    }

    /// Clears `scheduled`, and `syncWaiting` with it (waking one sync caller sleeping for the queue when it was set),
    /// unless runnable jobs are reserved: then false, and the caller keeps the bit. The one place `scheduled` is given
    /// up (a drainer's `relinquish`, a sync caller's give), so no give can miss a sleeper (models/sync-sleep.pml).
    @inline(__always)
    func clearScheduled() -> Bool {
        var current = state.atomic.pointee.load(ordering: .acquiring)
        while true {
            if Self.count(current) > 0 && isRunnable(current) { return false }
            let (won, seen) = state.atomic.pointee.compareExchange(
                expected: current, desired: current & ~(Self.scheduled | Self.syncWaiting), ordering: .acquiringAndReleasing)
            if won {
                if current & Self.syncWaiting != 0 { wakeSyncWaiter() }
                return true
            }
            current = seen
        }
    }

    // MARK: Draining

    /// The doorbell rang: drain (serial) or dispatch (concurrent), on the calling thread.
    func runDoorbell() {
        switch kind {
        case .serial: drain()
        case .concurrent: dispatch()
        }
    }

    private func drain() {
        let context = LockFreeThreadContext.current
        context.push(self)
        defer { context.pop() }
        var budget = Self.batch
        while true {
            let current = state.atomic.pointee.load(ordering: .acquiring)
            guard Self.count(current) > 0 && isRunnable(current) else { return relinquish() }
            guard budget > 0 else { return ringDoorbell() }  // yield, keeping `scheduled`
            let job = jobs.popReserved()
            state.atomic.pointee.subtract(Self.countOne, ordering: .relaxed)
            if case .retarget(let newTarget) = job.work {
                target = newTarget  // between two blocks; the next ring goes to the new target
                return relinquish()
            }
            run(job)
            context.spares.recycle(job)
            budget -= 1
        }
    }

    private func dispatch() {
        var budget = Self.batch
        while true {
            let current = state.atomic.pointee.load(ordering: .acquiring)
            guard Self.count(current) > 0 && isRunnable(current) else { return relinquish() }
            guard budget > 0 else { return ringDoorbell() }
            let job: LockFreeJob
            if let waiting = stashed {
                stashed = nil
                job = waiting
            } else {
                job = jobs.popReserved()
            }
            state.atomic.pointee.subtract(Self.countOne, ordering: .relaxed)
            budget -= 1
            if job.isBarrier {
                guard startBarrier(job) else { return }  // stashed: the last running block rings the doorbell
                LockFreeThreadContext.current.within(self) { run(job) }
                width.atomic.pointee.bitwiseAnd(~Self.barrierRunning, ordering: .releasing)
                if case .retarget(let newTarget) = job.work {
                    target = newTarget
                    return relinquish()
                }
            } else {
                let before = width.atomic.pointee.add(1, ordering: .relaxed).oldValue
                if !isGlobal { startedOne(before) }
                fanOut(fanned(job))
            }
        }
    }

    /// Marks `barrier` running if nothing runs (true); otherwise stashes it, counted as a reserved job again, and
    /// marks the dispatcher waiting (false). The stash is in place before `barrierWaiting` is published: the block
    /// that clears the bit rings the doorbell, and the next dispatcher run must find the barrier.
    private func startBarrier(_ barrier: LockFreeJob) -> Bool {
        var current = width.atomic.pointee.load(ordering: .acquiring)
        while true {
            if current & Self.runningMask == 0 {
                let desired = (current | Self.barrierRunning) &- Self.pendingBarrierOne
                let (won, seen) = width.atomic.pointee.compareExchange(
                    expected: current, desired: desired, ordering: .acquiringAndReleasing)
                if won { return true }
                current = seen
            } else {
                stashed = barrier
                state.atomic.pointee.add(Self.countOne, ordering: .relaxed)
                let (won, seen) = width.atomic.pointee.compareExchange(
                    expected: current, desired: current | Self.barrierWaiting, ordering: .acquiringAndReleasing)
                if won { return false }
                stashed = nil
                state.atomic.pointee.subtract(Self.countOne, ordering: .relaxed)
                current = seen
            }
        }
    }

    /// A job of this concurrent queue as a job of its target: the popped job itself for a block, a wrapper otherwise.
    private func fanned(_ job: LockFreeJob) -> LockFreeJob {
        switch job.work {
        case .block(let body):
            job.work = .fanned(fannedReference, body)
            return job
        case .sync(let waiter):
            return LockFreeJob(.fanned(fannedReference, .block { waiter.run() }))
        case .drain(let child):
            return LockFreeJob(.fanned(fannedReference, .block { child.takeUnretainedValue().runDoorbell() }))
        case .fanned(let child, let body):
            let wrapper = LockFreeJob(.fanned(fannedReference, .block { child.takeUnretainedValue().runFanned(body) }))
            wrapper.group = job.group
            return wrapper
        default:
            preconditionFailure("lock-free engine: a barrier reached fan-out")
        }
    }

    /// Runs a fanned-out block of this queue (on a worker, or inside the target's drain), then counts it finished
    /// (a global queue's job instead gives back the retain it was made with).
    func runFanned(_ body: LockFreeJob.Body) {
        LockFreeThreadContext.current.within(self) { body.run() }
        if isGlobal { Unmanaged.passUnretained(self).release() } else { finishedOne() }
    }

    /// What a job fanned out for this queue refers to it by: a concurrent queue keeps itself alive while blocks run
    /// (`startedOne`), so unretained; a global queue has no running count, so each of its jobs holds a retain, given
    /// back in `runFanned`.
    @inline(__always)
    var fannedReference: Unmanaged<LockFreeQueue> { isGlobal ? .passRetained(self) : .passUnretained(self) }

    /// A running slot was taken (`width` was `before`): the first one takes the queue's keep-alive retain, so jobs
    /// need not hold one each (a reference count shared by every block's thread was the hottest line in `fanout`).
    @inline(__always)
    func startedOne(_ before: UInt64) {
        if before & Self.runningMask == 0 { _ = Unmanaged.passRetained(self) }
    }

    /// One running block (fanned out, or an inline sync) finished; the last one before a waiting barrier rings, and
    /// the last one of all gives back the keep-alive retain (after everything else: the queue may go then).
    func finishedOne() {
        let after = width.atomic.pointee.subtract(1, ordering: .acquiringAndReleasing).newValue
        defer { if after & Self.runningMask == 0 { Unmanaged.passUnretained(self).release() } }
        var current = after
        while current & Self.runningMask == 0 && current & Self.barrierWaiting != 0 {
            let (won, seen) = width.atomic.pointee.compareExchange(
                expected: current, desired: current & ~Self.barrierWaiting, ordering: .acquiringAndReleasing)
            if won { return ringDoorbell() }
            current = seen
        }
    }

    /// Runs a job taken from the queue, on this thread, inside the queue.
    private func run(_ job: LockFreeJob) {
        switch job.work {
        case .block(let body): body.run()
        case .barrier(let block): block()
        case .sync(let waiter): waiter.run()
        case .drain(let child): child.takeUnretainedValue().runDoorbell()
        case .fanned(let child, let body): child.takeUnretainedValue().runFanned(body)
        case .retarget, .task, .stub: break
        }
        job.group?._withUnsafeGuaranteedRef { $0.finishOne() }
    }
}
