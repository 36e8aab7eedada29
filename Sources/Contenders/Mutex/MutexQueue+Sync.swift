import ArenaContract

/// sync and barrier sync.
///
/// Fast path, as libdispatch does it: when the queue and every link of its target chain can be taken at once
/// (serial: idle and empty; concurrent: no barrier running or pending), the caller takes them, runs the block on its
/// own thread, and gives them back. Otherwise the caller parks a `MutexSyncRequest` in the queue and waits on a
/// condition variable; the drainer that reaches it runs the block inside the chain and wakes the caller.
extension MutexQueue {
    @inlinable
    public func sync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: false, block) }

    /// A barrier sync, except on the global queue, which has none (there it is a plain `sync`).
    @inlinable
    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: !isGlobal, block) }

    /// Both: inline when the chain can be taken, else through the FIFO. Inlined, `barrier` is a constant again.
    @inlinable
    func sync<T>(barrier: Bool, _ block: () throws -> T) rethrows -> T {
        let held = enterSync(barrier: barrier)
        if held.taken {
            defer { leaveSync(held) }
            return try block()
        }
        return try relaySync(block, through: { waitInQueue($0, barrier: barrier) }, rescue: { throw $0 })
    }

    /// What a caller running inline holds: the links it took, innermost first, and its entered depth before.
    @usableFromInline
    struct HeldChain {
        @usableFromInline let taken: Bool
        let links: [Link]
        let depth: Int
    }

    /// The fast path: diagnoses a sync onto the caller's own queue, then takes the queue and its target chain and
    /// enters them; `taken` is false when any link is busy.
    @usableFromInline
    func enterSync(barrier: Bool) -> HeldChain {
        let context = MutexThreadContext.current
        if (barrier || kind == .serial) && context.drains(self) {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
        let depth = context.depth
        guard let chain = acquireChain(barrier: barrier) else { return HeldChain(taken: false, links: [], depth: depth) }
        for link in chain.reversed() { context.push(link.queue) }
        return HeldChain(taken: true, links: chain, depth: depth)
    }

    /// Leaves and gives back what `enterSync` took, innermost first.
    @usableFromInline
    func leaveSync(_ held: HeldChain) {
        MutexThreadContext.current.pop(to: held.depth)
        for link in held.links { link.queue.give(alone: link.alone) }
    }

    /// The slow path: parks the block in the FIFO; a drainer runs it and wakes the caller.
    @usableFromInline
    func waitInQueue(_ body: () -> Void, barrier: Bool) {
        withoutActuallyEscaping(body) { body in
            let request = MutexSyncRequest(isBarrier: barrier, body: body)
            enqueue(.sync(request))
            request.waitUntilDone()
        }
    }

    // MARK: Taking the chain

    /// One link taken for a sync: the queue, and whether it was taken alone (serial, or a barrier).
    struct Link {
        let queue: MutexQueue
        let alone: Bool
    }

    /// Takes this queue and every target above it, or nothing.
    private func acquireChain(barrier: Bool) -> [Link]? {
        var taken: [Link] = []
        var next: MutexQueue? = self
        var alone = barrier || kind == .serial
        while let queue = next {
            guard queue.tryTake(alone: alone, target: &next) else {
                release(taken)
                return nil
            }
            taken.append(Link(queue: queue, alone: alone))
            alone = next?.kind == .serial
        }
        return taken
    }

    private func release(_ links: [Link]) {
        for link in links { link.queue.give(alone: link.alone) }
    }

    /// Takes this queue for a caller running inline and reports its target (stable while the queue is held: a
    /// change then waits in the FIFO). False when the queue cannot be taken now.
    private func tryTake(alone: Bool, target above: inout MutexQueue?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard isRunnable && !isMain else { return false }  // the main queue's blocks run on its loop's thread only
        switch (kind, alone) {
        case (.serial, _):
            guard !busy && items.isEmpty else { return false }
            busy = true
        case (.concurrent, true):
            guard !barrierRunning && running == 0 && items.isEmpty && requests == 0 else { return false }
            barrierRunning = true
        case (.concurrent, false):
            guard !barrierRunning && pendingBarriers == 0 else { return false }
            running += 1
        }
        above = target
        return true
    }

    /// Gives back what `tryTake` took, and schedules whatever arrived meanwhile.
    private func give(alone: Bool) {
        lock.lock()
        switch (kind, alone) {
        case (.serial, _): busy = false
        case (.concurrent, true): barrierRunning = false
        case (.concurrent, false): running -= 1
        }
        scheduleAndUnlock()
    }
}
