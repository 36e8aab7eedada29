import ArenaContract
import Synchronization

/// The part of a queue that synchronous callers change and its actor reads: target, suspension, activation, specific
/// values, context and finalizer, and (concurrent queues) the running count that barriers wait on. Under a pthread
/// mutex, but for the running count and a mirror of "blocks may start here now", atomics a block's start and finish
/// read and write without the lock (`ActorQueue.post`, models/actor-handoff.pml); the actor waits for changes with
/// continuations, so no thread of the cooperative pool ever blocks on it.
/// Values replaced here (specific values, the context) are released after the mutex is unlocked: their deinit may
/// call back into the queue.
final class ActorQueueControl: @unchecked Sendable {
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    private var target: ActorQueue?
    private var suspensions = 0
    private var inactive: Bool
    private var runnableWaiter: CheckedContinuation<Void, Never>?
    private var idleWaiter: CheckedContinuation<Void, Never>?
    private var specifics: [ObjectIdentifier: Any] = [:]
    private var storedContext: QueueContext?
    private var finalizer: (@Sendable (QueueContext) -> Void)?
    /// The global queue ignores suspension.
    private let ignoresSuspension: Bool
    // Atomic:
    /// Blocks of a concurrent queue started and not yet finished, forwarded ones included.
    private let running = Atomic<Int>(0)
    /// `isRunnable && target == nil`, stored under the lock whenever either changes: whether a producer may start a
    /// block itself (`startsOwnBlock`).
    private let runsOwnBlocks: Atomic<Bool>

    init(target: ActorQueue?, startsInactive: Bool, ignoresSuspension: Bool) {
        self.target = target
        inactive = startsInactive
        self.ignoresSuspension = ignoresSuspension
        runsOwnBlocks = Atomic(!startsInactive && target == nil)
    }

    var currentTarget: ActorQueue? { lock.withLock { target } }

    func setTarget(_ newTarget: ActorQueue?) {
        lock.withLock {
            target = newTarget
            mirrorRunsOwnBlocks()
        }
    }

    /// Stores what `runsOwnBlocks` mirrors; under the lock, after every change of suspension, activation or target.
    private func mirrorRunsOwnBlocks() {
        runsOwnBlocks.store(isRunnable && target == nil, ordering: .sequentiallyConsistent)
    }

    var isInactive: Bool { lock.withLock { inactive } }

    /// Whether blocks may start now and the queue forwards nothing (no target), and with `needsIdle` none runs: what
    /// a sync caller needs to run its block in the queue's place. One lock round trip.
    func runsOwnBlocksNow(needsIdle: Bool) -> Bool {
        lock.withLock {
            isRunnable && target == nil && (!needsIdle || running.load(ordering: .sequentiallyConsistent) == 0)
        }
    }

    var suspensionCount: Int { lock.withLock { suspensions } }

    // MARK: Suspension and activation

    private var isRunnable: Bool { (suspensions == 0 || ignoresSuspension) && !inactive }

    func suspend() {
        lock.withLock {
            suspensions += 1
            mirrorRunsOwnBlocks()
        }
    }

    /// False when there was no suspension to undo.
    func resume() -> Bool {
        var undone = false
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            guard suspensions > 0 else { return nil }
            suspensions -= 1
            undone = true
            mirrorRunsOwnBlocks()
            return takeRunnableWaiter()
        }
        waiter?.resume()
        return undone
    }

    func activate() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            inactive = false
            mirrorRunsOwnBlocks()
            return takeRunnableWaiter()
        }
        waiter?.resume()
    }

    private func takeRunnableWaiter() -> CheckedContinuation<Void, Never>? {
        guard isRunnable, let waiter = runnableWaiter else { return nil }
        runnableWaiter = nil
        return waiter
    }

    /// Returns once the queue may start blocks (at once when it may now).
    func waitUntilRunnable() async {
        if lock.withLock({ isRunnable }) { return }
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if isRunnable { return true }
                runnableWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Running blocks of a concurrent queue

    /// Counts a block started (the loop, before it hands the block on). One atomic add.
    func blockStarted() { running.add(1, ordering: .sequentiallyConsistent) }

    /// Counts a block started and says whether it may start now, in this queue, without a target: what a producer
    /// handing a block straight to the runners needs (`ActorQueue.post`). False (and nothing counted) when suspended,
    /// inactive or targeted. Counted before it looks, so a barrier that finds the count zero is seen by the look
    /// (models/actor-handoff.pml). An atomic add and a load.
    @inline(__always)
    func startsOwnBlock() -> Bool {
        running.add(1, ordering: .sequentiallyConsistent)
        if runsOwnBlocks.load(ordering: .sequentiallyConsistent) { return true }
        blockFinished()
        return false
    }

    /// Counts a block finished; the last one running wakes a barrier waiting for the queue to be idle. One atomic
    /// subtract, and a lock round trip when none is left running.
    @inline(__always)
    func blockFinished() {
        if running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { wakeIdleWaiter() }
    }

    /// None is running now: resumes the barrier waiting for that, if one is. The waiter registers under the lock and
    /// looks at the count again there, so a finish between its first look and its registration is not missed.
    private func wakeIdleWaiter() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            guard running.load(ordering: .sequentiallyConsistent) == 0, let waiter = idleWaiter else { return nil }
            idleWaiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once no block of the queue runs (a barrier's turn).
    func waitUntilIdle() async {
        if running.load(ordering: .sequentiallyConsistent) == 0 { return }
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if running.load(ordering: .sequentiallyConsistent) == 0 { return true }
                idleWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Specific values

    func setSpecific(_ key: ObjectIdentifier, _ value: Any?) {
        var old = value
        lock.withLock { swap(&old, &specifics[key]) }
    }  // the value replaced or removed goes here, unlocked

    func specific(_ key: ObjectIdentifier) -> Any? { lock.withLock { specifics[key] } }

    // MARK: Context and finalizer

    var context: QueueContext? { lock.withLock { storedContext } }

    func setContext(_ context: QueueContext?) {
        var old = context
        lock.withLock { swap(&old, &storedContext) }
    }

    func setFinalizer(_ newFinalizer: (@Sendable (QueueContext) -> Void)?) {
        var old = newFinalizer
        lock.withLock { swap(&old, &finalizer) }
    }

    /// The queue is gone (released, and every block ran): submits the finalizer with the context to the target, or
    /// to `global` without one; nothing when either is nil now.
    func finalize(onto global: ActorQueue?) {
        let gone: (QueueContext?, (@Sendable (QueueContext) -> Void)?, ActorQueue?) = lock.withLock {
            (storedContext, finalizer, target ?? global)
        }
        guard case (let context?, let finalizer?, let queue?) = gone else { return }
        queue.async { finalizer(context) }
    }
}
