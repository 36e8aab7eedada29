import ArenaContract

/// What every source of the mutex engine shares, under the source's mutex: pending data, the handlers, the
/// lifecycle, and the rule of at most one handler call in flight.
///
/// Events merge into `pending`. When the source may deliver (activated, not suspended, not cancelled) and nothing
/// is in flight, one delivery is submitted to the source's queue; it takes the pending data (resetting it to zero),
/// runs the handler with it, and submits the next delivery if more arrived meanwhile. After cancel no delivery
/// runs a handler; the cancel handler is submitted once nothing is in flight and the source was activated (an inactive
/// source runs nothing, its cancel handler included, until activated). Activation submits the registration handler as
/// the first call in flight, so every delivery comes after it.
public class MutexSource: EngineSource, @unchecked Sendable {
    public let label: String
    let queue: MutexQueue
    let lock = PthreadMutex()
    // Guarded by `lock`:
    private var eventHandler: (@Sendable () -> Void)?
    private var cancelHandler: (@Sendable () -> Void)?
    private var registrationHandler: (@Sendable () -> Void)?
    var pending: UInt = 0
    private var current: UInt = 0
    private var activated = false
    private var suspensions = 0
    private(set) var cancelled = false
    private var inFlight = false

    init(label: String, queue: MutexQueue) {
        self.label = label
        self.queue = queue
    }

    deinit {
        if suspensions > 0 { misuse("released while suspended: source '\(label)'") }
    }

    public func setEventHandler(_ handler: (@Sendable () -> Void)?) { lock.withLock { eventHandler = handler } }

    public func setCancelHandler(_ handler: (@Sendable () -> Void)?) { lock.withLock { cancelHandler = handler } }

    public func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) { lock.withLock { registrationHandler = handler } }

    public var data: UInt { lock.withLock { current } }

    public func activate() {
        lock.lock()
        guard !activated else { return lock.unlock() }
        activated = true
        if !cancelled, let registration = registrationHandler {
            registrationHandler = nil
            inFlight = true
            lock.unlock()
            queue.async { [self] in register(registration) }
        } else if cancelled {
            lock.unlock()
            queue.async { [self] in runCancelHandler() }
        } else {
            deliverIfReadyAndUnlock()
        }
        didActivate()
    }

    public func suspend() { lock.withLock { suspensions += 1 } }

    public func resume() {
        lock.lock()
        guard suspensions > 0 else {
            lock.unlock()
            misuse("over-resume: resume() without a matching suspend() on source '\(label)'")
        }
        suspensions -= 1
        let resumed = suspensions == 0
        deliverIfReadyAndUnlock()
        if resumed { didResume() }
    }

    public func cancel() {
        lock.lock()
        guard !cancelled else { return lock.unlock() }
        cancelled = true
        let cancelNow = !inFlight && activated
        lock.unlock()
        willCancel()
        if cancelNow { queue.async { [self] in runCancelHandler() } }
    }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Merges an event into the pending data with `combine` and delivers when it may (ignored after cancel).
    func merge(_ combine: (inout UInt) -> Void) {
        lock.lock()
        mergeAndUnlock(combine)
    }

    /// As `merge`, with `lock` already held; unlocks.
    func mergeAndUnlock(_ combine: (inout UInt) -> Void) {
        guard !cancelled else { return lock.unlock() }
        combine(&pending)
        deliverIfReadyAndUnlock()
    }

    /// Whether a handler call is in flight or may start (lock held): descriptor sources re-arm only when not.
    var isIdle: Bool { !inFlight && (!activated || suspensions > 0 || pending == 0) }

    /// With `lock` held: submits a delivery if one may start, then unlocks.
    private func deliverIfReadyAndUnlock() {
        guard activated && suspensions == 0 && !cancelled && !inFlight && pending != 0 else { return lock.unlock() }
        inFlight = true
        lock.unlock()
        queue.async { [self] in deliver() }
    }

    private func deliver() {
        lock.lock()
        if !cancelled {
            current = pending
            pending = 0
            let handler = eventHandler
            lock.unlock()
            if current != 0 { handler?() }  // `current` is only written by deliveries, which never overlap
            lock.lock()
        }
        endCallAndUnlock()
    }

    /// The registration handler, in flight as a delivery is: events wait for it, a cancel meanwhile follows it. As in
    /// libdispatch, a source cancelled before its registration handler started never runs it.
    private func register(_ registration: @Sendable () -> Void) {
        if !isCancelled { registration() }
        lock.lock()
        endCallAndUnlock()
    }

    /// With `lock` held, after a handler call: the cancel handler if cancelled meanwhile, else the next delivery, and
    /// `didDeliver` (a descriptor source re-arms then, or first arms after registration).
    private func endCallAndUnlock() {
        inFlight = false
        if cancelled {
            lock.unlock()
            return runCancelHandler()
        }
        deliverIfReadyAndUnlock()
        didDeliver()
    }

    private func runCancelHandler() {
        let handler = lock.withLock {
            defer {
                cancelHandler = nil
                eventHandler = nil  // handlers often capture the source: break the cycle
            }
            return cancelHandler
        }
        handler?()
    }

    // Hooks for the source kinds (called without the lock).
    func didActivate() {}
    func didResume() {}
    func didDeliver() {}
    func willCancel() {}
}
