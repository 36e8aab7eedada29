import ArenaContract
import Synchronization

/// A worker's own run queue: a bounded ring (256 jobs) its worker pushes to and pops from in FIFO order, and other
/// workers steal from, as in Tokio's scheduler (Carl Lerche, "Making the Tokio scheduler 10x faster", 2019), but one
/// job at a time where Tokio takes half.
///
/// Only the owner writes `tail` and the slots; everyone takes from `head` by CAS. FIFO keeps blocks fanned out by a
/// concurrent queue starting in submission order, and so does stealing one job: a job taken is a job about to start,
/// so when a block starts, the earlier blocks not started yet are at most those the other workers have just taken, one
/// each. A thief that took a batch would start it one after another in its own lane while every other worker ran later
/// blocks: on 16 cores, batches of 16 let a block be overtaken by 72 (`concurrent.start-order`, slack 64; docs/RACES.md). Slots are relaxed atomics holding job pointers: a thief may read
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

    /// How many jobs wait (a snapshot, for the starvation watch).
    var count: Int {
        let start = head.atomic.pointee.load(ordering: .relaxed)
        let end = tail.atomic.pointee.load(ordering: .relaxed)
        return Int(Swift.min(end &- start, Self.capacity))
    }

    /// Whether the queue looks empty (a snapshot).
    var isEmpty: Bool { head.atomic.pointee.load(ordering: .acquiring) == tail.atomic.pointee.load(ordering: .acquiring) }
}
