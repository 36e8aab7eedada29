import ArenaContract

/// What the lock-free engine knows about the calling thread: the queues it is draining right now (outermost first,
/// for specific values and the sync-onto-own-queue diagnostic) and the worker it is, if any (its pushes go to that
/// worker's own run queue).
final class LockFreeThreadContext {
    private let entered = EnteredStackBox<LockFreeQueue>()
    var worker: LockFreeWorker?
    /// Jobs this thread keeps for reuse. Touched only by this thread; unchecked, because the runtime's exclusivity
    /// check would cost more than the reuse saves (every access is a plain call on the calling thread's own value).
    @exclusivity(unchecked) var spares = LockFreeJobSpares()

    /// This record's thread-local slot: a literal, so reading it needs no lazy initialisation (see `ThreadLocal`).
    private static let slotIndex: Int32 = 0
    private static let slot = ThreadLocal(index: slotIndex) { LockFreeThreadContext() }

    /// The calling thread's context.
    @inline(__always)
    static var current: LockFreeThreadContext { borrowed.takeUnretainedValue() }

    /// The calling thread's context, borrowed: valid while the thread runs, with no retain or release.
    @inline(__always)
    static var borrowed: Unmanaged<LockFreeThreadContext> {
        threadSlotObject(slotIndex) ?? Unmanaged.passUnretained(slot.current)
    }

    /// Whether this thread is draining `queue` (directly, or through a queue targeting it).
    @inline(__always) func drains(_ queue: LockFreeQueue) -> Bool { entered.stack.pointee.contains(queue) }

    /// The innermost queue this thread runs a block of.
    @inline(__always) var innermost: LockFreeQueue? { entered.stack.pointee.last }

    /// The innermost queue, unretained (it lives while this thread runs one of its blocks).
    @inline(__always) var innermostUnmanaged: Unmanaged<LockFreeQueue>? { entered.stack.pointee.lastUnmanaged }

    @inline(__always) var depth: Int { entered.stack.pointee.count }
    @inline(__always) func push(_ queue: LockFreeQueue) { entered.stack.pointee.push(queue) }
    @inline(__always) func pop() { entered.stack.pointee.pop() }
    @inline(__always) func pop(to depth: Int) { entered.stack.pointee.pop(to: depth) }

    /// Runs `body` with `queue` entered.
    @inline(__always)
    func within<T>(_ queue: LockFreeQueue, _ body: () throws -> T) rethrows -> T {
        push(queue)
        defer { pop() }
        return try body()
    }

    /// Runs `body` as a wait that may block the thread: a worker tells its pool, which keeps enough workers runnable.
    @inline(__always)
    static func blocking<T>(_ body: () throws -> T) rethrows -> T {
        guard let worker = current.worker else { return try body() }
        worker.pool.workerWillBlock()
        defer { worker.pool.workerDidUnblock() }
        return try body()
    }
}
