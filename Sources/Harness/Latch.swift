import ArenaContract

/// A count-down latch: `wait` returns once `countDown()` was called `count` times. Checks and workloads use it to
/// learn that blocks ran, with a deadline, so a wedged engine shows up as a failed wait rather than a hang.
public final class Latch: @unchecked Sendable {
    private let condition = Condition()
    private var remaining: Int

    public init(_ count: Int = 1) { remaining = count }

    /// Counts one down; the call that reaches zero wakes every waiter.
    public func countDown() {
        condition.update { remaining -= 1 }
    }

    /// Whether the count reached zero before `deadline`.
    @discardableResult
    public func wait(until deadline: Deadline) -> Bool {
        condition.wait(until: deadline) { remaining <= 0 }
    }

    /// Whether the count reached zero within `timeout`.
    @discardableResult
    public func wait(_ timeout: Duration) -> Bool { wait(until: .now() + timeout) }

    /// Whether the count already reached zero.
    public var isOpen: Bool { condition.lock.withLock { remaining <= 0 } }

    /// Counts still missing.
    public var remainingCount: Int { condition.lock.withLock { remaining } }
}
