import ArenaContract
import Synchronization

/// What every source of the lock-free engine shares: an atomic flags word, pending data merged with atomic
/// operations, and at most one delivery in flight.
///
/// `flags` holds active, cancelled, in-flight, cancel-handled and the suspend count. An event merges into the pending
/// data (an atomic add, or, exchange), then, after a sequentially consistent fence, tries to *arm*: one CAS that sets
/// in-flight if the source is active, not suspended, not cancelled and not already in flight; the winner submits one
/// delivery to the source's queue. The delivery takes the pending data (resetting it), runs the handler, clears
/// in-flight, fences, and arms again if data arrived meanwhile. Either the merger sees in-flight clear or the
/// delivery sees the data: nothing is stranded, and merges never take a lock.
///
/// Handlers are replaced without a lock: a setter publishes a box by exchange (releasing any box not yet adopted);
/// the delivery, the only reader, adopts it by exchange before running. Cancel sets its bit; the cancel handler runs
/// once, from whichever party holds in-flight when it sees the bit, and not before activation (an inactive source runs
/// nothing): cancel takes in-flight only on an active source, and activation takes it for the cancel handler on a
/// cancelled one. Activation with a registration handler set takes in-flight in the same CAS that sets active, so the
/// registration call runs before any delivery can arm.
public class LockFreeSource: EngineSource, @unchecked Sendable {
    public let label: String
    let queue: LockFreeQueue

    static let active: UInt32 = 1, cancelled: UInt32 = 2, inFlight: UInt32 = 4, cancelHandled: UInt32 = 8
    static let suspendOne: UInt32 = 1 << 8

    let flags = Atomic<UInt32>(0)
    /// The data of the call in flight.
    private let current = Atomic<UInt>(0)
    private let newEventHandler = Atomic<UnsafeMutableRawPointer?>(nil)
    private let newCancelHandler = Atomic<UnsafeMutableRawPointer?>(nil)
    private let newRegistrationHandler = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Owned by whoever holds in-flight.
    nonisolated(unsafe) private var eventHandler: (@Sendable () -> Void)?
    nonisolated(unsafe) private var cancelHandler: (@Sendable () -> Void)?
    nonisolated(unsafe) private var registrationHandler: (@Sendable () -> Void)?

    private final class HandlerBox {
        let handler: (@Sendable () -> Void)?
        init(_ handler: (@Sendable () -> Void)?) { self.handler = handler }
    }

    init(label: String, queue: LockFreeQueue) {
        self.label = label
        self.queue = queue
    }

    deinit {
        if (flags.load(ordering: .relaxed) >> 8) > 0 { misuse("released while suspended: source '\(label)'") }
        for slot in [
            newEventHandler.exchange(nil, ordering: .acquiring), newCancelHandler.exchange(nil, ordering: .acquiring),
            newRegistrationHandler.exchange(nil, ordering: .acquiring),
        ] {
            if let slot { Unmanaged<HandlerBox>.fromOpaque(slot).release() }
        }
    }

    // MARK: Subclass hooks

    /// Whether data waits to be delivered.
    var hasPending: Bool { false }
    /// Takes the pending data, leaving none.
    func takePending() -> UInt { 0 }
    func didActivate() {}
    func didResume() {}
    func didDeliver() {}
    func willCancel() {}

    // MARK: Handlers

    public func setEventHandler(_ handler: (@Sendable () -> Void)?) { publish(handler, in: newEventHandler) }

    public func setCancelHandler(_ handler: (@Sendable () -> Void)?) { publish(handler, in: newCancelHandler) }

    public func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) { publish(handler, in: newRegistrationHandler) }

    private func publish(_ handler: (@Sendable () -> Void)?, in slot: borrowing Atomic<UnsafeMutableRawPointer?>) {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        if let unadopted = slot.exchange(box, ordering: .acquiringAndReleasing) {
            Unmanaged<HandlerBox>.fromOpaque(unadopted).release()
        }
    }

    /// Adopts handlers set since the last delivery. Only the holder of in-flight.
    private func adoptHandlers() {
        if let box = newEventHandler.exchange(nil, ordering: .acquiring) {
            eventHandler = Unmanaged<HandlerBox>.fromOpaque(box).takeRetainedValue().handler
        }
        if let box = newCancelHandler.exchange(nil, ordering: .acquiring) {
            cancelHandler = Unmanaged<HandlerBox>.fromOpaque(box).takeRetainedValue().handler
        }
        if let box = newRegistrationHandler.exchange(nil, ordering: .acquiring) {
            registrationHandler = Unmanaged<HandlerBox>.fromOpaque(box).takeRetainedValue().handler
        }
    }

    // MARK: Lifecycle

    public var data: UInt { current.load(ordering: .relaxed) }

    public func activate() {
        let registers = newRegistrationHandler.load(ordering: .acquiring) != nil
        var current = flags.load(ordering: .relaxed)
        var registering = false
        var cancelling = false
        while true {
            guard current & Self.active == 0 else { return }
            registering = registers && current & (Self.cancelled | Self.inFlight) == 0
            cancelling = current & (Self.cancelled | Self.inFlight) == Self.cancelled
            let desired = current | Self.active | (registering || cancelling ? Self.inFlight : 0)
            let (won, seen) = flags.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if won { break }
            current = seen
        }
        didActivate()
        if registering { return queue.async { [self] in register() } }
        if cancelling { return queue.async { [self] in cancelled() } }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        arm()
    }

    public func suspend() { flags.add(Self.suspendOne, ordering: .relaxed) }

    public func resume() {
        var current = flags.load(ordering: .relaxed)
        while true {
            guard current >> 8 > 0 else { misuse("over-resume: resume() without a matching suspend() on source '\(label)'") }
            let (won, seen) = flags.compareExchange(expected: current, desired: current - Self.suspendOne, ordering: .acquiringAndReleasing)
            if won { break }
            current = seen
        }
        didResume()
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        arm()
    }

    public func cancel() {
        let before = flags.bitwiseOr(Self.cancelled, ordering: .sequentiallyConsistent).oldValue
        guard before & Self.cancelled == 0 else { return }
        willCancel()
        // Active with nothing in flight: take in-flight to run the cancel handler. Otherwise the delivery in flight runs
        // it, or activation does.
        var current = before | Self.cancelled
        while current & (Self.inFlight | Self.active) == Self.active {
            let (won, seen) = flags.compareExchange(expected: current, desired: current | Self.inFlight, ordering: .acquiringAndReleasing)
            if won { return queue.async { [self] in cancelled() } }
            current = seen
        }
    }

    public var isCancelled: Bool { flags.load(ordering: .acquiring) & Self.cancelled != 0 }

    // MARK: Delivery

    /// After an event merged into the pending data.
    @inline(__always)
    func merged() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        arm()
    }

    /// Submits one delivery if the source may deliver, has data, and has none in flight.
    private func arm() {
        var current = flags.load(ordering: .acquiring)
        while current & (Self.active | Self.cancelled | Self.inFlight) == Self.active && current >> 8 == 0 && hasPending {
            let (won, seen) = flags.compareExchange(expected: current, desired: current | Self.inFlight, ordering: .acquiringAndReleasing)
            if won { return queue.async { [self] in deliver() } }
            current = seen
        }
    }

    private func deliver() {
        adoptHandlers()
        if flags.load(ordering: .acquiring) & Self.cancelled != 0 { return cancelled() }
        let data = takePending()
        current.store(data, ordering: .relaxed)
        if data != 0 { eventHandler?() }
        endCall()
    }

    /// The registration call, holding in-flight as a delivery does (unless cancelled since activation).
    private func register() {
        adoptHandlers()
        if flags.load(ordering: .acquiring) & Self.cancelled != 0 { return cancelled() }
        let handler = registrationHandler
        registrationHandler = nil
        handler?()
        endCall()
    }

    /// After a call: lets go of in-flight, then runs the cancel handler if cancelled meanwhile, or arms again.
    private func endCall() {
        didDeliver()
        let before = flags.bitwiseAnd(~Self.inFlight, ordering: .sequentiallyConsistent).oldValue
        if before & Self.cancelled != 0 {
            // Cancelled during the call: this delivery still holds the right to run the cancel handler.
            flags.bitwiseOr(Self.inFlight, ordering: .relaxed)
            return cancelled()
        }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        arm()
    }

    /// Runs the cancel handler once (in-flight held), then lets go of every handler: they often capture the source.
    private func cancelled() {
        guard flags.bitwiseOr(Self.cancelHandled, ordering: .acquiringAndReleasing).oldValue & Self.cancelHandled == 0 else { return }
        adoptHandlers()
        let handler = cancelHandler
        cancelHandler = nil
        eventHandler = nil
        registrationHandler = nil
        handler?()
    }
}
