import ArenaContract
import Glibc
import Synchronization

/// Dmitry Vyukov's intrusive multi-producer single-consumer queue (1024cores.net, "Intrusive MPSC node-based queue").
///
/// Producers do one atomic exchange on `tail` and one store to link the previous node; the consumer walks from a
/// head only it touches, through a stub node that keeps the list non-empty. Between a producer's exchange and its
/// link the list is momentarily cut: `pop` reports `.busy`, and the consumer (which knows an item is coming, see
/// `LockFreeQueue`) retries.
///
/// Memory ordering: a producer writes the job, then publishes it with the exchange (acquire-release) and the link
/// (release); the consumer reads links with acquire, so it sees the job's fields.
/// Reclamation: a producer touches the node it replaced (`previous`) only to link it, and the consumer pops a node
/// only after seeing that link, so a popped node is never touched by a producer again; jobs are +1 references
/// handed from producer to consumer (`LockFreeJob`). The stub belongs to the queue and is never handed out.
final class VyukovMPSCQueue: @unchecked Sendable {
    enum Pop {
        case job(LockFreeJob)
        case empty
        /// A producer is between its exchange and its link: an item is on its way.
        case busy
    }

    /// Written by producers: alone on its lines.
    private let tail: PaddedAtomic<UnsafeMutableRawPointer>
    /// The consumer's: never touched by producers.
    private var head: UnsafeMutableRawPointer
    private let stub = LockFreeJob(.stub)
    private let stubPointer: UnsafeMutableRawPointer

    init() {
        stubPointer = Unmanaged.passUnretained(stub).toOpaque()
        head = stubPointer
        tail = PaddedAtomic(stubPointer)
    }

    deinit {
        while case .job = pop() {}
    }

    /// Appends a job, taking its +1 reference. Any thread.
    @inline(__always)
    func push(_ job: LockFreeJob) { link(job.retainedPointer()) }

    @inline(__always)
    private func link(_ node: UnsafeMutableRawPointer) {
        LockFreeJob.peek(node).next.store(nil, ordering: .relaxed)
        let previous = tail.atomic.pointee.exchange(node, ordering: .acquiringAndReleasing)
        LockFreeJob.peek(previous).next.store(node, ordering: .releasing)
    }

    /// Takes the oldest job (+1). The consumer only.
    func pop() -> Pop {
        var first = head
        var next = LockFreeJob.peek(first).next.load(ordering: .acquiring)
        if first == stubPointer {
            guard let after = next else {
                return tail.atomic.pointee.load(ordering: .acquiring) == stubPointer ? .empty : .busy
            }
            head = after
            first = after
            next = LockFreeJob.peek(after).next.load(ordering: .acquiring)
        }
        if let after = next {
            head = after
            return .job(LockFreeJob.take(first))
        }
        // `first` is the last node: put the stub behind it so it can be taken without emptying the list.
        if tail.atomic.pointee.load(ordering: .acquiring) != first { return .busy }
        link(stubPointer)
        if let after = LockFreeJob.peek(first).next.load(ordering: .acquiring) {
            head = after
            return .job(LockFreeJob.take(first))
        }
        return .busy
    }

    /// Takes the oldest job, waiting out a producer caught between exchange and link. Only for a consumer that
    /// knows a job was reserved: the wait is as long as that producer's two instructions, or its preemption.
    func popReserved() -> LockFreeJob {
        var spins = 0
        while true {
            if case .job(let job) = pop() { return job }
            spins += 1
            if spins > 64 { sched_yield() }
        }
    }
}
