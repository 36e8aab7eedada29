import ArenaContract
import Glibc
import Synchronization

/// A once token: the first caller runs the body; racing callers wait on the token's wait list (blocking). A call
/// from the thread running the body is misuse.
public final class ActorOnce: EngineOnce, @unchecked Sendable {
    public let label: String
    private let done = Atomic<Bool>(false)
    private let waiters = ActorWaitList()
    // Guarded by the wait list's lock:
    private var started = false
    private var runner = pthread_t()

    init(label: String) { self.label = label }

    public func perform(_ body: () -> Void) {
        if done.load(ordering: .acquiring) { return }
        var first = false
        var recursive = false
        waiters.update {
            if !started {
                started = true
                runner = pthread_self()
                first = true
            } else if !done.load(ordering: .relaxed) && pthread_equal(runner, pthread_self()) != 0 {
                recursive = true
            }
            return false
        }
        if recursive { misuse("once called recursively from its own body: once '\(label)'") }
        if first {
            body()
            waiters.update {
                done.store(true, ordering: .releasing)
                return true
            }
            return
        }
        _ = waiters.block(until: .distantFuture) { done.load(ordering: .acquiring) }
    }
}
