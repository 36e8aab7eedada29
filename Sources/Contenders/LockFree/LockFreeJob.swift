import ArenaContract
import Synchronization

/// A unit of work, and the intrusive node that carries it through queues: an MPSC queue of a `LockFreeQueue`, a
/// worker's run queue, or the pool's injection queue.
///
/// Ownership: a job travels as an `Unmanaged` +1 reference. Whoever pushes it gives that reference to the
/// container; whoever pops it takes it back. A job is in at most one container at a time (for a queue's doorbell,
/// the queue's scheduled bit guarantees it), so `next` and `work` are only written by the job's current owner.
final class LockFreeJob: @unchecked Sendable {
    /// What a submitted job runs: a block, or a Swift job carried as it is (no closure around it). The two share
    /// the closure's words: `Work` stays 32 bytes and a job 64, as with blocks alone.
    enum Body {
        case block(@Sendable () -> Void)
        case swift(LockFreeSwiftJob)

        @inline(__always)
        func run() {
            switch self {
            case .block(let block): block()
            case .swift(let job): job.run()
            }
        }
    }

    enum Work {
        /// A block or a Swift job submitted with async.
        case block(Body)
        /// A barrier block (a plain block on a serial queue).
        case barrier(@Sendable () -> Void)
        /// A sync caller waiting for its turn: a drainer runs its block and wakes it.
        case sync(LockFreeSyncWaiter)
        /// A queue's doorbell: drain it (serial) or run its dispatcher (concurrent). Unowned: a scheduled queue is
        /// kept alive by the reference its scheduler took (see `LockFreeQueue`).
        case drain(Unmanaged<LockFreeQueue>)
        /// A block of a concurrent queue, fanned out to run as part of that queue's target. Unretained: a concurrent
        /// queue with blocks running keeps itself alive (`LockFreeQueue.width`), and a global queue's job holds a
        /// retain taken for it (`LockFreeQueue.async`).
        case fanned(Unmanaged<LockFreeQueue>, Body)
        /// An active queue's target changes here, between the blocks before and after.
        case retarget(LockFreeQueue?)
        /// A plain task for the pool (apply's helpers).
        case task(@Sendable () -> Void)
        /// The stub node of an MPSC queue; never run.
        case stub
    }

    /// Written by the job's owner only (see above): unchecked, as the runtime's exclusivity check costs about 50
    /// instructions an access (callgrind) on the path of every block.
    @exclusivity(unchecked) var work: Work
    /// The group a block was submitted in (`LockFreeGroup.async(on:)`): whoever runs the block leaves it after. Kept
    /// here rather than in a closure around the block, which would be an allocation per block.
    /// Unretained: a group with work outstanding keeps itself alive (`LockFreeGroup`).
    @exclusivity(unchecked) var group: Unmanaged<LockFreeGroup>?
    /// The MPSC link.
    let next = Atomic<UnsafeMutableRawPointer?>(nil)

    init(_ work: Work, in group: Unmanaged<LockFreeGroup>? = nil) {
        self.work = work
        self.group = group
    }

    /// A job for `work`, reused from the calling thread's spares when it has one (`LockFreeJobSpares`).
    @inline(__always)
    static func make(_ work: consuming Work, in group: Unmanaged<LockFreeGroup>? = nil) -> LockFreeJob {
        let spare = LockFreeThreadContext.borrowed._withUnsafeGuaranteedRef { $0.spares.reuse() }
        guard let job = spare else { return LockFreeJob(work, in: group) }
        job.work = work
        job.group = group
        return job
    }

    /// Whether the job must run alone on a concurrent queue.
    var isBarrier: Bool {
        switch work {
        case .barrier, .retarget: true
        case .sync(let waiter): waiter.isBarrier
        default: false
        }
    }

    /// Gives a +1 reference away as a raw pointer.
    @inline(__always) func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    /// Takes back a +1 reference given away with `retainedPointer()`.
    @inline(__always) static func take(_ pointer: UnsafeMutableRawPointer) -> LockFreeJob {
        Unmanaged<LockFreeJob>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Looks at a job without taking its reference.
    @inline(__always) static func peek(_ pointer: UnsafeMutableRawPointer) -> LockFreeJob {
        Unmanaged<LockFreeJob>.fromOpaque(pointer).takeUnretainedValue()
    }
}
