import ArenaContract

/// A source fed by `merge` (add, or, or replace into the pending data), and the base of the timer source.
///
/// As in libdispatch, a source is a serial queue of its own, inactive until `activate()` and targeting the queue the
/// handlers run on. A merge that finds no delivery waiting puts one on that queue; a delivery takes the pending data
/// and runs the handler. Being a serial queue gives the rest: one call at a time, suspend and resume, the registration
/// handler before the first call (activation puts it at the head of the queue), and the cancel handler after the last.
public class MinimalSource: EngineUserDataSource, @unchecked Sendable {
    /// The label given at creation; free.
    public let label: String
    let runtime: Runtime
    private let kind: DataMerge
    private let queue: MinimalQueue
    // Guarded by the engine's lock:
    var pending: UInt = 0
    private(set) var cancelled = false
    private var current: UInt = 0  // the data of the call in progress
    private var waiting = false  // a delivery is queued and has not started
    private var activated = false
    private var handler: (@Sendable () -> Void)?, cancelHandler: (@Sendable () -> Void)?
    private var registrationHandler: (@Sendable () -> Void)?

    init(label: String, merge: DataMerge, queue target: MinimalQueue) {
        (self.label, kind, runtime) = (label, merge, target.runtime)
        queue = MinimalQueue(label: label, kind: .serial, qos: nil, startsInactive: true, target: target, runtime: target.runtime)
    }

    /// Sets the event handler: one lock round.
    public func setEventHandler(_ handler: (@Sendable () -> Void)?) { runtime.locked { self.handler = handler } }
    /// Sets the registration handler: one lock round.
    public func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) {
        runtime.locked { registrationHandler = handler }
    }
    /// Sets the cancel handler: one lock round.
    public func setCancelHandler(_ handler: (@Sendable () -> Void)?) { runtime.locked { cancelHandler = handler } }
    /// The data of the call in progress: one lock round.
    public var data: UInt { runtime.locked { current } }
    /// Whether `cancel()` was called: one lock round.
    public var isCancelled: Bool { runtime.locked { cancelled } }
    /// Starts deliveries: puts the registration handler at the head of the source's queue, ahead of the deliveries
    /// merged while it was inactive, then activates the queue. Only the first call registers, and only if the source
    /// was not cancelled: two lock rounds.
    public func activate() {
        runtime.changing {
            defer { (activated, registrationHandler) = (true, nil) }
            guard !activated && !cancelled, let registration = registrationHandler else { return }
            queue.enqueue(
                .block(
                    { [self] in
                        if !isCancelled { registration() }  // as in libdispatch, a cancel before it started skips it too
                    }, barrier: false), first: true)
        }
        queue.activate()
    }
    /// Holds deliveries back while merges coalesce: suspends the source's queue.
    public func suspend() { queue.suspend() }
    /// Undoes one `suspend()`: resumes the source's queue (too many resumes stop the process).
    public func resume() { queue.resume() }

    /// Stops deliveries and queues the cancel handler behind any call in progress: one lock round.
    public func cancel() {
        runtime.changing {
            if cancelled { return }
            cancelled = true
            queue.enqueue { [self] in
                // Handlers often hold the source: dropping them breaks the cycle.
                let last = runtime.locked {
                    defer { (handler, cancelHandler, registrationHandler) = (nil, nil, nil) }
                    return cancelHandler
                }
                last?()
            }
        }
    }

    /// Combines `value` into the pending data and queues a delivery if none is waiting: one lock round.
    public func merge(_ value: UInt) {
        runtime.changing {
            merge { pending in
                switch kind {
                case .add: pending &+= value
                case .or: pending |= value
                case .replace: pending = value
                }
            }
        }
    }

    /// With the lock held: combines an event into the pending data (ignored after cancel) and queues a delivery.
    func merge(_ combine: (inout UInt) -> Void) {
        guard !cancelled else { return }
        combine(&pending)
        guard pending != 0 && !waiting else { return }
        waiting = true
        queue.enqueue { [self] in
            let handler = runtime.locked {
                (waiting, current, pending) = (false, pending, 0)
                return cancelled || current == 0 ? nil : self.handler  // a replace by zero may have emptied it
            }
            handler?()
        }
    }
}
