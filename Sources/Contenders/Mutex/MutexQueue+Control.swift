import ArenaContract

/// Suspension, activation, target changes and specific values.
extension MutexQueue {
    public func suspend() {
        lock.withLock { suspensions += 1 }
    }

    public func resume() {
        lock.lock()
        guard suspensions > 0 else {
            lock.unlock()
            misuse("over-resume: resume() without a matching suspend() on queue '\(label)'")
        }
        suspensions -= 1
        scheduleAndUnlock()
    }

    public func activate() {
        lock.lock()
        guard inactive else { return lock.unlock() }
        inactive = false
        scheduleAndUnlock()
    }

    /// Inactive or idle: the target changes now. Busy: a `.retarget` item goes into the FIFO, so the change lands
    /// between the blocks submitted before and after it (on a concurrent queue it waits, like a barrier, for the
    /// running blocks).
    public func setTarget(_ newTarget: MutexQueue) {
        if isGlobal { misuse("setTarget on the global queue '\(label)'") }
        var link: MutexQueue? = newTarget
        while let queue = link {
            if queue === self { misuse("setTarget would make a cycle: queue '\(label)' would target itself") }
            link = queue.lock.withLock { queue.target }
        }
        lock.lock()
        let idle = kind == .serial ? !busy && items.isEmpty : running == 0 && !barrierRunning && items.isEmpty
        if inactive || idle {
            target = newTarget
            generation &+= 1
            requests = 0
            return lock.unlock()
        }
        items.append(.retarget(newTarget))
        pendingBarriers += 1
        scheduleAndUnlock()
    }

    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        // The old value is returned and released after the lock: its destructor may use this queue.
        _ = lock.withLock { () -> Any? in
            guard let value else { return specifics.removeValue(forKey: ObjectIdentifier(key)) }
            return specifics.updateValue(value, forKey: ObjectIdentifier(key))
        }
    }

    public func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        lock.withLock { specifics[ObjectIdentifier(key)] } as? Value
    }

    public var context: QueueContext? {
        get { lock.withLock { contextObject } }
        set {
            var replaced = newValue
            lock.withLock { swap(&contextObject, &replaced) }
            // `replaced`, the old context, is released here, after the lock.
        }
    }

    public func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) {
        lock.withLock { self.finalizer = finalizer }
    }

    /// The class of this queue or of the nearest queue above it that has one.
    var inheritedQoS: QoSClass? {
        var link: MutexQueue? = self
        while let queue = link {
            if let qos = queue.qos { return qos }
            link = queue.lock.withLock { queue.target }
        }
        return nil
    }

    /// The value for `key` on this queue or the nearest queue above it.
    func inheritedSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        var link: MutexQueue? = self
        while let queue = link {
            let (value, above) = queue.lock.withLock { (queue.specifics[ObjectIdentifier(key)], queue.target) }
            if let value { return value as? Value }
            link = above
        }
        return nil
    }
}
