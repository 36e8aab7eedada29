import ArenaContract
import Synchronization

/// Suspension, activation, target changes and specific values.
extension LockFreeQueue {
    public func suspend() {
        state.atomic.pointee.add(Self.suspendOne, ordering: .relaxed)
    }

    public func resume() {
        var current = state.atomic.pointee.load(ordering: .relaxed)
        while true {
            guard current >> 40 > 0 else { misuse("over-resume: resume() without a matching suspend() on queue '\(label)'") }
            let (won, seen) = update(current, to: current &- Self.suspendOne)
            if won { return }
            current = seen
        }
    }

    public func activate() {
        var current = state.atomic.pointee.load(ordering: .relaxed)
        while current & Self.inactiveBit != 0 {
            let (won, seen) = update(current, to: current & ~Self.inactiveBit)
            if won { return }
            current = seen
        }
    }

    /// Stores `desired`, taking `scheduled` (and scheduling) when that makes reserved jobs runnable.
    private func update(_ current: UInt64, to desired: UInt64) -> (Bool, UInt64) {
        let mustSchedule = Self.count(desired) > 0 && desired & Self.scheduled == 0 && isRunnable(desired)
        let (won, seen) = state.atomic.pointee.compareExchange(
            expected: current, desired: desired | (mustSchedule ? Self.scheduled : 0), ordering: .acquiringAndReleasing)
        if won && mustSchedule { schedule() }
        return (won, seen)
    }

    /// Inactive: the target changes now (nothing can run yet). Active: a `.retarget` job goes into the FIFO, so the
    /// change lands between the blocks submitted before and after it (on a concurrent queue, alone, like a barrier).
    public func setTarget(_ newTarget: LockFreeQueue) {
        if isGlobal { misuse("setTarget on the global queue '\(label)'") }
        if newTarget === self { misuse("setTarget would make a cycle: queue '\(label)' would target itself") }
        if state.atomic.pointee.load(ordering: .acquiring) & Self.inactiveBit != 0 {
            target = newTarget
            return
        }
        enqueue(LockFreeJob(.retarget(newTarget)))
    }

    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        attachments.set(key, value)
    }

    public func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        attachments.get(key)
    }

    /// The class of this queue or of the nearest queue above it that has one; called by a thread inside this queue,
    /// which keeps the chain's targets from changing.
    var inheritedQoS: QoSClass? {
        var link: LockFreeQueue? = self
        while let queue = link {
            if let qos = queue.qos { return qos }
            link = queue.target
        }
        return nil
    }

    /// The value for `key` on this queue or the nearest queue above it; called by a thread inside this queue, which
    /// keeps the chain's targets from changing. The value is copied under the owning queue's lock, and nothing here
    /// makes a `Value?` but the result (see `LockFreeQueueAttachments.lockIfPresent`).
    func inheritedSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        Self.inheritedSpecific(key, from: Unmanaged.passUnretained(self))
    }

    /// `inheritedSpecific` from a queue the caller holds unretained: no retain or release along the chain.
    static func inheritedSpecific<Value>(_ key: SpecificKey<Value>, from start: Unmanaged<LockFreeQueue>) -> Value? {
        let id = ObjectIdentifier(key)
        unowned(unsafe) var queue = start.takeUnretainedValue()
        while true {
            if let value = queue.attachments.lockIfPresent(id) {
                defer { queue.attachments.unlock() }
                return value.assumingMemoryBound(to: Value.self).pointee
            }
            guard let next = queue.target else { return nil }
            queue = next
        }
    }

    public var context: QueueContext? {
        get { attachments.currentContext }
        set { attachments.set(context: newValue) }
    }

    public func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) { attachments.set(finalizer: finalizer) }
}
