import ArenaContract
import Synchronization

/// What happens to a source, in the order it happened.
enum ActorSourceEvent: Sendable {
    case merge(UInt)
    case fires(UInt, generation: UInt64)
    case readiness(UInt)
    case reset(generation: UInt64)
    case activate, suspend, resume, cancel
    case delivered, registered
    case eventHandler((@Sendable () -> Void)?)
    case registrationHandler((@Sendable () -> Void)?)
    case cancelHandler((@Sendable () -> Void)?)
}

/// What the synchronous side of a source and its actor share: the event stream, and the few facts that must hold the
/// instant a call returns (cancelled, the suspend count for the over-resume diagnostic, the data of the call in
/// flight).
final class ActorSourceShared: Sendable {
    let events: ActorMailbox<ActorSourceEvent>
    let cancelled = Atomic<Bool>(false)
    let suspensions = Atomic<Int>(0)
    let current = Atomic<UInt>(0)

    init(events: ActorMailbox<ActorSourceEvent>) { self.events = events }

    func post(_ event: ActorSourceEvent) { events.post(event) }
}

/// What a source kind adds to the actor: how a merge combines, and what to do around activation, delivery and
/// cancellation (descriptor sources re-arm their reactor registration).
protocol ActorSourceKind: Sendable {
    func combine(_ pending: UInt, _ value: UInt) -> UInt
    func activated(_ source: isolated ActorSourceState)
    func delivered(_ source: isolated ActorSourceState)
    func resumed(_ source: isolated ActorSourceState)
    func cancelled(_ source: isolated ActorSourceState)
    func ended(_ source: isolated ActorSourceState)
}

/// The actor holding a source's pending data, its handlers and its lifecycle. It consumes the source's events one by
/// one, coalescing merges into `pending`, and keeps at most one handler call in flight: a delivery is a block on the
/// source's queue that runs the handler with the data taken for it and reports back with `.delivered`. The first call
/// in flight after activation is the registration handler's (reporting back with `.registered`), so every delivery,
/// of data merged before activation too, comes after it. An inactive source runs nothing: cancelled before activation,
/// it runs its cancel handler when activated.
actor ActorSourceState {
    let queue: ActorQueue
    let shared: ActorSourceShared
    let kind: any ActorSourceKind
    private var pending: UInt = 0
    private var inFlight = false
    private var activated = false
    /// Activated and not cancelled before: the registration handler runs before the first delivery.
    private var registrationDue = false
    private var suspensions = 0
    private var cancelled = false
    private var cancelHandled = false
    private var generation: UInt64 = 0
    private var eventHandler: (@Sendable () -> Void)?
    private var registrationHandler: (@Sendable () -> Void)?
    private var cancelHandler: (@Sendable () -> Void)?
    /// A descriptor source's reactor registration (0: none).
    var registration: UInt64 = 0

    init(queue: ActorQueue, shared: ActorSourceShared, kind: any ActorSourceKind) {
        self.queue = queue
        self.shared = shared
        self.kind = kind
    }

    var isSuspended: Bool { suspensions > 0 }
    var isCancelled: Bool { cancelled }

    func setRegistration(_ id: UInt64) { registration = id }

    /// Removes the reactor registration, if any: at cancel (before the cancel handler, which may close the caller's
    /// descriptor) or when the source is released.
    func dropRegistration(from reactor: EpollReactor) {
        guard registration != 0 else { return }
        reactor.unregister(registration)
        registration = 0
    }

    func run(_ events: ActorMailbox<ActorSourceEvent>) async {
        while let event = await events.next() { apply(event) }
        kind.ended(self)  // released: let go of what the kind holds
    }

    private func apply(_ event: ActorSourceEvent) {
        switch event {
        case .merge(let value):
            if !cancelled { pending = kind.combine(pending, value) }
        case .fires(let count, let tag):
            if !cancelled && tag == generation { pending &+= count }
        case .readiness(let data):
            if !cancelled { pending = data }
        case .reset(let tag):
            generation = tag
            pending = 0
        case .activate:
            if !activated {
                activated = true
                registrationDue = !cancelled  // a source cancelled before activation never registers
                kind.activated(self)
                if cancelled && !inFlight { runCancelHandler() }
            }
        case .suspend:
            suspensions += 1
        case .resume:
            suspensions -= 1
            if suspensions == 0 { kind.resumed(self) }
        case .cancel:
            if !cancelled {
                cancelled = true
                registrationDue = false
                kind.cancelled(self)
                if !inFlight && activated { runCancelHandler() }
            }
        case .delivered:
            inFlight = false
            if cancelled { runCancelHandler() } else { kind.delivered(self) }
        case .registered:
            inFlight = false
            if cancelled { runCancelHandler() }
        case .eventHandler(let handler):
            eventHandler = handler
        case .registrationHandler(let handler):
            registrationHandler = handler
        case .cancelHandler(let handler):
            cancelHandler = handler
        }
        deliverIfReady()
    }

    private func deliverIfReady() {
        guard activated && suspensions == 0 && !cancelled && !inFlight else { return }
        if registrationDue { return register() }
        guard pending != 0 else { return }
        inFlight = true
        let data = pending
        pending = 0
        let (handler, shared) = (eventHandler, shared)
        queue.async {
            // Cancel takes effect the moment it returns: a delivery that had not started yet calls nothing.
            if !shared.cancelled.load(ordering: .acquiring) {
                shared.current.store(data, ordering: .relaxed)
                handler?()
            }
            shared.post(.delivered)
        }
    }

    /// Runs the registration handler as a block of the source's queue, as the call in flight: deliveries wait for its
    /// `.registered`.
    private func register() {
        registrationDue = false
        guard let handler = registrationHandler else { return deliverIfReady() }
        registrationHandler = nil
        inFlight = true
        let shared = shared
        queue.async {
            // As libdispatch: a source cancelled before its registration handler started never runs it.
            if !shared.cancelled.load(ordering: .acquiring) { handler() }
            shared.post(.registered)
        }
    }

    private func runCancelHandler() {
        guard !cancelHandled else { return }
        cancelHandled = true
        let handler = cancelHandler
        cancelHandler = nil
        (eventHandler, registrationHandler) = (nil, nil)  // handlers often capture the source
        if let handler { queue.async(handler) }
    }
}

/// The synchronous face of a source of the actor engine: every call becomes an event for its actor.
public class ActorSource: EngineSource, @unchecked Sendable {
    public let label: String
    let shared: ActorSourceShared
    let state: ActorSourceState

    init(label: String, queue: ActorQueue, kind: any ActorSourceKind) {
        self.label = label
        let events = ActorMailbox<ActorSourceEvent>()
        shared = ActorSourceShared(events: events)
        let state = ActorSourceState(queue: queue, shared: shared, kind: kind)
        self.state = state
        Task.detached { await state.run(events) }
    }

    deinit {
        if shared.suspensions.load(ordering: .relaxed) > 0 { misuse("released while suspended: source '\(label)'") }
        shared.events.finish()
    }

    public func setEventHandler(_ handler: (@Sendable () -> Void)?) { shared.post(.eventHandler(handler)) }

    public func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) { shared.post(.registrationHandler(handler)) }

    public func setCancelHandler(_ handler: (@Sendable () -> Void)?) { shared.post(.cancelHandler(handler)) }

    public var data: UInt { shared.current.load(ordering: .relaxed) }

    public func activate() { shared.post(.activate) }

    public func suspend() {
        shared.suspensions.add(1, ordering: .relaxed)
        shared.post(.suspend)
    }

    public func resume() {
        if shared.suspensions.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("over-resume: resume() without a matching suspend() on source '\(label)'")
        }
        shared.post(.resume)
    }

    public func cancel() {
        guard !shared.cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.post(.cancel)
    }

    public var isCancelled: Bool { shared.cancelled.load(ordering: .acquiring) }
}

/// The default kind: nothing around the lifecycle.
struct PlainSourceKind: ActorSourceKind {
    let merge: DataMerge

    func combine(_ pending: UInt, _ value: UInt) -> UInt {
        switch merge {
        case .add: pending &+ value
        case .or: pending | value
        case .replace: value
        }
    }

    func activated(_ source: isolated ActorSourceState) {}
    func delivered(_ source: isolated ActorSourceState) {}
    func resumed(_ source: isolated ActorSourceState) {}
    func cancelled(_ source: isolated ActorSourceState) {}
    func ended(_ source: isolated ActorSourceState) {}
}

/// A weak reference that can be filled in after the holder is made (a source's kind needs the source itself).
final class WeakBox<Object: AnyObject>: @unchecked Sendable {
    private let lock = PthreadMutex()
    private weak var object: Object?

    var value: Object? {
        get { lock.withLock { object } }
        set { lock.withLock { object = newValue } }
    }
}
