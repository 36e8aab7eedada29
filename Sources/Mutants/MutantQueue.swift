import ArenaContract
import Conformance
import Contenders
import Glibc
import Harness
import Synchronization

struct MutantError: Error {}

/// A queue of the base engine with the engine's fault applied.
final class MutantQueue<Base: Engine>: EngineQueue, @unchecked Sendable {
    typealias WorkItem = MutantWorkItem<Base>

    let base: Base.Queue
    let kind: QueueKind
    private let shared: MutantShared<Base>
    private var fault: Fault { shared.fault }
    private let inactive: Atomic<Bool>
    private let suspensions = Atomic<Int>(0)
    /// Marks this queue, so `syncOnOwnQueueAllowed` can tell that the caller drains it.
    private let ownKey = SpecificKey<Bool>("mutant.own")
    /// Pending blocks, newest last, under `startsLastFirst`.
    private let stack = Locked<[@Sendable () -> Void]>([])
    /// Every value set, under `specificOutlivesQueue`.
    private let values = Locked<[ObjectIdentifier: Any]>([:])
    /// The context as set, under `finalizerWithoutContext` (the base always holds one).
    private let contextSet = Locked<QueueContext?>(nil)
    /// Blocks submitted and not yet returned, under `finalizerLostAfterDrain`.
    private let inFlight = Locked(0)

    /// Under `suspendSkipsTargeters`: a queue of the same kind targeting `base`, through which the queue's own blocks
    /// go and which suspend and resume act on, so that a suspension holds back the queue's own blocks and never those
    /// of queues targeting `base`.
    private let gate: Base.Queue?
    /// Where the queue's own blocks go: `base`, or the gate under `suspendSkipsTargeters`.
    private var front: Base.Queue { gate ?? base }

    /// Whether this wraps the main queue (the `main…` faults apply to it only).
    private let isMain: Bool
    /// The class given at creation, which `targetClassIgnored` reports instead of the one the block runs at.
    private let ownQoS: QoSClass?

    init(
        base: Base.Queue, kind: QueueKind, inactive: Bool, shared: MutantShared<Base>, isMain: Bool = false,
        ownQoS: QoSClass? = nil, gate: Base.Queue? = nil
    ) {
        self.base = base
        self.gate = gate
        self.kind = kind
        self.isMain = isMain
        self.ownQoS = ownQoS
        self.shared = shared
        self.inactive = Atomic(inactive)
        base.setSpecific(ownKey, true)
    }

    deinit {
        if fault == .releasesSuspendedSilently {
            for _ in 0..<suspensions.load(ordering: .relaxed) { front.resume() }
        }
        if fault == .specificOutlivesQueue { shared.kept.withLock { $0.append(values.withLock { $0 }) } }
        // Released with nothing in flight, by the program itself: the finalizer is forgotten.
        if fault == .finalizerLostAfterDrain && inFlight.snapshot == 0 { base.setFinalizer(nil) }
    }

    var label: String { base.label }

    func async(_ block: @escaping @Sendable () -> Void) {
        if shared.dropsSubmission() { return }
        if fault == .finalizerLostAfterDrain {
            inFlight.withLock { $0 += 1 }
            return base.async { [inFlight] in
                block()
                inFlight.withLock { $0 -= 1 }
            }
        }
        if fault == .queuesWaitForGlobal {
            if self === shared.global {
                shared.globalPending.add(1, ordering: .relaxed)
                return base.async { [shared] in
                    shared.globalPending.subtract(1, ordering: .relaxed)
                    block()
                }
            }
            return front.async { [shared] in
                shared.waitForGlobal()
                block()
            }
        }
        if fault == .asyncHops && kind == .serial {
            // Each block reaches the queue after a random delay of up to 1 ms: submission order is lost.
            base.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...1000)), block)
        } else if fault == .targetClassIgnored {
            base.async { [ownQoS] in MutantQueueClass.$running.withValue(.some(ownQoS), operation: block) }
        } else if fault == .startsLastFirst && kind == .concurrent {
            stack.withLock { $0.append(block) }
            base.async { [stack] in stack.withLock { $0.popLast() }?() }
        } else {
            front.async(block)
        }
    }

    func barrierAsync(_ block: @escaping @Sendable () -> Void) {
        if shared.dropsSubmission() { return }
        if fault == .barrierIgnored || (fault == .asyncHops && kind == .serial) { async(block) } else { front.barrierAsync(block) }
    }

    func sync<T>(_ block: () throws -> T) rethrows -> T {
        switch fault {
        case .syncInline:
            return try block()
        case .syncHoldsEngineLock:
            pthread_mutex_lock(shared.engineLock)
            defer { pthread_mutex_unlock(shared.engineLock) }
            return try base.sync(block)
        case .mainSyncInline where isMain:
            return try block()
        case .syncOnOwnQueueAllowed where shared.base.currentSpecific(ownKey) == true,
            .mainSyncOnSelfAllowed where isMain && shared.base.currentSpecific(ownKey) == true:
            return try block()
        case .syncLosesErrors:
            return try withoutActuallyEscaping(block) { block in
                try rethrowing(block)
            }
        default:
            return try front.sync(block)
        }
    }

    private func rethrowing<T>(_ block: () throws -> T) throws -> T {
        do { return try base.sync(block) } catch { throw MutantError() }
    }

    func barrierSync<T>(_ block: () throws -> T) rethrows -> T {
        fault == .barrierIgnored ? try base.sync(block) : try front.barrierSync(block)
    }

    func async(_ item: MutantWorkItem<Base>) {
        front.async(item.base)
    }

    func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        if shared.dropsSubmission() { return }
        if fault == .afterEarly { return base.async(block) }
        if fault == .afterDropsPast && deadline <= .now() { return }
        front.asyncAfter(deadline: deadline, block)
    }

    func asyncAfter(deadline: Deadline, _ item: MutantWorkItem<Base>) {
        if fault == .afterEarly { return base.async(item.base) }
        front.asyncAfter(deadline: deadline, item.base)
    }

    func setTarget(_ target: MutantQueue<Base>) {
        if fault == .targetIgnored { return }
        if fault == .retargetIgnored && !inactive.load(ordering: .relaxed) { return }
        base.setTarget(target.base)
    }

    func suspend() {
        if fault == .suspendIgnored { return }
        suspensions.add(1, ordering: .relaxed)
        front.suspend()
    }

    func resume() {
        if fault == .suspendIgnored { return }
        suspensions.subtract(1, ordering: .relaxed)
        front.resume()
    }

    func activate() {
        inactive.store(false, ordering: .relaxed)
        base.activate()
    }

    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        if fault == .specificLeaks { shared.leaked.withLock { $0[ObjectIdentifier(key)] = value } }
        if fault == .specificKeepsReplaced, let old = base.getSpecific(key) { shared.kept.withLock { $0.append(old) } }
        if fault == .specificOutlivesQueue { values.withLock { $0[ObjectIdentifier(key)] = value } }
        base.setSpecific(key, value)
    }

    var context: QueueContext? {
        get { fault == .finalizerWithoutContext ? contextSet.withLock { $0 } : base.context }
        set {
            if fault == .finalizerWithoutContext {
                contextSet.withLock { $0 = newValue }
                base.context = newValue ?? MutantContextPlaceholder()
            } else {
                base.context = newValue
            }
        }
    }

    func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) {
        if fault == .finalizerWithoutContext && base.context == nil { base.context = MutantContextPlaceholder() }
        if fault == .finalizerEarly, let finalizer, let context = base.context {
            return shared.global.base.async { finalizer(context) }
        }
        base.setFinalizer(finalizer)
    }

    func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? { base.getSpecific(key) }
}

/// The context a `finalizerWithoutContext` mutant gives its base queue so that the base always finalizes (libdispatch
/// runs no finalizer for a queue without a context).
final class MutantContextPlaceholder: Sendable {}

/// The own class of the mutant queue whose block the thread runs, under `targetClassIgnored`: `nil` outside such a
/// block, `.some(nil)` inside a block of a queue created without a class. (A task-local also works on threads that
/// run no task: it falls back to a thread-local.)
enum MutantQueueClass {
    @TaskLocal static var running: QoSClass?? = nil
}
