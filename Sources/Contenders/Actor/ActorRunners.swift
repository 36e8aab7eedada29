import ArenaContract
import DequeModule

/// The blocks of a concurrent queue that are ready to run, and the runner tasks that run them: at most `width` tasks,
/// each taking blocks in FIFO order until none is left, instead of a task per block.
///
/// Why: a task per block cost a task's creation, enqueue and teardown on every block (the queue ran 0.2 to 0.44 times
/// as many blocks a second as `system` in `async-drain`); Swift's cooperative pool runs at most `width` of them at
/// once anyway, so `width` runners that live while blocks wait lose no parallelism. A runner yields to the pool
/// after every `batch` blocks, so a queue that never empties does not keep other queues' actors off the pool.
///
/// Locks: a pthread mutex around the FIFO and the runner count (never held while a block runs).
final class ActorRunners: @unchecked Sendable {
    /// Blocks a runner runs before it lets other tasks have its thread.
    static let batch = 16

    private let lock = PthreadMutex()
    private var ready = Deque<ActorMail>()
    private var running = 0
    private let width: Int

    init(width: Int) { self.width = width }

    /// Queues `mail`; true when the caller must start a runner (fewer than `width` run). One lock round trip.
    func hand(_ mail: ActorMail) -> Bool {
        lock.withLock {
            ready.append(mail)
            guard running < width else { return false }
            running += 1
            return true
        }
    }

    /// The next block for a runner, or nil, and then the runner is counted out under the same lock, so a block
    /// handed after that starts a runner of its own.
    func next() -> ActorMail? {
        lock.withLock {
            if let mail = ready.popFirst() { return mail }
            running -= 1
            return nil
        }
    }
}
