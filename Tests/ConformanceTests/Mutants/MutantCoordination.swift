import Contenders
import Glibc
import Synchronization

/// A system group with the engine's fault applied.
final class MutantGroup: EngineGroup {
    let base: SystemGroup
    private let shared: MutantShared
    private var fault: Fault { shared.fault }
    private let manualEnters = Atomic<Int>(0)

    init(base: SystemGroup, shared: MutantShared) {
        self.base = base
        self.shared = shared
    }

    func async(on queue: MutantQueue, _ block: @escaping @Sendable () -> Void) {
        if shared.dropsSubmission() { return }
        base.async(on: queue.base, block)
    }

    func enter() {
        manualEnters.add(1, ordering: .relaxed)
        base.enter()
    }

    func leave() {
        if fault == .unbalancedLeaveIgnored && manualEnters.load(ordering: .relaxed) == 0 { return }
        manualEnters.subtract(1, ordering: .relaxed)
        base.leave()
    }

    func notify(queue: MutantQueue, _ block: @escaping @Sendable () -> Void) {
        switch fault {
        case .groupNotifiesEarly: queue.base.async(block)
        case .notifyDuplicated:
            base.notify(queue: queue.base, block)
            base.notify(queue: queue.base, block)
        default: base.notify(queue: queue.base, block)
        }
    }

    func wait(until deadline: Deadline) -> WaitResult {
        fault == .groupWaitReturnsAtOnce ? .success : base.wait(until: deadline)
    }
}

/// A system semaphore with the engine's fault applied.
final class MutantSemaphore: EngineSemaphore {
    let base: SystemSemaphore
    let fault: Fault
    /// Units that timed-out waits claimed anyway (`semaphoreTimeoutTakes`).
    private let debt = Atomic<Int>(0)

    init(base: SystemSemaphore, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func wait(until deadline: Deadline) -> WaitResult {
        let result = base.wait(until: deadline)
        if result == .timedOut && fault == .semaphoreTimeoutTakes { debt.add(1, ordering: .relaxed) }
        return result
    }

    @discardableResult
    func signal() -> Bool {
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

/// A system once token with the engine's fault applied.
final class MutantOnce: EngineOnce {
    let base: SystemOnce
    let fault: Fault
    private let done = Atomic<Bool>(false)
    private let runner = Atomic<UInt>(0)

    init(base: SystemOnce, fault: Fault) {
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

/// A system work item with the engine's fault applied.
final class MutantWorkItem: EngineWorkItem {
    typealias Queue = MutantQueue

    let base: SystemWorkItem
    let fault: Fault
    private let waited = Atomic<Bool>(false)

    init(base: SystemWorkItem, fault: Fault) {
        self.base = base
        self.fault = fault
    }

    func perform() { base.perform() }

    func cancel() {
        if fault != .cancelIgnored { base.cancel() }
    }

    var isCancelled: Bool { base.isCancelled }

    func notify(queue: MutantQueue, _ block: @escaping @Sendable () -> Void) {
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
