/// A counting semaphore.
public protocol EngineSemaphore: AnyObject, Sendable {
    /// Takes one unit, blocking until one is available or `deadline` passed. A timed-out wait takes nothing.
    func wait(until deadline: Deadline) -> WaitResult

    /// Returns one unit; `true` when that woke a waiting thread.
    @discardableResult
    func signal() -> Bool
}
