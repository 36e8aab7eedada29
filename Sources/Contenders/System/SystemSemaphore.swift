import ArenaContract
import Dispatch

/// A `DispatchSemaphore`.
public final class SystemSemaphore: EngineSemaphore {
    private let semaphore: DispatchSemaphore

    init(value: Int) { semaphore = DispatchSemaphore(value: value) }

    public func wait(until deadline: Deadline) -> WaitResult {
        WaitResult(semaphore.wait(timeout: deadline.dispatchTime))
    }

    @discardableResult
    public func signal() -> Bool { semaphore.signal() != 0 }
}
