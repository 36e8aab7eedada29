import ArenaContract
import Synchronization

/// What a queue's mailbox carries, in FIFO order.
enum ActorMail: Sendable {
    /// A block submitted with async (a barrier runs alone on a concurrent queue).
    case block(@Sendable () -> Void, barrier: Bool)
    /// A sync caller parked until the queue runs its block.
    case sync(ActorSyncWaiter)
    /// Work of a queue targeting this one, run here as one of this queue's blocks.
    case forwarded(ActorForwardedJob)
    /// The target changes here, between the blocks before and after.
    case retarget(ActorQueue?)

    var isBarrier: Bool {
        switch self {
        case .block(_, let barrier): barrier
        case .sync(let waiter): waiter.isBarrier
        case .retarget: true
        case .forwarded: false
        }
    }
}

/// Work a queue hands to its target: the queues it passed through (innermost first, so the running thread can enter
/// the whole chain), what to run, and what to call when it ran.
final class ActorForwardedJob: Sendable {
    let chain: [ActorQueueCore]
    let work: @Sendable () -> Void
    let done: @Sendable () -> Void

    init(chain: [ActorQueueCore], work: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) {
        self.chain = chain
        self.work = work
        self.done = done
    }
}

/// A sync caller's block: the queue runs it, then wakes the caller, who waits on a futex (its thread is blocked: a
/// synchronous API cannot suspend).
final class ActorSyncWaiter: @unchecked Sendable {
    let isBarrier: Bool
    /// Borrowed (`withoutActuallyEscaping`); dropped before the caller is woken.
    private var body: (() -> Void)?
    private let done = FutexWord(0)

    init(isBarrier: Bool, body: @escaping () -> Void) {
        self.isBarrier = isBarrier
        self.body = body
    }

    func run() {
        body?()
        body = nil
        done.word.pointee.store(1, ordering: .releasing)
        done.wake()
    }

    func waitUntilDone() {
        while done.word.pointee.load(ordering: .acquiring) == 0 { done.wait(whileEqualTo: 0) }
    }
}
