import ArenaContract
import Glibc

/// What the mutex engine knows about the calling thread: which queues it is draining right now (outermost first),
/// and whether it is one of the engine's workers. Queues use it to find the current queue for specific values and
/// to diagnose a sync onto a queue the thread already drains; the pool uses it to count workers that block.
final class MutexThreadContext {
    /// Queues whose blocks this thread runs right now, through every target link, outermost first.
    private let entered = EnteredStackBox<MutexQueue>()
    /// The pool this thread works for, if it is a worker.
    var pool: MutexWorkerPool?
    /// The class rank of the pool item this worker runs now: its drains yield to more urgent ready work.
    var turnRank = QoSClass.default.rank

    /// Whether the block boundary just reached should give the thread back: a worker's pool has work of a more
    /// urgent class than the turn it runs. One relaxed load.
    @inline(__always)
    var shouldYield: Bool { pool?.hasReadyMoreUrgent(than: turnRank) ?? false }

    /// This record's thread-local slot: a literal, so reading it needs no lazy initialisation (see `ThreadLocal`).
    private static let slotIndex: Int32 = 1
    private static let slot = ThreadLocal(index: slotIndex) { MutexThreadContext() }

    /// The calling thread's context, made on first use and released when the thread exits.
    @inline(__always)
    static var current: MutexThreadContext {
        threadSlotObject(slotIndex, as: MutexThreadContext.self)?.takeUnretainedValue() ?? slot.current
    }

    /// Whether this thread is draining `queue` (directly, or because it drains a queue targeting it).
    @inline(__always) func drains(_ queue: MutexQueue) -> Bool { entered.stack.pointee.contains(queue) }

    /// The innermost queue this thread runs a block of.
    @inline(__always) var innermost: MutexQueue? { entered.stack.pointee.last }

    @inline(__always) var depth: Int { entered.stack.pointee.count }
    @inline(__always) func push(_ queue: MutexQueue) { entered.stack.pointee.push(queue) }
    @inline(__always) func pop(to depth: Int) { entered.stack.pointee.pop(to: depth) }

    /// Runs `body` with `queue` entered.
    @inline(__always)
    func within<T>(_ queue: MutexQueue, _ body: () throws -> T) rethrows -> T {
        entered.stack.pointee.push(queue)
        defer { entered.stack.pointee.pop() }
        return try body()
    }

    /// Runs `body` as a wait that may block this thread: a worker tells its pool, which may start another
    /// thread so that runnable work is not stranded behind blocked workers.
    @inline(__always)
    static func blocking<T>(_ body: () throws -> T) rethrows -> T {
        guard let pool = current.pool else { return try body() }
        pool.workerWillBlock()
        defer { pool.workerDidUnblock() }
        return try body()
    }
}
