import ArenaContract
import CLinux
import Glibc
import Synchronization

/// A 32-bit atomic word threads can sleep on in the kernel (Linux futex). Waiting is a system call only when the
/// word still holds the expected value; waking is a system call the caller can skip when it knows no one sleeps.
/// The word lives on the heap so its address is stable.
final class FutexWord: @unchecked Sendable {
    /// The word: use `word.pointee` for atomic operations.
    let word: UnsafeMutablePointer<Atomic<UInt32>>

    init(_ value: UInt32 = 0) {
        word = .allocate(capacity: 1)
        word.initialize(to: Atomic(value))
    }

    deinit {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    /// Sleeps while the word equals `expected`, until woken or `deadline` (spurious returns possible: callers
    /// re-check). Returns false only when the deadline passed.
    @discardableResult
    func wait(whileEqualTo expected: UInt32, until deadline: Deadline = .distantFuture) -> Bool {
        let raw = UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self)
        if clinux_futex_wait(raw, expected, deadline.nanoseconds) == 0 { return true }
        return errno != ETIMEDOUT
    }

    /// Wakes up to `count` sleepers.
    func wake(_ count: Int32 = 1) {
        let raw = UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self)
        _ = clinux_futex_wake(raw, count)
    }

    /// Wakes every sleeper.
    func wakeAll() { wake(Int32.max) }
}
