import Contenders

/// A count-down latch: `wait` returns once `countDown()` was called `count` times. Checks use it to learn that
/// blocks ran, with a deadline, so a wedged engine shows up as a failed wait rather than a hang.
final class Latch: @unchecked Sendable {
    private let condition = Condition()
    private var remaining: Int

    init(_ count: Int = 1) { remaining = count }

    func countDown() {
        condition.update { remaining -= 1 }
    }

    /// Whether the count reached zero before `deadline`.
    @discardableResult
    func wait(until deadline: Deadline) -> Bool {
        condition.wait(until: deadline) { remaining <= 0 }
    }

    /// Whether the count reached zero within `timeout`.
    @discardableResult
    func wait(_ timeout: Duration) -> Bool { wait(until: .now() + timeout) }

    /// Whether the count already reached zero.
    var isOpen: Bool { condition.lock.withLock { remaining <= 0 } }

    /// Counts still missing.
    var remainingCount: Int { condition.lock.withLock { remaining } }
}
