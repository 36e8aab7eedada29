import ArenaContract
import Glibc
import Synchronization

/// The worker pool's global FIFO for work submitted from outside its workers: Dmitry Vyukov's bounded MPMC queue
/// (1024cores.net, "Bounded MPMC queue"), 16384 cells.
///
/// Each cell carries a sequence number: a producer claims position p by CAS on `enqueuePosition` when the cell's
/// sequence equals p, writes the job, and publishes with sequence p + 1 (release); a consumer claims when the
/// sequence equals p + 1, reads (after an acquire load), and frees the cell with sequence p + capacity. The slot
/// itself is plain memory: the sequence hand-off orders every access to it. No allocation, so no reclamation.
/// When full, a producer yields until a cell frees (back-pressure: 16384 queued jobs outpace any consumer).
final class InjectionQueue: @unchecked Sendable {
    private static let capacity = 1 << 14
    private let mask = InjectionQueue.capacity - 1
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let enqueuePosition = PaddedAtomic<Int>(0)
    private let dequeuePosition = PaddedAtomic<Int>(0)

    init() {
        sequences = .allocate(capacity: Self.capacity)
        for index in 0..<Self.capacity { (sequences + index).initialize(to: Atomic(index)) }
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: nil, count: Self.capacity)
    }

    deinit {
        while let job = pop() { _ = LockFreeJob.take(job) }
        sequences.deinitialize(count: Self.capacity)
        sequences.deallocate()
        slots.deallocate()
    }

    /// Appends a +1 job pointer, yielding while the queue is full.
    func push(_ job: UnsafeMutableRawPointer) {
        var position = enqueuePosition.atomic.pointee.load(ordering: .relaxed)
        while true {
            let cell = position & mask
            let difference = sequences[cell].load(ordering: .acquiring) &- position
            if difference == 0 {
                let (won, current) = enqueuePosition.atomic.pointee.compareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if won {
                    slots[cell] = job
                    sequences[cell].store(position &+ 1, ordering: .releasing)
                    return
                }
                position = current
            } else if difference < 0 {
                sched_yield()  // full
                position = enqueuePosition.atomic.pointee.load(ordering: .relaxed)
            } else {
                position = enqueuePosition.atomic.pointee.load(ordering: .relaxed)
            }
        }
    }

    /// Takes the oldest job pointer (+1), or nil when empty.
    func pop() -> UnsafeMutableRawPointer? {
        var position = dequeuePosition.atomic.pointee.load(ordering: .relaxed)
        while true {
            let cell = position & mask
            let difference = sequences[cell].load(ordering: .acquiring) &- (position &+ 1)
            if difference == 0 {
                let (won, current) = dequeuePosition.atomic.pointee.compareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if won {
                    let job = slots[cell]
                    sequences[cell].store(position &+ Self.capacity, ordering: .releasing)
                    return job
                }
                position = current
            } else if difference < 0 {
                return nil
            } else {
                position = dequeuePosition.atomic.pointee.load(ordering: .relaxed)
            }
        }
    }

    /// How many jobs are queued (a snapshot, for the starvation watch).
    var count: Int {
        let start = dequeuePosition.atomic.pointee.load(ordering: .relaxed)
        return max(0, enqueuePosition.atomic.pointee.load(ordering: .relaxed) &- start)
    }

    /// Whether nothing is queued (a snapshot).
    var isEmpty: Bool {
        enqueuePosition.atomic.pointee.load(ordering: .acquiring) == dequeuePosition.atomic.pointee.load(ordering: .acquiring)
    }
}
