import ArenaContract

/// A counting semaphore on a mutex and a condition variable, counted as libdispatch counts: `value` may go
/// negative, each negative unit a waiter; `signal` hands a unit to a sleeping waiter through `handoffs`. A waiter
/// that times out takes a handoff made in the meantime, or gives its unit back, so the count stays right.
public final class MutexSemaphore: EngineSemaphore, @unchecked Sendable {
    private let lock = PthreadMutex()
    private let handedOff = PthreadCondition()
    // Guarded by `lock`:
    private var value: Int
    private var handoffs = 0

    init(value: Int) { self.value = value }

    public func wait(until deadline: Deadline) -> WaitResult {
        lock.lock()
        defer { lock.unlock() }
        value -= 1
        if value >= 0 { return .success }
        return MutexThreadContext.blocking {
            while handoffs == 0 {
                if !handedOff.wait(lock, until: deadline) && handoffs == 0 {
                    value += 1
                    return .timedOut
                }
            }
            handoffs -= 1
            return .success
        }
    }

    @discardableResult
    public func signal() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        guard value <= 0 else { return false }
        handoffs += 1
        handedOff.signal()
        return true
    }
}
