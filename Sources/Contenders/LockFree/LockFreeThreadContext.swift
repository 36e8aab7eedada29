/// What the lock-free engine knows about the calling thread: the queues it is draining right now (outermost first,
/// for specific values and the sync-onto-own-queue diagnostic) and the worker it is, if any (its pushes go to that
/// worker's own run queue).
final class LockFreeThreadContext {
    var entered: [LockFreeQueue] = []
    var worker: LockFreeWorker?

    init() { entered.reserveCapacity(8) }

    private static let slot = ThreadLocal { LockFreeThreadContext() }

    /// The calling thread's context.
    static var current: LockFreeThreadContext { slot.current }

    /// Whether this thread is draining `queue` (directly, or through a queue targeting it).
    @inline(__always)
    func drains(_ queue: LockFreeQueue) -> Bool { entered.contains { $0 === queue } }

    /// Runs `body` with `queue` entered.
    @inline(__always)
    func within<T>(_ queue: LockFreeQueue, _ body: () throws -> T) rethrows -> T {
        entered.append(queue)
        defer { entered.removeLast() }
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
