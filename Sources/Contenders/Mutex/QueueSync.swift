/// sync and barrier sync.
///
/// Fast path, as libdispatch does it: when the queue and every link of its target chain can be taken at once
/// (serial: idle and empty; concurrent: no barrier running or pending), the caller takes them, runs the block on its
/// own thread, and gives them back. Otherwise the caller parks a `MutexSyncRequest` in the queue and waits on a
/// condition variable; the drainer that reaches it runs the block inside the chain and wakes the caller.
extension MutexQueue {
    public func sync<T>(_ block: () throws -> T) rethrows -> T {
        try runSync(block, barrier: false, rescue: { throw $0 })
    }

    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T {
        try runSync(block, barrier: true, rescue: { throw $0 })
    }

    /// `rescue` rethrows the block's error on the caller's side: the block may have run on a drainer's thread.
    private func runSync<T>(_ block: () throws -> T, barrier: Bool, rescue: (any Error) throws -> T) rethrows -> T {
        let exclusive = barrier || kind == .serial
        let context = MutexThreadContext.current
        if exclusive && context.drains(self) {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
        if let chain = acquireChain(barrier: barrier) {
            defer { release(chain) }
            let depth = context.entered.count
            context.entered.append(contentsOf: chain.reversed().map(\.queue))
            defer { context.entered.removeSubrange(depth...) }
            return try block()
        }
        var value: T?
        var failure: (any Error)?
        withoutActuallyEscaping(block) { block in
            let request = MutexSyncRequest(isBarrier: barrier) {
                do { value = try block() } catch { failure = error }
            }
            enqueue(.sync(request))
            request.waitUntilDone()
        }
        if let failure { return try rescue(failure) }
        return value!
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
        for link in links.reversed() { link.queue.give(alone: link.alone) }
    }

    /// Takes this queue for a caller running inline and reports its target (stable while the queue is held: a
    /// change then waits in the FIFO). False when the queue cannot be taken now.
    private func tryTake(alone: Bool, target above: inout MutexQueue?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard isRunnable else { return false }
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
