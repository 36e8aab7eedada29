import ArenaContract
import CLinux
import Glibc
import Synchronization

/// A sync caller's block parked in a queue until a drainer reaches it: the drainer runs the block inside the queue
/// (and its target chain) and lets the caller go (`LockFreeCompletion`: the caller looks before it sleeps, so a sync
/// behind a short backlog, an async write then a sync read, costs no futex sleep and wake-up).
final class LockFreeSyncWaiter: @unchecked Sendable {
    let isBarrier: Bool
    /// The caller's block, borrowed (`withoutActuallyEscaping`); dropped before the caller is let go, since the
    /// drainer may still hold this waiter when the caller returns.
    private var body: (() -> Void)?
    private let completion = LockFreeCompletion(yieldsHalfway: true)

    init(isBarrier: Bool, body: @escaping () -> Void) {
        self.isBarrier = isBarrier
        self.body = body
    }

    /// Runs the caller's block (on a drainer) and lets the caller go.
    func run() {
        body?()
        body = nil
        completion.finish()
    }

    /// Returns once a drainer ran the caller's block.
    func waitUntilDone() { completion.wait() }
}

/// sync and barrier sync. Fast path, as libdispatch: when the queue and every link of its target chain can be taken
/// with one CAS each (serial: idle, nothing reserved; concurrent: no barrier running, waiting or pending), the caller
/// takes them, runs the block on its own thread and gives them back. Otherwise it parks a `LockFreeSyncWaiter` in
/// the queue's FIFO and waits on a futex.
///
/// The generic entry points are `@inlinable` shells, specialised where they are called; the work is in the
/// non-generic `enterSync`, `leaveSync` and `waitInQueue`.
extension LockFreeQueue {
    @inlinable
    public func sync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: false, block) }

    /// On the global queue a barrier sync is a plain one, as in libdispatch.
    @inlinable
    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: !isGlobal, block) }

    /// Both: inline when the chain can be taken, else through the FIFO.
    @inlinable
    func sync<T>(barrier: Bool, _ block: () throws -> T) rethrows -> T {
        let held = enterSync(barrier: barrier)
        if held.taken {
            defer { leaveSync(held) }
            return try block()
        }
        return try relaySync(block, through: { waitInQueue($0, barrier: barrier) }, rescue: { throw $0 })
    }

    /// What a caller running inline holds: this queue (taken alone or not), the links above it, and the depth of
    /// its entered stack before.
    @usableFromInline
    struct HeldChain {
        @usableFromInline let taken: Bool
        let alone: Bool
        let above: [Link]?
        let depth: Int
        /// The caller's thread context, unretained: the caller's thread keeps it alive.
        let context: Unmanaged<LockFreeThreadContext>
    }

    /// The fast path: takes the queue (a sync onto the caller's own queue is diagnosed when that fails:
    /// `takeContended`) and its target chain (one CAS per link), and enters them; `taken` is false when any link is
    /// busy.
    @usableFromInline
    func enterSync(barrier: Bool) -> HeldChain {
        // Borrowed, not retained: the calling thread keeps its context alive (a retain and release saved per sync).
        let held = LockFreeThreadContext.borrowed
        return held._withUnsafeGuaranteedRef { context in enterSync(barrier: barrier, context, held) }
    }

    @inline(__always)
    private func enterSync(
        barrier: Bool, _ context: LockFreeThreadContext,
        _ held: Unmanaged<LockFreeThreadContext>
    ) -> HeldChain {
        let alone = barrier || kind == .serial
        let depth = context.depth
        guard take(alone: alone) || takeContended(alone: alone, barrier: barrier, context) else {
            return HeldChain(taken: false, alone: alone, above: nil, depth: depth, context: held)
        }
        // Held: `target` is stable now.
        guard let first = isGlobal ? nil : target else {  // the common case, one link
            context.push(self)
            return HeldChain(taken: true, alone: alone, above: nil, depth: depth, context: held)
        }
        guard let chain = Self.takeChain(from: first) else {
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
        if let above = held.above {
            for link in above { link.queue.give(alone: link.alone) }
        }
    }

    /// The slow path: parks the block in the FIFO; a drainer runs it and wakes the caller.
    @usableFromInline
    func waitInQueue(_ body: () -> Void, barrier: Bool) {
        withoutActuallyEscaping(body) { body in
            let waiter = LockFreeSyncWaiter(isBarrier: barrier, body: body)
            enqueue(LockFreeJob(.sync(waiter)))
            waiter.waitUntilDone()
        }
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
        if isMain { return false }  // the main queue's blocks run on its loop's thread only
        if kind == .concurrent && !alone {
            guard isRunnable(state.atomic.pointee.load(ordering: .relaxed)) else { return false }
            var current = width.atomic.pointee.load(ordering: .relaxed)
            while true {
                guard current & ~Self.runningMask == 0 else { return false }  // a barrier runs, waits or is pending
                let (won, seen) = width.atomic.pointee.compareExchange(
                    expected: current, desired: current &+ 1, ordering: .acquiringAndReleasing)
                if won {
                    startedOne(current)
                    return true
                }
                current = seen
            }
        }
        let current = state.atomic.pointee.load(ordering: .relaxed)
        guard Self.count(current) == 0 && current & Self.scheduled == 0 && isRunnable(current),
            state.atomic.pointee.compareExchange(expected: current, desired: current | Self.scheduled, ordering: .acquiringAndReleasing)
                .exchanged
        else { return false }
        if kind == .serial { return true }
        // A concurrent barrier also needs the width to itself.
        if width.atomic.pointee.compareExchange(expected: 0, desired: Self.barrierRunning, ordering: .acquiringAndReleasing).exchanged {
            return true
        }
        giveScheduled()
        return false
    }

    /// Waits for a held serial queue like a lock's waiter, rather than parking in its FIFO. GCD orders a sync after
    /// the blocks submitted before it, not against other sync callers, so while the queue is held with nothing
    /// reserved (by another caller running its block inline, or a drainer about to let go) the caller may wait for it
    /// and then take it. Parking in the FIFO would cost a drainer hop on the pool and a wake-up per section, and would
    /// send every later caller through the FIFO behind it.
    ///
    /// The wait spins, then sleeps, as a futex mutex's waiter does (Drepper, "Futexes Are Tricky", 2011, mutex type
    /// 3, as glibc's). The spin is a test-and-test-and-set with exponential backoff (Anderson, IEEE TPDS 1(1), 1990):
    /// each look at the state word is followed by twice the pauses of the last, so the holder keeps the word's line in
    /// its own cache and runs section after section (a waiter that looked every pause pulled the line away on every
    /// look). It lasts about what sleeping and being woken cost, the competitive rule of Karlin et al. ("Empirical
    /// studies of competitive spinning for a shared-memory multiprocessor", SOSP 1991): `syncLooks`. Then the caller
    /// sets `syncWaiting` beside `scheduled` and sleeps on the state word's upper half, which holds both; whoever clears
    /// `scheduled` clears the bit with it and wakes one sleeper (`giveScheduled`, `relinquish`). The futex compares
    /// the upper half as it sleeps, so a give between the bit's CAS and the sleep is never missed. A caller that slept
    /// takes the queue with the bit set again (others may sleep still), so its own give wakes the next; one that
    /// leaves for the FIFO instead (a job was reserved, or the queue suspended) passes its wake-up on. The protocol is
    /// models/sync-sleep.pml.
    ///
    /// A sync onto a queue the caller's thread is draining is diagnosed here, before any wait: such a queue is always
    /// held (`scheduled`, or a running slot against a barrier), so `take` failed, and the uncontended path pays
    /// nothing for the diagnosis.
    @inline(never)
    func takeContended(alone: Bool, barrier: Bool, _ context: LockFreeThreadContext) -> Bool {
        if alone && context.drains(self) {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
        guard alone && kind == .serial && !isGlobal && !isMain else { return false }
        var pauses = 1
        var slept = false
        var looks = 0
        var current = state.atomic.pointee.load(ordering: .relaxed)
        while true {
            if Self.count(current) > 0 || !isRunnable(current) {
                if slept { wakeSyncWaiter() }  // the wake-up this caller took goes to the next sleeper
                return false
            }
            if current & Self.scheduled == 0 {
                let desired = current | Self.scheduled | (slept ? Self.syncWaiting : 0)
                let (won, seen) = state.atomic.pointee.compareExchange(
                    expected: current, desired: desired, ordering: .acquiringAndReleasing)
                if won { return true }
                current = seen
                continue
            }
            if looks < Self.syncLooks {
                looks += 1
                for _ in 0..<pauses { clinux_cpu_relax() }
                pauses &*= 2
            } else {
                if current & Self.syncWaiting == 0 {
                    let (won, seen) = state.atomic.pointee.compareExchange(
                        expected: current, desired: current | Self.syncWaiting, ordering: .relaxed)
                    if !won {
                        current = seen
                        continue
                    }
                    current |= Self.syncWaiting
                }
                sleepForGive(expecting: current)
                slept = true
            }
            current = state.atomic.pointee.load(ordering: .relaxed)
        }
    }

    /// How many times `takeContended` looks at the state word, backing off, before the caller sleeps: 1 + 2 + … + 512
    /// pauses, about 26 µs on the 2-core VM (a pause took 25 ns), where a futex sleep and its wake-up took 25 µs (a
    /// ping-pong of two threads through a futex word, 50 µs a round trip). Measured there, contended `sync` at 2 to 8
    /// threads: 8 to 14 looks ran alike, 5 and fewer slower (a waiter sleeping early is woken with a system call on
    /// the holder's path).
    static let syncLooks = 10

    /// The upper half of the state word (`scheduled`, `inactive`, `syncWaiting`, the suspend count), where sync
    /// callers sleep.
    @inline(__always)
    private var stateUpperHalf: UnsafeMutablePointer<UInt32> {
        #if _endian(little)
            UnsafeMutableRawPointer(state.atomic).advanced(by: 4).assumingMemoryBound(to: UInt32.self)
        #else
            UnsafeMutableRawPointer(state.atomic).assumingMemoryBound(to: UInt32.self)
        #endif
    }

    /// Sleeps while the state word's upper half is `expected`'s: until a give wakes it, or at once if it changed.
    private func sleepForGive(expecting expected: UInt64) {
        _ = clinux_futex_wait(stateUpperHalf, UInt32(truncatingIfNeeded: expected >> 32), UInt64.max)
    }

    /// Wakes one sync caller sleeping for the queue; the caller cleared `syncWaiting` (or took a wake-up it passes on).
    @inline(never)
    func wakeSyncWaiter() { _ = clinux_futex_wake(stateUpperHalf, 1) }

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

    /// A sync caller gives `scheduled` back: cleared when nothing runnable is reserved (`clearScheduled`); otherwise
    /// kept, and the queue scheduled for the jobs reserved while the caller held it.
    @inline(__always)
    private func giveScheduled() {
        if !clearScheduled() { schedule() }
    }
}
