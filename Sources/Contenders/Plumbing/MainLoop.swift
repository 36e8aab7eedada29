import ArenaContract
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
    private var claimed = false

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

    /// Makes the calling thread the loop's, calls `start` (once per loop: what the engine starts with it), and runs
    /// jobs on the thread for the rest of the process. A second call is misuse: the engine has one main thread.
    func run(starting start: () -> Void = {}) -> Never {
        lock.lock()
        if claimed {
            lock.unlock()
            misuse("dispatchMain() called a second time: engine '\(name)' already runs its main queue on another thread")
        }
        claimed = true
        lock.unlock()
        start()
        lock.lock()
        while true {
            while jobs.isEmpty { _ = changed.wait(lock) }
            let job = jobs.removeFirst()
            lock.unlock()
            job()
            lock.lock()
        }
    }
}
