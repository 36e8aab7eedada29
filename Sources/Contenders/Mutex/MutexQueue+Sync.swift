import ArenaContract

/// sync and barrier sync.
///
/// Fast path, as libdispatch does it: when the queue and every link of its target chain can be taken at once
/// (serial: idle and empty; concurrent: no barrier running or pending), the caller takes them, runs the block on its
/// own thread, and gives them back. A serial queue held with nothing queued (by another sync caller, or a drainer
/// about to let go) is waited for as a lock is (`waitForGive`). Otherwise the caller parks a `MutexSyncRequest` in the
/// queue and waits on a condition variable; the drainer that reaches it runs the block inside the chain and wakes the
/// caller.
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

    /// What a caller running inline holds: this queue (taken alone or not), the links above it when it has a target,
    /// and its entered depth before.
    @usableFromInline
    struct HeldChain {
        @usableFromInline let taken: Bool
        let alone: Bool
        let above: [Link]?
        let depth: Int
        /// The caller's thread context, unretained: the caller's thread keeps it alive.
        let context: Unmanaged<MutexThreadContext>
    }

    /// The fast path: takes the queue (waiting for it as for a lock when another sync caller holds it, and diagnosing
    /// a sync onto the caller's own queue first: `waitForGive`) and its target chain, and enters them; `taken` is
    /// false when any link is busy. A queue without a target, the common case, costs no array.
    @usableFromInline
    func enterSync(barrier: Bool) -> HeldChain {
        let context = MutexThreadContext.current
        let alone = barrier || kind == .serial
        let depth = context.depth
        let held = Unmanaged.passUnretained(context)
        var first: MutexQueue?
        guard tryTake(alone: alone, target: &first) || waitForGive(target: &first, barrier: barrier, context) else {
            return HeldChain(taken: false, alone: alone, above: nil, depth: depth, context: held)
        }
        guard let first else {
            context.push(self)
            return HeldChain(taken: true, alone: alone, above: nil, depth: depth, context: held)
        }
        guard let chain = Self.acquireChain(from: first) else {
            give(alone: alone)
            return HeldChain(taken: false, alone: alone, above: nil, depth: depth, context: held)
        }
        for link in chain.reversed() { context.push(link.queue) }
        context.push(self)
        return HeldChain(taken: true, alone: alone, above: chain, depth: depth, context: held)
    }

    /// Leaves and gives back what `enterSync` took, innermost first.
    @usableFromInline
    func leaveSync(_ held: HeldChain) {
        held.context._withUnsafeGuaranteedRef { $0.pop(to: held.depth) }
        give(alone: held.alone)
        if let above = held.above { Self.release(above) }
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

    /// Takes `first` and every target above it, or nothing: the links above a queue the caller took.
    private static func acquireChain(from first: MutexQueue) -> [Link]? {
        var taken: [Link] = []
        var next: MutexQueue? = first
        var alone = first.kind == .serial
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

    private static func release(_ links: [Link]) {
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

    /// Waits for a held serial queue as a lock's waiter does, rather than parking in its FIFO, and takes it: GCD
    /// orders a sync after the blocks submitted before it, not against other sync callers, so while the queue is held
    /// with nothing queued the caller may wait for whoever holds it and then take it. Parking in the FIFO would cost a
    /// drainer's turn on the pool and a wake-up per section, and send every later caller through the FIFO behind it.
    /// False, for the FIFO, when the queue is not held that way, or when the caller wakes to find blocks queued (it
    /// goes behind them, so a stream of async blocks cannot keep it waiting) or the queue suspended; a waiter that
    /// leaves passes the wake-up it took on to the next. The giver signals one waiter when `busy` clears
    /// (`clearBusy`), and may take the queue again first, as a glibc mutex's unlocker may. Counted as blocking
    /// (`MutexThreadContext.blocking`): a pool worker waiting here lets the pool start another, as in the FIFO. Only for
    /// the first link of a chain, holding nothing else.
    ///
    /// A sync onto a queue the caller's thread is draining is diagnosed here, before any wait: such a queue is always
    /// held (`busy`, or a running block against a barrier), so `tryTake` failed, and the uncontended path pays nothing
    /// for the diagnosis.
    private func waitForGive(target above: inout MutexQueue?, barrier: Bool, _ context: MutexThreadContext) -> Bool {
        if (barrier || kind == .serial) && context.drains(self) {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
        guard kind == .serial && !isGlobal && !isMain && isHeldWithNothingQueued else { return false }
        return MutexThreadContext.blocking {
            lock.lock()
            defer { lock.unlock() }
            guard busy && items.isEmpty && isRunnable else { return false }
            let given = syncGiven ?? PthreadCondition()
            syncGiven = given
            syncWaiters += 1
            while busy && items.isEmpty && isRunnable {
                given.wait(lock)
                syncSignalled = false
            }
            syncWaiters -= 1
            guard !busy && items.isEmpty && isRunnable else {
                signalSyncWaiter()
                return false
            }
            busy = true
            above = target
            return true
        }
    }

    /// Whether the queue is held with nothing queued and may run blocks: a look under the lock before a wait is
    /// counted as blocking (which may start a pool thread), so a caller bound for the FIFO does not count twice.
    private var isHeldWithNothingQueued: Bool {
        lock.lock()
        defer { lock.unlock() }
        return busy && items.isEmpty && isRunnable
    }

    /// Gives back what `tryTake` took, and schedules whatever arrived meanwhile.
    private func give(alone: Bool) {
        lock.lock()
        switch (kind, alone) {
        case (.serial, _): clearBusy()
        case (.concurrent, true): barrierRunning = false
        case (.concurrent, false): running -= 1
        }
        scheduleAndUnlock()
    }

    /// Clears `busy` (lock held) and signals a sync caller waiting for the queue, if one is (`waitForGive`).
    func clearBusy() {
        busy = false
        signalSyncWaiter()
    }

    /// Signals one sync caller waiting for the queue, unless none waits or one was signalled and has not woken yet
    /// (lock held): a holder that gives and takes the queue again many times while a waiter wakes up makes one
    /// system call, not one a section, as a glibc mutex's unlock wakes only while its word says a waiter sleeps.
    private func signalSyncWaiter() {
        guard syncWaiters > 0 && !syncSignalled else { return }
        syncSignalled = true
        syncGiven?.signal()
    }
}
