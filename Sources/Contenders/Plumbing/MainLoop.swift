import DequeModule
import Glibc

/// The thread of a home engine's main queue (neutral plumbing): jobs submitted from any thread run one at a time, in
/// submission order, on the thread that called `run()`, the engine's `dispatchMain()`. Jobs submitted before
/// `run()` wait for it, as blocks on GCD's main queue wait for `dispatch_main()`.
///
/// An engine's main queue is one of its own serial queues whose turn (its drain) is submitted here instead of to the
/// worker pool, so a queue targeting the main queue runs on this thread as well. One mutex and one condition: the
/// main queue is a hand-off point, not a hot path.
final class MainLoop: @unchecked Sendable {
    private let name: String
    private let lock = PthreadMutex()
    private let changed = PthreadCondition()
    // Guarded by `lock`:
    private var jobs = Deque<() -> Void>()
    private var thread: pthread_t?

    /// `name` is the engine's, for the misuse message of a second `run()`.
    init(name: String) { self.name = name }

    /// Queues `job` for the loop's thread.
    func submit(_ job: @escaping () -> Void) {
        lock.lock()
        jobs.append(job)
        let wasEmpty = jobs.count == 1
        lock.unlock()
        if wasEmpty { changed.signal() }
    }

    /// Whether the caller is the loop's thread.
    var isCurrentThread: Bool {
        lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Makes the calling thread the loop's and runs jobs on it for the rest of the process. A second call is misuse:
    /// the engine has one main thread.
    func run() -> Never {
        lock.lock()
        if thread != nil {
            lock.unlock()
            misuse("dispatchMain() called a second time: engine '\(name)' already runs its main queue on another thread")
        }
        thread = pthread_self()
        while true {
            while jobs.isEmpty { _ = changed.wait(lock) }
            let job = jobs.removeFirst()
            lock.unlock()
            job()
            lock.lock()
        }
    }
}
