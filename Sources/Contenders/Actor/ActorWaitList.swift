import ArenaContract
import Synchronization

/// Waiters for a condition that, once it holds, releases all of them: async waiters as continuations, blocking
/// waiters on a futex. Groups and work items use it. The waiter list is under a pthread mutex; `release` wakes
/// everyone.
final class ActorWaitList: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var continuations: [CheckedContinuation<Void, Never>] = []
    /// Bumped by every release; blocking waiters sleep while it holds the value they saw.
    private let generation = FutexWord(0)

    /// Suspends until `isDone()` (checked under the list's lock) holds.
    func wait(until isDone: () -> Bool) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if isDone() { return true }
                continuations.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Blocks the calling thread until `isDone()` holds or `deadline` passed; returns `isDone()`.
    func block(until deadline: Deadline, _ isDone: () -> Bool) -> Bool {
        while true {
            let seen = generation.word.pointee.load(ordering: .acquiring)
            if lock.withLock(isDone) { return true }
            if !generation.wait(whileEqualTo: seen, until: deadline) { return lock.withLock(isDone) }
        }
    }

    /// Runs `change` under the list's lock; if it reports the condition now holds, releases every waiter.
    func update(_ change: () -> Bool) {
        var released: [CheckedContinuation<Void, Never>] = []
        let holds = lock.withLock {
            let holds = change()
            if holds { swap(&released, &continuations) }
            return holds
        }
        guard holds else { return }
        generation.word.pointee.add(1, ordering: .releasing)
        generation.wakeAll()
        for continuation in released { continuation.resume() }
    }
}
