import ArenaContract
import Conformance
import Contenders
import Glibc
import Harness
import Synchronization

/// A source of the base engine, of any kind, with the engine's fault applied.
class MutantSource<Base: Engine>: EngineSource, @unchecked Sendable {
    enum Kind { case userData, timer, read, write, signal, process, file }

    let base: any EngineSource
    private let shared: MutantShared<Base>
    var fault: Fault { shared.fault }
    let kind: Kind
    private let descriptor: Int32
    private let onActivate: (@Sendable () -> Void)?
    private let cancelHandler = Locked<(@Sendable () -> Void)?>(nil)
    private let cancelledEarly = Atomic<Bool>(false)

    init(
        base: any EngineSource, shared: MutantShared<Base>, descriptor: Int32, kind: Kind,
        onActivate: (@Sendable () -> Void)? = nil
    ) {
        self.base = base
        self.shared = shared
        self.kind = kind
        self.descriptor = descriptor
        self.onActivate = onActivate
    }

    deinit {
        if fault == .cancelHandlerOnRelease, let handler = cancelHandler.withLock({ $0 }) { handler() }
    }

    var label: String { base.label }

    func setEventHandler(_ handler: (@Sendable () -> Void)?) {
        guard fault == .endOfFileSilent, kind == .read, let handler else { return base.setEventHandler(handler) }
        base.setEventHandler { [base] in if base.data != 0 { handler() } }
    }

    func setCancelHandler(_ handler: (@Sendable () -> Void)?) {
        cancelHandler.withLock { $0 = handler }
        if fault != .cancelLate { base.setCancelHandler(handler) }
    }

    var data: UInt {
        let data = base.data
        switch (fault, kind) {
        case (.readDataOffByOne, .read): return data + 1
        case (.signalCountedTwice, .signal): return data * 2
        case (.timerDataAlwaysOne, .timer): return 1
        default: return data
        }
    }

    /// Where `registrationDespiteCancel` runs the registration handler (user-data sources only).
    var registrationQueue: Base.Queue? { nil }

    /// The registration handler, kept here under `registrationDespiteCancel`.
    private let registration = Locked<(@Sendable () -> Void)?>(nil)

    func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) {
        switch fault {
        case .registrationIgnored: break
        case .registrationDespiteCancel: registration.withLock { $0 = handler }
        default: base.setRegistrationHandler(handler)
        }
    }

    func activate() {
        if let handler = registration.withLock({ $0 }) { registrationQueue?.async(handler) }
        base.activate()
        onActivate?()
    }

    func suspend() {
        if fault != .suspendIgnored { base.suspend() }
    }

    func resume() {
        if fault != .suspendIgnored { base.resume() }
    }

    func cancel() {
        switch fault {
        case .cancelLate:
            // The cancel handler runs now, while handlers may still run; the source stops 100 ms later.
            cancelledEarly.store(true, ordering: .relaxed)
            if let handler = cancelHandler.withLock({ $0 }) { shared.base.globalQueue.async(handler) }
            let base = base
            shared.base.globalQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { base.cancel() }
        case .closesDescriptorOnCancel where kind == .read || kind == .write || kind == .file:
            close(descriptor)
            base.cancel()
        default:
            base.cancel()
        }
    }

    var isCancelled: Bool { cancelledEarly.load(ordering: .relaxed) || base.isCancelled }
}

/// A user-data source with the engine's fault applied. Under `sourceNoCoalescing` it bypasses the base engine's
/// source: every merge becomes a handler call of its own, submitted at once, active or not, cancelled or not.
final class MutantUserDataSource<Base: Engine>: MutantSource<Base>, EngineUserDataSource, @unchecked Sendable {
    private let userData: Base.UserDataSource
    private let queue: Base.Queue
    private let merges = Atomic<Int>(0)
    private let eagerHandler = Locked<(@Sendable () -> Void)?>(nil)
    private let eagerData = Locked<UInt>(0)

    init(base: Base.UserDataSource, shared: MutantShared<Base>, queue: Base.Queue) {
        userData = base
        self.queue = queue
        super.init(base: base, shared: shared, descriptor: -1, kind: .userData)
    }

    override var registrationQueue: Base.Queue? { queue }

    override func setEventHandler(_ handler: (@Sendable () -> Void)?) {
        if fault == .sourceNoCoalescing { eagerHandler.withLock { $0 = handler } } else { super.setEventHandler(handler) }
    }

    override var data: UInt {
        fault == .sourceNoCoalescing ? eagerData.withLock { $0 } : super.data
    }

    func merge(_ value: UInt) {
        switch fault {
        case .sourceNoCoalescing:
            queue.async { [eagerData, eagerHandler] in
                eagerData.withLock { $0 = value }
                eagerHandler.withLock { $0 }?()
            }
        case .sourceDropsMerges where merges.add(1, ordering: .relaxed).newValue % 10 == 0:
            return
        default:
            userData.merge(value)
        }
    }
}

/// A timer source with the engine's fault applied.
final class MutantTimerSource<Base: Engine>: MutantSource<Base>, EngineTimerSource, @unchecked Sendable {
    private let timer: Base.TimerSource
    private let scheduled = Atomic<Bool>(false)
    /// Under `timerDrifts` and `timerLateRearms`: the interval the handler re-arms with, in nanoseconds (0: none).
    private let rearm = Atomic<Int64>(0)

    /// Under `timerArmedAfterCancel`: the schedule's interval, and the timer that goes on firing once this one is
    /// cancelled (cancelled itself when this source goes).
    private let interval = Atomic<Int64>(0)
    private let armed = Locked<Base.TimerSource?>(nil)
    private let engine: Base

    init(base: Base.TimerSource, shared: MutantShared<Base>) {
        timer = base
        engine = shared.base
        super.init(base: base, shared: shared, descriptor: -1, kind: .timer)
    }

    deinit { armed.withLock { $0 }?.cancel() }

    override func cancel() {
        super.cancel()
        let every = interval.load(ordering: .relaxed)
        guard fault == .timerArmedAfterCancel, every > 0 else { return }
        let ghost = engine.makeTimerSource(label: "\(label).still-armed", queue: engine.globalQueue)
        ghost.setEventHandler {}
        ghost.schedule(deadline: .now() + .nanoseconds(every), repeating: .nanoseconds(every), leeway: .zero)
        ghost.activate()
        armed.withLock { $0 = ghost }
    }

    override func setEventHandler(_ handler: (@Sendable () -> Void)?) {
        if fault == .timerLateRearms, let handler {
            return super.setEventHandler { [weak self] in
                let began = Deadline.now()
                handler()
                guard let self else { return }
                let interval = rearm.load(ordering: .relaxed)
                if interval > 0 && Deadline.now() - began > .nanoseconds(interval) {
                    // Late: start the schedule again from here, dropping the fires that came while the handler ran.
                    timer.schedule(deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval), leeway: .zero)
                }
            }
        }
        guard fault == .timerDrifts, let handler else { return super.setEventHandler(handler) }
        super.setEventHandler { [weak self] in
            handler()
            guard let self else { return }
            let interval = rearm.load(ordering: .relaxed)
            if interval > 0 { timer.schedule(deadline: .now() + .nanoseconds(interval), repeating: nil, leeway: .zero) }
        }
    }

    func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        interval.store(repeating?.nanosecondsClamped ?? 0, ordering: .relaxed)
        if fault == .rescheduleIgnored && scheduled.exchange(true, ordering: .relaxed) { return }
        switch fault {
        case .timerEarly:
            timer.schedule(deadline: deadline + .milliseconds(-5), repeating: repeating, leeway: leeway)
        case .timerLeewayIgnoredLate:
            timer.schedule(deadline: deadline + leeway * 4, repeating: repeating, leeway: .zero)
        case .oneShotRepeats:
            timer.schedule(deadline: deadline, repeating: repeating ?? .milliseconds(10), leeway: leeway)
        case .timerDrifts:
            rearm.store(repeating?.nanosecondsClamped ?? 0, ordering: .relaxed)
            timer.schedule(deadline: deadline, repeating: nil, leeway: leeway)
        case .timerLateRearms:
            rearm.store(repeating?.nanosecondsClamped ?? 0, ordering: .relaxed)
            timer.schedule(deadline: deadline, repeating: repeating, leeway: leeway)
        default:
            timer.schedule(deadline: deadline, repeating: repeating, leeway: leeway)
        }
    }
}
