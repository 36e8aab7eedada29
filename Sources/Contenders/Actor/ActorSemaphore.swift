import ArenaContract

/// A counting semaphore whose waiters queue in FIFO order: async waiters as continuations, blocking waiters on
/// futexes. `signal` hands its unit to the first waiter (and says it woke one) or keeps it; a blocking waiter that
/// times out leaves the queue if it is still in it, or takes the unit already handed to it, so the count stays
/// right.
public final class ActorSemaphore: EngineSemaphore, @unchecked Sendable {
    private enum Waiter {
        case task(CheckedContinuation<Void, Never>)
        case thread(FutexWord)
    }

    private let lock = PthreadMutex()
    private var value: Int
    private var waiters: [(id: UInt64, waiter: Waiter)] = []
    private var nextID: UInt64 = 0

    init(value: Int) { self.value = value }

    public func wait(until deadline: Deadline) -> WaitResult {
        let handed = FutexWord(0)
        guard let id = takeOrEnqueue(.thread(handed)) else { return .success }
        while handed.word.pointee.load(ordering: .acquiring) == 0 {
            if !handed.wait(whileEqualTo: 0, until: deadline) {
                let stillWaiting = lock.withLock {
                    guard let index = waiters.firstIndex(where: { $0.id == id }) else { return false }
                    waiters.remove(at: index)
                    return true
                }
                if stillWaiting { return .timedOut }
                // A signal handed the unit over meanwhile: it is ours.
            }
        }
        return .success
    }

    /// Suspends until a unit is available, and takes it.
    public func wait() async {
        await withCheckedContinuation { continuation in
            if takeOrEnqueue(.task(continuation)) == nil { continuation.resume() }
        }
    }

    /// Takes a unit (`nil`) or queues `waiter` last and returns its id, in one critical section.
    private func takeOrEnqueue(_ waiter: Waiter) -> UInt64? {
        lock.withLock {
            if value > 0 {
                value -= 1
                return nil
            }
            nextID += 1
            waiters.append((nextID, waiter))
            return nextID
        }
    }

    @discardableResult
    public func signal() -> Bool {
        let first: Waiter? = lock.withLock {
            if waiters.isEmpty {
                value += 1
                return nil
            }
            return waiters.removeFirst().waiter
        }
        switch first {
        case .task(let continuation):
            continuation.resume()
            return true
        case .thread(let word):
            word.word.pointee.store(1, ordering: .releasing)
            word.wake()
            return true
        case nil:
            return false
        }
    }
}
