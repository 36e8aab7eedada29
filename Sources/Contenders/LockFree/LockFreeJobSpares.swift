import ArenaContract
import Synchronization

/// A thread's jobs kept for reuse, so that an `async` and the run of its block allocate nothing once warm.
///
/// Why: a job is made on the submitting thread and freed on the worker that ran it, so the submitter's malloc cache
/// never refills; callgrind counted about 400 of the 894 instructions of an `async` and its drain in malloc and free
/// (`_int_malloc` 128, `_int_free` 94). A reused job costs a pop from a thread-local list.
///
/// How: a thread gives finished jobs to its own `current` list and takes from it first (last in, first out: the job
/// just run is warm in its cache). A full `current` becomes the thread's one `full` batch; a thread that already has
/// one (a worker that runs more blocks than it submits) hands the older batch to `LockFreeSharedSpares`, where a
/// thread that submits more than it runs takes every batch at once when its own lists are empty. Spares are +1 job
/// pointers chained through `next`; a job in a list is in no queue. The lists are freed with the thread's context.
struct LockFreeJobSpares: ~Copyable {
    /// Jobs per batch: one shared-stack operation per 128 jobs moved between threads.
    static let batch = 128

    private var current: UnsafeMutableRawPointer?
    /// The first job given to an empty `current`: the end of its chain, where a handed-off batch links to the stack.
    private var currentLast: UnsafeMutableRawPointer?
    private var currentCount = 0
    private var full: UnsafeMutableRawPointer?
    private var fullLast: UnsafeMutableRawPointer?
    /// Batches taken from the shared stack; consumed, never handed on (their length is unknown).
    private var taken: UnsafeMutableRawPointer?
    /// Read once per thread: a static's every access is a `swift_once` check.
    private let shared = LockFreeSharedSpares.shared

    init() {}

    deinit {
        for chain in [current, full, taken] { Self.free(chain) }
    }

    /// A spare job (its work `.stub`), or nil when there is none: a pop, or one exchange when the thread's lists
    /// are empty and the shared stack is not.
    @inline(__always)
    mutating func reuse() -> LockFreeJob? {
        guard let pointer = takeSpare() else { return nil }
        return LockFreeJob.take(pointer)
    }

    /// Keeps `job` for reuse when this is its last reference (a doorbell, for one, is its queue's and stays), and
    /// drops its work (the block and what it captured are released here, as freeing the job would).
    @inline(__always)
    mutating func recycle(_ job: consuming LockFreeJob) {
        guard isKnownUniquelyReferenced(&job) else { return }
        job.work = .stub
        job.group = nil
        give(Unmanaged.passRetained(job).toOpaque())
    }

    @inline(__always)
    private mutating func takeSpare() -> UnsafeMutableRawPointer? {
        if let job = current {
            current = Self.next(job)
            currentCount -= 1
            if currentCount == 0 { currentLast = nil }
            return job
        }
        if let job = full {
            current = Self.next(job)
            currentLast = fullLast
            currentCount = Self.batch - 1
            full = nil
            fullLast = nil
            return job
        }
        if taken == nil { taken = shared.takeAll() }
        guard let job = taken else { return nil }
        taken = Self.next(job)
        return job
    }

    @inline(__always)
    private mutating func give(_ job: UnsafeMutableRawPointer) {
        LockFreeJob.peek(job).next.store(current, ordering: .relaxed)
        if current == nil { currentLast = job }
        current = job
        currentCount += 1
        if currentCount == Self.batch { retire() }
    }

    /// `current` is full: it becomes `full`, and the batch that was there goes to the shared stack (or is freed
    /// when the stack holds enough).
    private mutating func retire() {
        if let older = full, let olderLast = fullLast, !shared.give(older, last: olderLast) {
            Self.free(older)
        }
        full = current
        fullLast = currentLast
        current = nil
        currentLast = nil
        currentCount = 0
    }

    @inline(__always)
    private static func next(_ job: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        LockFreeJob.peek(job).next.load(ordering: .relaxed)
    }

    private static func free(_ chain: UnsafeMutableRawPointer?) {
        var cursor = chain
        while let job = cursor {
            cursor = next(job)
            _ = LockFreeJob.take(job)
        }
    }
}

/// Batches of spare jobs passed from threads that run more jobs than they make to threads that make more than they
/// run (see `LockFreeJobSpares`). A Treiber stack that only pushes (a CAS on the head) and takes everything at once
/// (an exchange), so it has no ABA problem: a push succeeds only if the head is the one it linked behind, and the
/// chain behind that head is then exactly the stack, whatever happened meanwhile. The giver's CAS releases the
/// jobs' fields, the taker's exchange acquires them. At most about `maxBatches` wait (the count is kept beside the
/// head, so a race may let one more in); past that, a batch is freed instead.
final class LockFreeSharedSpares: @unchecked Sendable {
    static let shared = LockFreeSharedSpares()
    /// 16 batches of 128 jobs of 64 bytes: 128 KiB held at most.
    static let maxBatches = 16

    private let head = PaddedAtomic<UnsafeMutableRawPointer?>(nil)
    private let batches = PaddedAtomic<Int>(0)

    /// Pushes the chain `first`…`last`; false when the stack is full (the caller keeps the chain).
    func give(_ first: UnsafeMutableRawPointer, last: UnsafeMutableRawPointer) -> Bool {
        guard batches.atomic.pointee.load(ordering: .relaxed) < Self.maxBatches else { return false }
        batches.atomic.pointee.add(1, ordering: .relaxed)
        var observed = head.atomic.pointee.load(ordering: .relaxed)
        while true {
            LockFreeJob.peek(last).next.store(observed, ordering: .relaxed)
            let (won, seen) = head.atomic.pointee.compareExchange(
                expected: observed, desired: first, ordering: .releasing)
            if won { return true }
            observed = seen
        }
    }

    /// Every job on the stack, as one chain, or nil. A load first, so an empty stack costs no write.
    func takeAll() -> UnsafeMutableRawPointer? {
        guard head.atomic.pointee.load(ordering: .relaxed) != nil else { return nil }
        let chain = head.atomic.pointee.exchange(nil, ordering: .acquiring)
        if chain != nil { batches.atomic.pointee.store(0, ordering: .relaxed) }
        return chain
    }
}
