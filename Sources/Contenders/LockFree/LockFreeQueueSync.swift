import Synchronization

/// A sync caller's block parked in a queue until a drainer reaches it: the drainer runs the block inside the queue
/// (and its target chain) and wakes the caller, who waits on a futex.
final class LockFreeSyncWaiter: @unchecked Sendable {
    let isBarrier: Bool
    /// The caller's block, borrowed (`withoutActuallyEscaping`); dropped before the caller is woken, since the
    /// drainer may still hold this waiter when the caller returns.
    private var body: (() -> Void)?
    private let done = FutexWord(0)

    init(isBarrier: Bool, body: @escaping () -> Void) {
        self.isBarrier = isBarrier
        self.body = body
    }

    /// Runs the caller's block (on a drainer) and wakes the caller.
    func run() {
        body?()
        body = nil
        done.word.pointee.store(1, ordering: .releasing)
        done.wake()
    }

    /// Blocks the caller until a drainer ran its block.
    func waitUntilDone() {
        LockFreeThreadContext.blocking {
            while done.word.pointee.load(ordering: .acquiring) == 0 { done.wait(whileEqualTo: 0) }
        }
    }
}

/// sync and barrier sync. Fast path, as libdispatch: when the queue and every link of its target chain can be taken
/// with one CAS each (serial: idle, nothing reserved; concurrent: no barrier running, waiting or pending), the caller
/// takes them, runs the block on its own thread and gives them back. Otherwise it parks a `LockFreeSyncWaiter` in
/// the queue's FIFO and waits on a futex.
extension LockFreeQueue {
    public func sync<T>(_ block: () throws -> T) rethrows -> T {
        try runSync(block, barrier: false, rescue: { throw $0 })
    }

    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T {
        try runSync(block, barrier: !isGlobal, rescue: { throw $0 })
    }

    /// `rescue` rethrows the block's error on the caller's side: the block may have run on a drainer's thread.
    @inline(__always)
    private func runSync<T>(_ block: () throws -> T, barrier: Bool, rescue: (any Error) throws -> T) rethrows -> T {
        let context = LockFreeThreadContext.current
        if (barrier || kind == .serial) && context.drains(self) {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
        let alone = barrier || kind == .serial
        if take(alone: alone) {
            // Held: `target` is stable now.
            let above = isGlobal ? nil : target
            if above == nil {  // the common case, one link
                context.entered.append(self)
                defer {
                    context.entered.removeLast()
                    give(alone: alone)
                }
                return try block()
            }
            if let chain = Self.takeChain(from: above) {
                let depth = context.entered.count
                context.entered.append(contentsOf: chain.reversed().map(\.queue))
                context.entered.append(self)
                defer {
                    context.entered.removeSubrange(depth...)
                    give(alone: alone)
                    for link in chain { link.queue.give(alone: link.alone) }
                }
                return try block()
            }
            give(alone: alone)
        }
        var value: T?
        var failure: (any Error)?
        withoutActuallyEscaping(block) { block in
            let waiter = LockFreeSyncWaiter(isBarrier: barrier) {
                do { value = try block() } catch { failure = error }
            }
            enqueue(LockFreeJob(.sync(waiter)))
            waiter.waitUntilDone()
        }
        if let failure { return try rescue(failure) }
        return value!
    }

    struct Link {
        let queue: LockFreeQueue
        let alone: Bool
    }

    /// Takes `first` and every target above it, or nothing.
    private static func takeChain(from first: LockFreeQueue?) -> [Link]? {
        var taken: [Link] = []
        var next = first
        var alone = first?.kind == .serial
        while let queue = next {
            guard queue.take(alone: alone) else {
                for link in taken.reversed() { link.queue.give(alone: link.alone) }
                return nil
            }
            taken.append(Link(queue: queue, alone: alone))
            next = queue.isGlobal ? nil : queue.target  // stable while taken
            alone = next?.kind == .serial
        }
        return taken
    }

    /// Takes the queue for a caller running inline: `scheduled` (serial, or a barrier), or a running slot
    /// (concurrent). False when it cannot be taken now.
    @inline(__always)
    func take(alone: Bool) -> Bool {
        if isGlobal { return true }
        if kind == .concurrent && !alone {
            guard isRunnable(state.atomic.pointee.load(ordering: .relaxed)) else { return false }
            var current = width.atomic.pointee.load(ordering: .relaxed)
            while true {
                guard current & ~Self.runningMask == 0 else { return false }  // a barrier runs, waits or is pending
                let (won, seen) = width.atomic.pointee.compareExchange(expected: current, desired: current &+ 1, ordering: .acquiringAndReleasing)
                if won { return true }
                current = seen
            }
        }
        let current = state.atomic.pointee.load(ordering: .relaxed)
        guard Self.count(current) == 0 && current & Self.scheduled == 0 && isRunnable(current),
              state.atomic.pointee.compareExchange(expected: current, desired: current | Self.scheduled, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        if kind == .serial { return true }
        // A concurrent barrier also needs the width to itself.
        if width.atomic.pointee.compareExchange(expected: 0, desired: Self.barrierRunning, ordering: .acquiringAndReleasing).exchanged { return true }
        giveScheduled()
        return false
    }

    /// Gives back what `take` took, and schedules whatever was reserved meanwhile.
    @inline(__always)
    func give(alone: Bool) {
        if isGlobal { return }
        if kind == .concurrent {
            if !alone { return finishedOne() }
            width.atomic.pointee.bitwiseAnd(~Self.barrierRunning, ordering: .releasing)
        }
        giveScheduled()
    }

    /// A sync caller gives `scheduled` back: cleared when nothing runnable is reserved; otherwise kept, and the queue
    /// scheduled for the jobs reserved while the caller held it.
    @inline(__always)
    private func giveScheduled() {
        var current = state.atomic.pointee.load(ordering: .acquiring)
        while true {
            if Self.count(current) > 0 && isRunnable(current) { return schedule() }
            let (won, seen) = state.atomic.pointee.compareExchange(
                expected: current, desired: current & ~Self.scheduled, ordering: .acquiringAndReleasing)
            if won { return }
            current = seen
        }
    }
}
