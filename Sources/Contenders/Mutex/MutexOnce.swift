import ArenaContract
import Glibc
import Synchronization

/// A once token. The common case (done) is one atomic load; the first caller runs the body under the token's
/// claim while racing callers wait on a condition variable; a call from the body's own thread is misuse.
public final class MutexOnce: EngineOnce, @unchecked Sendable {
    public let label: String
    private static let new = 0, running = 1, done = 2
    private let state = Atomic<Int>(MutexOnce.new)
    private let lock = PthreadMutex()
    private let finished = PthreadCondition()
    private var runner = pthread_t()  // guarded by `lock`, meaningful while running

    init(label: String) { self.label = label }

    public func perform(_ body: () -> Void) {
        if state.load(ordering: .acquiring) == Self.done { return }
        lock.lock()
        switch state.load(ordering: .relaxed) {
        case Self.done:
            lock.unlock()
        case Self.running:
            if pthread_equal(runner, pthread_self()) != 0 {
                lock.unlock()
                misuse("once called recursively from its own body: once '\(label)'")
            }
            MutexThreadContext.blocking {
                while state.load(ordering: .relaxed) != Self.done { finished.wait(lock) }
            }
            lock.unlock()
        default:
            state.store(Self.running, ordering: .relaxed)
            runner = pthread_self()
            lock.unlock()
            body()
            lock.withLock {
                state.store(Self.done, ordering: .releasing)
                finished.broadcast()
            }
        }
    }
}
