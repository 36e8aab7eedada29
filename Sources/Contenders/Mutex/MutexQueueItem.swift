import ArenaContract

/// What a queue holds, in FIFO order.
enum MutexQueueItem {
    /// A block submitted with async.
    case block(@Sendable () -> Void)
    /// A barrier block (a plain block on a serial queue).
    case barrier(@Sendable () -> Void)
    /// A sync caller waiting for its turn; a drainer runs the caller's block and wakes it.
    case sync(MutexSyncRequest)
    /// A queue that targets this one asks to run: drain it (serial), or serve one request (concurrent).
    case drain(MutexQueue, generation: UInt64)
    /// An active queue's target changes here, between the blocks before and after.
    case retarget(MutexQueue?)

    /// Whether the item must run alone on a concurrent queue.
    var isBarrier: Bool {
        switch self {
        case .barrier, .retarget: true
        case .sync(let request): request.isBarrier
        case .block, .drain: false
        }
    }
}

/// A sync caller's block, parked in the queue until a drainer reaches it. The drainer runs the block on its own
/// thread (keeping the target chain's exclusivity) while the caller waits on a condition variable.
final class MutexSyncRequest: @unchecked Sendable {
    let isBarrier: Bool
    /// The caller's block, borrowed (`withoutActuallyEscaping`): dropped before the caller is woken, because the
    /// drainer may still hold this request when the caller returns.
    private var body: (() -> Void)?
    private let lock = PthreadMutex()
    private let finished = PthreadCondition()
    private var done = false

    init(isBarrier: Bool, body: @escaping () -> Void) {
        self.isBarrier = isBarrier
        self.body = body
    }

    /// Runs the caller's block (on a drainer) and wakes the caller.
    func execute() {
        body?()
        body = nil  // only the drainer touches `body` after init; the caller reads nothing but `done`
        lock.withLock {
            done = true
            finished.signal()
        }
    }

    /// Blocks the caller until a drainer ran its block.
    func waitUntilDone() {
        MutexThreadContext.blocking {
            lock.withLock { while !done { finished.wait(lock) } }
        }
    }
}
