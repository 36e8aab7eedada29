import ArenaContract
import Contenders
import Glibc
import Harness
import Synchronization

/// A group of the base engine with the engine's fault applied.
final class MutantGroup<Base: Engine>: EngineGroup {
    typealias Queue = MutantQueue<Base>

    let base: Base.Group
    private let shared: MutantShared<Base>
    private var fault: Fault { shared.fault }
    private let manualEnters = Atomic<Int>(0)
    /// Under `waitLosesWakeup` the group also counts its work itself and wakes waiters by bumping a generation.
    private let outstanding = Atomic<Int>(0)
    private let wakeups = Condition()
    private let generation = Atomic<Int>(0)

    init(base: Base.Group, shared: MutantShared<Base>) {
        self.base = base
        self.shared = shared
    }

    func async(on queue: MutantQueue<Base>, _ block: @escaping @Sendable () -> Void) {
        if shared.dropsSubmission() { return }
        guard fault == .waitLosesWakeup else { return base.async(on: queue.base, block) }
        outstanding.add(1, ordering: .relaxed)
        base.async(on: queue.base) { [self] in
            block()
            finishedOne()
        }
    }

    func enter() {
        manualEnters.add(1, ordering: .relaxed)
        if fault == .waitLosesWakeup { outstanding.add(1, ordering: .relaxed) }
        base.enter()
    }

    func leave() {
        if fault == .unbalancedLeaveIgnored && manualEnters.load(ordering: .relaxed) == 0 { return }
        manualEnters.subtract(1, ordering: .relaxed)
        base.leave()
        if fault == .waitLosesWakeup { finishedOne() }
    }

    private func finishedOne() {
        if outstanding.subtract(1, ordering: .releasing).newValue == 0 {
            wakeups.update { generation.add(1, ordering: .relaxed) }
        }
    }

    func notify(queue: MutantQueue<Base>, _ block: @escaping @Sendable () -> Void) {
        switch fault {
        case .groupNotifiesEarly: queue.base.async(block)
        case .notifyDuplicated:
            base.notify(queue: queue.base, block)
            base.notify(queue: queue.base, block)
        default: base.notify(queue: queue.base, block)
        }
    }

    func notify(queue: MutantQueue<Base>, item: MutantWorkItem<Base>) {
        if fault == .groupNotifyItemEarly { queue.base.async(item.base) } else { base.notify(queue: queue.base, item: item.base) }
    }

    func wait(until deadline: Deadline) -> WaitResult {
        switch fault {
        case .groupWaitReturnsAtOnce: return .success
        case .waitLosesWakeup: return waitLosingWakeups(until: deadline)
        default: return base.wait(until: deadline)
        }
    }

    /// The lost wake-up, the textbook check-then-act bug: the waiter checks that work is outstanding, then prepares to
    /// listen (10 µs of work, a stand-in for registering a waiter record on a slow path), then listens; a last leave
    /// that lands in between wakes nobody, and the waiter sleeps to its deadline and reports a timeout although the
    /// group is empty. On an idle machine the window is shorter than a thread takes to start and leave, so the
    /// wake-up is seldom lost; a waiter preempted inside the window holds it open for a time slice.
    private func waitLosingWakeups(until deadline: Deadline) -> WaitResult {
        if outstanding.load(ordering: .acquiring) == 0 { return .success }
        Threads.spin(.microseconds(10))
        var listeningFrom: Int?
        let woken = wakeups.wait(until: deadline) {
            let now = generation.load(ordering: .relaxed)
            if listeningFrom == nil { listeningFrom = now }  // listening starts here, not at the check
            return now != listeningFrom
        }
        return woken ? .success : .timedOut
    }
}

/// A semaphore of the base engine with the engine's fault applied.
final class MutantSemaphore<Base: Engine>: EngineSemaphore {
    let base: Base.Semaphore
    let fault: Fault
    /// Units that timed-out waits claimed anyway (`semaphoreTimeoutTakes`).
    private let debt = Atomic<Int>(0)
    /// Waiters leaving by timeout, still registered as waiting (`timeoutSwallowsSignal`).
    private let leaving = Atomic<Int>(0)

    init(base: Base.Semaphore, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func wait(until deadline: Deadline) -> WaitResult {
        let result = base.wait(until: deadline)
        if result == .timedOut && fault == .semaphoreTimeoutTakes { debt.add(1, ordering: .relaxed) }
        if result == .timedOut && fault == .timeoutSwallowsSignal {
            // Leaving by timeout takes a moment (10 µs, a stand-in for unlinking a waiter record), in which the waiter
            // still counts as waiting: a signal then wakes it, and it returns timed out with the unit.
            leaving.add(1, ordering: .relaxed)
            Threads.spin(.microseconds(10))
            leaving.subtract(1, ordering: .relaxed)
        }
        return result
    }

    @discardableResult
    func signal() -> Bool {
        if fault == .timeoutSwallowsSignal && leaving.load(ordering: .relaxed) > 0 { return true }
        if fault == .semaphoreTimeoutTakes {
            var owed = debt.load(ordering: .relaxed)
            while owed > 0 {
                let (exchanged, original) = debt.compareExchange(expected: owed, desired: owed - 1, ordering: .relaxed)
                if exchanged { return false }
                owed = original
            }
        }
        let woke = base.signal()
        return fault == .signalAlwaysWakes ? true : woke
    }
}

/// A once token of the base engine with the engine's fault applied.
final class MutantOnce<Base: Engine>: EngineOnce {
    let base: Base.Once
    let fault: Fault
    private let done = Atomic<Bool>(false)
    private let runner = Atomic<UInt>(0)

    init(base: Base.Once, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func perform(_ body: () -> Void) {
        switch fault {
        case .onceRacy:
            // Check, then act: racing callers all see "not done".
            if !done.load(ordering: .acquiring) {
                body()
                done.store(true, ordering: .releasing)
            }
        case .onceRecursionAllowed:
            if runner.load(ordering: .relaxed) == UInt(pthread_self()) { return }
            base.perform {
                runner.store(UInt(pthread_self()), ordering: .relaxed)
                body()
                runner.store(0, ordering: .relaxed)
            }
        default:
            base.perform(body)
        }
    }
}

/// A work item of the base engine with the engine's fault applied.
final class MutantWorkItem<Base: Engine>: EngineWorkItem {
    typealias Queue = MutantQueue<Base>

    let base: Base.WorkItem
    let fault: Fault
    private let waited = Atomic<Bool>(false)
    /// The item's own notify list, under `notifyLostWhileFinishing`.
    private let notifies: MutantNotifyList<Base>?

    init(base: Base.WorkItem, fault: Fault, notifies: MutantNotifyList<Base>? = nil) {
        self.base = base
        self.fault = fault
        self.notifies = notifies
    }

    func perform() { base.perform() }

    func cancel() {
        if fault != .cancelIgnored { base.cancel() }
    }

    var isCancelled: Bool { base.isCancelled }

    func notify(queue: MutantQueue<Base>, _ block: @escaping @Sendable () -> Void) {
        if let notifies { return notifies.add(queue.base, block) }
        if fault == .workItemNotifyEarly { queue.base.async(block) } else { base.notify(queue: queue.base, block) }
    }

    func wait(until deadline: Deadline) -> WaitResult {
        if fault == .workItemWaitAtOnce { return .success }
        if fault == .doubleWaitAllowed && waited.load(ordering: .relaxed) { return .success }
        let result = base.wait(until: deadline)
        if result == .success { waited.store(true, ordering: .relaxed) }
        return result
    }
}

/// A work item's notifies kept by the item itself, under `notifyLostWhileFinishing`, with the textbook check-then-act
/// bug: `add` checks that the body has not finished, then prepares the entry (10 µs of work, a stand-in for allocating
/// a record on a slow path), then appends it; `finish` takes the list, then marks the body finished. An entry appended
/// after the list was taken is never submitted: a notify registered while the body ends is lost.
final class MutantNotifyList<Base: Engine>: Sendable {
    private let pending = Locked<[(queue: Base.Queue, block: @Sendable () -> Void)]>([])
    private let finished = Atomic<Bool>(false)

    func add(_ queue: Base.Queue, _ block: @escaping @Sendable () -> Void) {
        if finished.load(ordering: .acquiring) { return queue.async(block) }
        Threads.spin(.microseconds(10))
        pending.withLock { $0.append((queue, block)) }
    }

    func finish() {
        let taken = pending.withLock { list in
            defer { list = [] }
            return list
        }
        finished.store(true, ordering: .releasing)
        for entry in taken { entry.queue.async(entry.block) }
    }
}
