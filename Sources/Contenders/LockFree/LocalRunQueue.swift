import ArenaContract
import Synchronization

/// A worker's own run queue: a bounded ring (256 jobs) its worker pushes to and pops from in FIFO order, and other
/// workers steal half of (at most 16 jobs at a time), as in Tokio's scheduler (Carl Lerche, "Making the Tokio scheduler 10x faster", 2019).
///
/// Only the owner writes `tail` and the slots; everyone takes from `head` by CAS. FIFO keeps blocks fanned out by a
/// concurrent queue starting in submission order. Slots are relaxed atomics holding job pointers: a thief may read
/// a slot the owner is rewriting after a wrap, but its CAS on `head` then fails and it discards what it read.
/// Memory ordering: the owner stores the slot, then `tail` with release; takers load `tail` with acquire before
/// reading slots, and claim with an acquire-release CAS on `head`.
final class LocalRunQueue: @unchecked Sendable {
    static let capacity: UInt32 = 256
    private let mask = LocalRunQueue.capacity - 1
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    private let head = PaddedAtomic<UInt32>(0)
    private let tail = PaddedAtomic<UInt32>(0)

    init() {
        slots = .allocate(capacity: Int(Self.capacity))
        for index in 0..<Int(Self.capacity) { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        while let job = pop() { _ = LockFreeJob.take(job) }
        slots.deinitialize(count: Int(Self.capacity))
        slots.deallocate()
    }

    /// The owner appends a +1 job pointer; false when full (the caller moves work elsewhere).
    @inline(__always)
    func push(_ job: UnsafeMutableRawPointer) -> Bool {
        let end = tail.atomic.pointee.load(ordering: .relaxed)
        let start = head.atomic.pointee.load(ordering: .acquiring)
        guard end &- start < Self.capacity else { return false }
        slots[Int(end & mask)].store(UInt(bitPattern: job), ordering: .relaxed)
        tail.atomic.pointee.store(end &+ 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest job (+1); the owner or anyone.
    func pop() -> UnsafeMutableRawPointer? {
        while true {
            let start = head.atomic.pointee.load(ordering: .acquiring)
            let end = tail.atomic.pointee.load(ordering: .acquiring)
            if start == end { return nil }
            let bits = slots[Int(start & mask)].load(ordering: .relaxed)
            if head.atomic.pointee.compareExchange(expected: start, desired: start &+ 1, ordering: .acquiringAndReleasing).exchanged {
                return UnsafeMutableRawPointer(bitPattern: bits)
            }
        }
    }

    /// The most jobs one steal takes. A thief runs what it took in order, but a thief preempted while holding them
    /// lets every later job overtake them all: with half of a full queue (128) that broke a concurrent queue's start
    /// order by 65 to 73 places under `--stress` (1 run in 30), where libdispatch's dequeue-in-order allows a few.
    static let stealLimit: UInt32 = 16

    /// Takes up to half of the jobs, and at most `stealLimit` (at least one if any), oldest first; nil when there is
    /// nothing to take.
    func stealHalf() -> [UnsafeMutableRawPointer]? {
        while true {
            let start = head.atomic.pointee.load(ordering: .acquiring)
            let end = tail.atomic.pointee.load(ordering: .acquiring)
            let available = end &- start
            if available == 0 || available > Self.capacity { return nil }
            let take = Swift.min(available - available / 2, Self.stealLimit)
            var taken: [UnsafeMutableRawPointer] = []
            taken.reserveCapacity(Int(take))
            for offset in 0..<take {
                let bits = slots[Int((start &+ offset) & mask)].load(ordering: .relaxed)
                guard let job = UnsafeMutableRawPointer(bitPattern: bits) else { break }
                taken.append(job)
            }
            if taken.count == Int(take),
                head.atomic.pointee.compareExchange(expected: start, desired: start &+ take, ordering: .acquiringAndReleasing).exchanged
            {
                return taken
            }
        }
    }

    /// How many jobs wait (a snapshot, for the starvation watch).
    var count: Int {
        let start = head.atomic.pointee.load(ordering: .relaxed)
        let end = tail.atomic.pointee.load(ordering: .relaxed)
        return Int(Swift.min(end &- start, Self.capacity))
    }

    /// Whether the queue looks empty (a snapshot).
    var isEmpty: Bool { head.atomic.pointee.load(ordering: .acquiring) == tail.atomic.pointee.load(ordering: .acquiring) }
}
