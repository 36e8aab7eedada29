import ArenaContract

/// Misuse that must stop the process with a message, and disposal.
enum MisuseRules: RuleFamily {
    static let concept = Concept.misuse
    static let rules: [any ConformanceRule.Type] = [
        SyncOnOwnQueue.self, SyncOnOwnQueueThroughTarget.self, DisposalSuspendedQueue.self,
    ]
}

enum SyncOnOwnQueue: MisuseRule {
    static let id = "sync.on-own-queue"
    static let title =
        "sync onto the serial queue whose block the caller is running is misuse: a message naming the queue, never a silent hang."
    static let source =
        "dispatch_async(3), RECURSIVE LOCKS ('a recursive call to dispatch_sync() causes a simple deadlock'); libdispatch crashes 'dispatch_sync called on queue already owned by current thread'"
    static let objectLabel = "arena.misuse.sync-own-queue"
    static let keywords = ["sync"]

    static func trigger<E: Engine>(_ engine: E) {
        let queue = engine.makeQueue(label: objectLabel)
        queue.sync { queue.sync {} }
    }
}

enum SyncOnOwnQueueThroughTarget: MisuseRule {
    static let id = "sync.on-own-queue-through-target"
    static let title =
        "sync onto a serial queue from a block of a queue that targets it is misuse too: the caller already drains that queue."
    static let source =
        "queue.h, dispatch_set_target_queue (blocks of a queue run as part of its target); libdispatch checks the whole drain chain in __DISPATCH_WAIT_FOR_QUEUE__"
    static let objectLabel = "arena.misuse.sync-through-target"
    static let keywords = ["sync"]

    static func trigger<E: Engine>(_ engine: E) {
        let target = engine.makeQueue(label: objectLabel)
        let child = engine.makeQueue(
            label: "arena.misuse.sync-through-target.child", kind: .concurrent, startsInactive: false, target: target)
        child.sync { target.sync {} }
    }
}

enum DisposalSuspendedQueue: MisuseRule {
    static let id = "disposal.suspended-queue"
    static let title = "Releasing a suspended queue is misuse: the process stops with a message naming the queue."
    static let source =
        "dispatch_object(3): 'it is important to balance calls to dispatch_suspend() and dispatch_resume()'; libdispatch crashes 'Release of a suspended object' in _dispatch_queue_xref_dispose (measured SIGILL)"
    static let objectLabel = "arena.misuse.released-suspended"
    static let keywords = ["suspended"]

    static func trigger<E: Engine>(_ engine: E) {
        do {
            let queue = engine.makeQueue(label: objectLabel)
            queue.suspend()
        }
    }
}
