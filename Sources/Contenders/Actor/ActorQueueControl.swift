/// The part of a queue that synchronous callers change and its actor reads: target, suspension, activation, specific
/// values, and (concurrent queues) the running count that barriers wait on. Under a pthread mutex; the actor waits for
/// changes with continuations, so no thread of the cooperative pool ever blocks on it.
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

    func setSpecific(_ key: ObjectIdentifier, _ value: Any?) { lock.withLock { specifics[key] = value } }

    func specific(_ key: ObjectIdentifier) -> Any? { lock.withLock { specifics[key] } }
}
