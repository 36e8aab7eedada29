import ArenaContract

/// What a queue carries beside its jobs: specific values, the context and the finalizer. A cold path: set rarely,
/// read by `getSpecific`/`currentSpecific` and once when the queue goes, never by a queue's submit or drain path.
///
/// Locks: one pthread mutex per queue. What a set replaces is released after the lock: a specific value's or a
/// context's deinit may use the queue.
final class LockFreeQueueAttachments: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var values: [ObjectIdentifier: Any] = [:]
    private var context: QueueContext?
    private var finalizer: (@Sendable (QueueContext) -> Void)?

    func set(_ key: ObjectIdentifier, _ value: Any?) {
        _ = lock.withLock { () -> Any? in
            guard let value else { return values.removeValue(forKey: key) }
            return values.updateValue(value, forKey: key)
        }
    }

    func get(_ key: ObjectIdentifier) -> Any? { lock.withLock { values[key] } }

    var currentContext: QueueContext? { lock.withLock { context } }

    func set(context newContext: QueueContext?) {
        var replaced = newContext
        lock.withLock { swap(&context, &replaced) }
    }

    func set(finalizer newFinalizer: (@Sendable (QueueContext) -> Void)?) { lock.withLock { finalizer = newFinalizer } }

    /// The finalizer call due when the queue goes: only with both a context and a finalizer.
    var finalization: (@Sendable () -> Void)? {
        lock.withLock {
            guard let context, let finalizer else { return nil }
            return { finalizer(context) }
        }
    }
}
