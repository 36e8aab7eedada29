import ArenaContract
import Glibc

/// A serial or concurrent queue: a FIFO of jobs and a few counters, under the engine's lock.
///
/// A job may start when it is at the head and every queue along its chain (this queue, its target, the target's
/// target, …) lets it: none suspended, inactive or held alone, and each link the job needs alone (this queue when it
/// is serial or the job a barrier; every serial queue above) running nothing. A started job counts in `busy` on every
/// link: that is how queues targeting a serial queue are serialised with it.
///
/// The engine holds a queue while it has jobs (the ready list) and while one runs (the thread's entered queues), and a
/// queue holds its target. So a queue's deinit comes once it was released *and* its last job ran, which is exactly
/// when libdispatch calls the finalizer: the deinit submits it to the target.
public final class MinimalQueue: EngineQueue, @unchecked Sendable {
    enum Job {
        case block(@Sendable () -> Void, barrier: Bool)
        case sync(ticket: Int, barrier: Bool)  // a sync caller's place in line: the caller starts it and runs its block
        case retarget(MinimalQueue)  // an active queue's new target, taking effect between the jobs around it

        var isBarrier: Bool {
            switch self {
            case .block(_, let barrier), .sync(_, let barrier): barrier
            case .retarget: true
            }
        }
        var isSync: Bool { if case .sync = self { true } else { false } }
    }

    /// The label given at creation; free.
    public let label: String
    /// Serial or concurrent; free.
    public let kind: QueueKind
    /// The class given at creation, or `nil` to run at the target's; free.
    let qos: QoSClass?
    let runtime: Runtime
    // Guarded by the engine's lock:
    private(set) var jobs: ArraySlice<Job> = []  // a slice, so that taking the head is O(1)
    var target: MinimalQueue?  // nil only for the global queue
    private(set) var listed = false  // in the runtime's ready list: exactly while there are jobs
    private var busy = 0  // jobs running through this queue: its own and those of queues targeting it
    private var heldAlone = false  // one of them needs this queue to itself
    private var suspensions = 0, inactive: Bool, tickets = 0
    private var specifics: [ObjectIdentifier: Any] = [:]
    private var savedContext: QueueContext?, finalizer: (@Sendable (QueueContext) -> Void)?

    init(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: MinimalQueue?, runtime: Runtime) {
        (self.label, self.kind, self.qos, self.runtime, inactive) = (label, kind, qos, runtime, startsInactive)
        self.target = target ?? runtime.global
    }

    /// The queue is gone: its finalizer, if it has one and a context, goes to the target. Nobody else can reach the
    /// queue now, so its fields are read without the lock; the lock is needed for the target, and this thread may
    /// already hold it.
    deinit {
        if suspensions > 0 { misuse("released while suspended: queue '\(label)'") }
        guard let context = savedContext, let finalizer, let target else { return }
        runtime.changingFromAnywhere { target.enqueue { finalizer(context) } }
    }

    /// This queue and every queue above it.
    var chain: UnfoldFirstSequence<MinimalQueue> { sequence(first: self, next: \.target) }

    /// With the lock held: whether the jobs of this queue run on the main thread (the main queue is in the chain).
    var isBoundToMain: Bool { chain.contains { $0 === runtime.main } }

    /// Submits `block`: one lock round and a broadcast.
    public func async(_ block: @escaping @Sendable () -> Void) { runtime.changing { enqueue(block) } }
    /// Submits a work item (a barrier if flagged so): one lock round and a broadcast.
    public func async(_ item: MinimalWorkItem) { runtime.changing { enqueue(item) } }
    /// Submits a work item once `deadline` passed, as `asyncAfter` does.
    public func asyncAfter(deadline: Deadline, _ item: MinimalWorkItem) {
        runtime.changing { runtime.after(deadline) { [self] in enqueue(item) } }
    }

    /// Submits `block` as a barrier (a plain block on a serial queue, and on the global queue, which has no barriers):
    /// one lock round and a broadcast.
    public func barrierAsync(_ block: @escaping @Sendable () -> Void) {
        runtime.changing { enqueue(.block(block, barrier: self !== runtime.global)) }
    }

    /// Submits `block` once `deadline` passed: one lock round and an entry in the timer list.
    public func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        runtime.changing { runtime.after(deadline) { [self] in enqueue(block) } }
    }

    /// With the lock held: appends a plain block.
    func enqueue(_ block: @escaping @Sendable () -> Void) { enqueue(.block(block, barrier: false)) }

    /// With the lock held: appends a work item's job, a barrier when the item is flagged so (libdispatch ignores the
    /// flag on the global queue; on a serial queue every job runs alone anyway).
    func enqueue(_ item: MinimalWorkItem) {
        enqueue(.block({ item.perform() }, barrier: item.isBarrier && self !== runtime.global))
    }

    /// With the lock held: appends `job` (or puts it at the head, `first`), joining the runtime's ready list.
    func enqueue(_ job: Job, first: Bool = false) {
        if first { jobs.insert(job, at: jobs.startIndex) } else { jobs.append(job) }
        if !listed { runtime.ready.append(self) }
        listed = true
        runtime.addWorker()
    }

    /// With the lock held: takes the head job, leaving the ready list when it was the last.
    ///
    /// A slice keeps its whole buffer, taken jobs included, with everything they capture (a queue the finalizer
    /// waits for, say): so the buffer is dropped when the queue empties, and copied when most of it is taken.
    func takeHead() -> Job {
        if jobs.count == 1 { runtime.ready.removeAll { $0 === self } }
        listed = jobs.count > 1
        let job = jobs.popFirst()!
        if jobs.isEmpty {
            jobs = []
        } else if jobs.startIndex > 64 && jobs.startIndex > 2 * jobs.count {
            jobs = ArraySlice(Array(jobs))  // amortised: at least twice as many jobs were taken since the last copy
        }
        return job
    }

    /// With the lock held: whether the head job may start now; `alone` when it needs this queue to itself.
    func mayStart(alone: Bool) -> Bool {
        chain.allSatisfy { link in
            (link.suspensions == 0 || link === runtime.global) && !link.inactive && !link.heldAlone
                && !(needs(link, alone: alone) && link.busy > 0)
        }
    }

    /// With the lock held: counts a job of this queue starting (`by: 1`) or ending (`by: -1`) on every link.
    func hold(alone: Bool, by change: Int) {
        for link in chain {
            link.busy += change
            if needs(link, alone: alone) { link.heldAlone = change > 0 }
        }
    }

    /// Whether a job of this queue needs `link` to itself: this queue when `alone`, the links above when serial.
    private func needs(_ link: MinimalQueue, alone: Bool) -> Bool { link === self ? alone : link.kind == .serial }

    /// Runs `block` on the calling thread once the jobs before it started and the chain lets it in: two lock rounds
    /// when the queue is free, else sleeps on the engine's condition.
    public func sync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: false, block) }
    /// As `sync`, holding the queue alone (except the global queue, which has no barriers).
    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: self !== runtime.global, block) }

    private func sync<T>(barrier: Bool, _ block: () throws -> T) rethrows -> T {
        let alone = barrier || kind == .serial
        let onMain = runtime.changing {
            // The thread holds the chains of the jobs it runs: waiting to hold one of those links alone never ends.
            let held = runtime.entered[pthread_self(), default: []].flatMap(\.chain)
            for link in chain where needs(link, alone: alone) && held.contains(where: { $0 === link }) {
                misuse("sync called from a job already running on queue '\(link.label)' (deadlock)")
            }
            if isBoundToMain { return true }  // only the main thread may run it: `syncOnMain`
            tickets += 1
            let ticket = tickets
            enqueue(.sync(ticket: ticket, barrier: barrier))
            _ = runtime.wait(until: .distantFuture) {
                guard case .sync(ticket, _)? = jobs.first else { return false }
                return mayStart(alone: alone)
            }
            _ = takeHead()
            runtime.start(self, alone: alone)
            return false
        }
        if onMain { return try syncOnMain(barrier: barrier, block) }
        defer { runtime.changing { runtime.finish(self, alone: alone) } }
        return try block()
    }

    /// sync onto the main queue (or a queue targeting it): the block goes to the main thread as a job in line, and the
    /// caller sleeps until its result, value or error, is back. Three lock rounds and two thread switches.
    private func syncOnMain<T>(barrier: Bool, _ block: () throws -> T) rethrows -> T {
        try withoutActuallyEscaping(block) { escapable in
            // Both cross threads under the engine's lock. The job lets go of the block before the caller may return:
            // a block still held then has escaped, and the process traps.
            nonisolated(unsafe) var block: (() throws -> T)? = escapable
            nonisolated(unsafe) var result: Result<T, any Error>?
            runtime.changing {  // the broadcast wakes the main thread
                enqueue(
                    .block(
                        { [runtime] in
                            let outcome = Result(catching: block!)
                            runtime.changing { (block, result) = (nil, outcome) }
                        }, barrier: barrier))
            }
            _ = runtime.locked { runtime.wait(until: .distantFuture) { result != nil } }
            return try result!.get()  // rethrows: the error is the block's
        }
    }

    /// Counts one more suspension: one lock round.
    public func suspend() { runtime.locked { suspensions += 1 } }
    /// Lets an inactive queue run: one lock round and a broadcast.
    public func activate() { runtime.changing { inactive = false } }

    /// Undoes one `suspend()`: one lock round and a broadcast. Resuming more often than suspended stops the process.
    public func resume() {
        runtime.changing {
            if suspensions == 0 { misuse("over-resume: resume() without a matching suspend() on queue '\(label)'") }
            suspensions -= 1
        }
    }

    /// Changes the target at once when nothing of the queue runs and it is inactive or empty, else through a marker in
    /// the FIFO, between two jobs: one lock round and a walk up the new chain.
    public func setTarget(_ newTarget: MinimalQueue) {
        runtime.changing {
            if self === runtime.global || newTarget.chain.contains(where: { $0 === self }) {
                misuse("setTarget would retarget the global queue or make a cycle: queue '\(label)'")
            }
            if busy == 0 && (inactive || jobs.isEmpty) { target = newTarget } else { enqueue(.retarget(newTarget)) }
        }
    }

    /// Sets (or with `nil` removes) the value for `key` on this queue: one lock round. The old value is released after
    /// it, outside the lock, since its deinit may call the engine.
    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        var old: Any? = value
        runtime.locked { swap(&old, &specifics[ObjectIdentifier(key)]) }
    }

    /// The value for `key` set on this queue itself: one lock round.
    public func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        runtime.locked { specifics[ObjectIdentifier(key)] } as? Value
    }

    /// The object handed to the finalizer: one lock round (a replaced context is released outside it).
    public var context: QueueContext? {
        get { runtime.locked { savedContext } }
        set {
            var old = newValue
            runtime.locked { swap(&old, &savedContext) }
        }
    }

    /// Sets the block the deinit submits to the target with the context: one lock round.
    public func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) {
        var old = finalizer
        runtime.locked { swap(&old, &self.finalizer) }
    }

    /// With the lock held: the class of this queue or of the nearest queue above it with one.
    var inheritedQoS: QoSClass? { chain.lazy.compactMap(\.qos).first { _ in true } }

    /// With the lock held: the value for `key` on this queue or the nearest queue above it.
    func inheritedSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        chain.lazy.compactMap { $0.specifics[ObjectIdentifier(key)] }.first { _ in true } as? Value
    }
}
