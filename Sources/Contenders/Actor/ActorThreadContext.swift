import ArenaContract

/// The queues whose block the calling thread runs right now (outermost first). A block runs synchronously, without
/// suspension points, so during it the thread *is* its task: a thread-local describes it exactly, and also covers the
/// global queue's inline syncs, which run outside any of the engine's tasks.
final class ActorThreadContext {
    private let entered = EnteredStackBox<ActorQueueCore>()

    /// This record's thread-local slot: a literal, so reading it needs no lazy initialisation (see `ThreadLocal`).
    private static let slotIndex: Int32 = 2
    private static let slot = ThreadLocal(index: slotIndex) { ActorThreadContext() }

    @inline(__always) static var current: ActorThreadContext { borrowed.takeUnretainedValue() }

    /// The calling thread's context, borrowed: valid while the thread runs, with no retain or release.
    @inline(__always)
    static var borrowed: Unmanaged<ActorThreadContext> {
        threadSlotObject(slotIndex) ?? Unmanaged.passUnretained(slot.current)
    }

    @inline(__always) func drains(_ queue: ActorQueueCore) -> Bool { entered.stack.pointee.contains(queue) }
    @inline(__always) var innermost: ActorQueueCore? { entered.stack.pointee.last }
    @inline(__always) func push(_ queue: ActorQueueCore) { entered.stack.pointee.push(queue) }
    @inline(__always) func pop() { entered.stack.pointee.pop() }

    /// Runs `body` with `queue` entered: a block of one queue, without an array for the chain.
    @inline(__always)
    func within(_ queue: ActorQueueCore, _ body: () -> Void) {
        entered.stack.pointee.push(queue)
        body()
        entered.stack.pointee.pop()
    }

    /// Runs `body` with `chain` entered, outermost first.
    func within(_ chain: [ActorQueueCore], _ body: () -> Void) {
        let depth = entered.stack.pointee.count
        for queue in chain { entered.stack.pointee.push(queue) }
        body()
        entered.stack.pointee.pop(to: depth)
    }
}
