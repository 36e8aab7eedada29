import ArenaContract

/// The part of a queue that synchronous callers change and its actor reads: target, suspension, activation, specific
/// values, context and finalizer, and (concurrent queues) the running count that barriers wait on. Under a pthread
/// mutex; the actor waits for changes with continuations, so no thread of the cooperative pool ever blocks on it.
/// Values replaced here (specific values, the context) are released after the mutex is unlocked: their deinit may
/// call back into the queue.
final class ActorQueueControl: @unchecked Sendable {
    private let lock = PthreadMutex()
    // Guarded by `lock`:
    private var target: ActorQueue?
    private var suspensions = 0
    private var inactive: Bool
    private var runnableWaiter: CheckedContinuation<Void, Never>?
    private var running = 0
    private var idleWaiter: CheckedContinuation<Void, Never>?
    private var specifics: [ObjectIdentifier: Any] = [:]
    private var storedContext: QueueContext?
    private var finalizer: (@Sendable (QueueContext) -> Void)?
    /// The global queue ignores suspension.
    private let ignoresSuspension: Bool

    init(target: ActorQueue?, startsInactive: Bool, ignoresSuspension: Bool) {
        self.target = target
        inactive = startsInactive
        self.ignoresSuspension = ignoresSuspension
    }

    var currentTarget: ActorQueue? { lock.withLock { target } }

    func setTarget(_ newTarget: ActorQueue?) { lock.withLock { target = newTarget } }

    var isInactive: Bool { lock.withLock { inactive } }

    /// Whether blocks may start now and the queue forwards nothing (no target), and with `needsIdle` none runs: what
    /// a sync caller needs to run its block in the queue's place. One lock round trip.
    func runsOwnBlocksNow(needsIdle: Bool) -> Bool {
        lock.withLock { isRunnable && target == nil && (!needsIdle || running == 0) }
    }

    var suspensionCount: Int { lock.withLock { suspensions } }

    // MARK: Suspension and activation

    private var isRunnable: Bool { (suspensions == 0 || ignoresSuspension) && !inactive }

    func suspend() { lock.withLock { suspensions += 1 } }

    /// False when there was no suspension to undo.
    func resume() -> Bool {
        var undone = false
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            guard suspensions > 0 else { return nil }
            suspensions -= 1
            undone = true
            return takeRunnableWaiter()
        }
        waiter?.resume()
        return undone
    }

    func activate() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            inactive = false
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

    func blockStarted() { lock.withLock { running += 1 } }

    func blockFinished() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            running -= 1
            guard running == 0, let waiter = idleWaiter else { return nil }
            idleWaiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once no block of the queue runs (a barrier's turn).
    func waitUntilIdle() async {
        if lock.withLock({ running == 0 }) { return }
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if running == 0 { return true }
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
