import ArenaContract

/// What a queue carries beside its jobs: specific values, the context and the finalizer. Set rarely, read by
/// `getSpecific`/`currentSpecific` (an executor's isolation check is one: actor workloads ask it on every call) and
/// once when the queue goes, never by a queue's submit or drain path.
///
/// A specific value sits in memory of its own typed by its key (`Entry`), beside the key it was set under, which the
/// entry keeps alive: the key's type fixes the value's, so a lookup is a scan of a few identities and a copy, with no
/// hashing, no existential, no dynamic cast and no generic metadata to find.
///
/// Locks: one pthread mutex per queue. What a set replaces is released after the lock: a specific value's or a
/// context's deinit may use the queue.
final class LockFreeQueueAttachments: @unchecked Sendable {
    private let lock = PthreadMutex()
    /// The specific values, a few per queue at most.
    @exclusivity(unchecked) private var specifics: ContiguousArray<Entry> = []
    private var context: QueueContext?
    private var finalizer: (@Sendable (QueueContext) -> Void)?

    /// Sets, replaces or (with nil) removes the value for `key`.
    func set<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        let id = ObjectIdentifier(key)
        let replaced = lock.withLock { () -> Entry? in
            let index = specifics.firstIndex { $0.id == id }
            guard let value else { return index.map { specifics.remove(at: $0) } }
            let entry = Entry(key, value)
            guard let index else {
                specifics.append(entry)
                return nil
            }
            defer { specifics[index] = entry }
            return specifics[index]
        }
        replaced?.free()
    }

    /// The value for `key` on this queue, nil if none: a copy made under the lock.
    func get<Value>(_ key: SpecificKey<Value>) -> Value? {
        guard let value = lockIfPresent(ObjectIdentifier(key)) else { return nil }
        defer { lock.unlock() }
        return value.assumingMemoryBound(to: Value.self).pointee
    }

    /// The value's memory for the key `id`, with the lock held, which the caller releases (`unlock`) once it has
    /// copied the value; nil, and the lock released, if this queue has no value for it. Not generic: a lookup in
    /// generic code that is not specialised looks up metadata for every `Optional<Value>` it makes, and this makes none.
    func lockIfPresent(_ id: ObjectIdentifier) -> UnsafeMutableRawPointer? {
        lock.lock()
        var index = 0
        while index < specifics.count {
            if specifics[index].id == id { return specifics[index].value }
            index &+= 1
        }
        lock.unlock()
        return nil
    }

    /// Releases the lock `lockIfPresent` left held.
    func unlock() { lock.unlock() }

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

    /// A specific value, with the key it was set under.
    struct Entry {
        /// The key's identity, what a lookup compares.
        let id: ObjectIdentifier
        /// The key, kept alive so that no other key takes its identity while the entry lasts.
        let key: AnyObject
        /// A `Value` of the key's type, in memory of its own: reading it needs no metadata but the reader's `Value`.
        let value: UnsafeMutableRawPointer
        /// Deinitialises and frees `value`.
        let release: (UnsafeMutableRawPointer) -> Void

        init<Value>(_ key: SpecificKey<Value>, _ value: Value) {
            id = ObjectIdentifier(key)
            self.key = key
            let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            storage.initialize(to: value)
            self.value = UnsafeMutableRawPointer(storage)
            release = { raw in
                let storage = raw.assumingMemoryBound(to: Value.self)
                storage.deinitialize(count: 1)
                storage.deallocate()
            }
        }

        /// Destroys the value; called once, outside the lock.
        func free() { release(value) }
    }

    deinit { for entry in specifics { entry.free() } }
}
