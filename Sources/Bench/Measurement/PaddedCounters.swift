import Synchronization

/// Counters for blocks to count themselves, one per slot (a producer, a queue), each with an occupancy flag beside it
/// and on its own 128-byte span, so blocks counting different slots on two workers share no cache line (adjacent-line
/// prefetch included).
///
/// `add` is an atomic increment, for blocks of one slot that may run at once (a concurrent queue). `enterExclusive`
/// and `leaveExclusive` bracket a block of a serial queue: the queue makes it exclusive, so plain loads and stores
/// (relaxed atomics, no locked instruction) suffice, and if two blocks of a slot overlap anyway the count loses
/// increments and the flag is seen set. A class, so blocks still queued after a timed-out trial keep the memory alive.
@usableFromInline class PaddedCounters: @unchecked Sendable {
    /// `Int`-sized slots between two counters: 16 × 8 bytes = 128 bytes. Slot s counts in 16s; its flag is 16s + 1.
    @usableFromInline static let spacing = 16
    @usableFromInline let storage: UnsafeMutablePointer<Atomic<Int>>
    /// How many slots there are.
    @usableFromInline let count: Int
    @usableFromInline let overlapCount = Atomic<Int>(0)

    @inlinable init(_ count: Int) {
        self.count = count
        storage = .allocate(capacity: count * Self.spacing)
        for index in 0..<count * Self.spacing { (storage + index).initialize(to: Atomic(0)) }
    }

    deinit {
        storage.deinitialize(count: count * Self.spacing)
        storage.deallocate()
    }

    /// Counts one for `slot`, atomically.
    @inline(__always)
    @inlinable final func add(_ slot: Int) { storage[slot * Self.spacing].wrappingAdd(1, ordering: .relaxed) }

    /// Marks a block of `slot` as running, noting one already inside, and counts it.
    @inline(__always)
    @inlinable final func enterExclusive(_ slot: Int) {
        let flag = slot * Self.spacing + 1
        if storage[flag].load(ordering: .relaxed) != 0 { overlapCount.wrappingAdd(1, ordering: .relaxed) }
        storage[flag].store(1, ordering: .relaxed)
        storage[flag - 1].store(storage[flag - 1].load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Marks the block of `slot` as done.
    @inline(__always)
    @inlinable final func leaveExclusive(_ slot: Int) { storage[slot * Self.spacing + 1].store(0, ordering: .relaxed) }

    /// The count of `slot`.
    @inlinable final func value(_ slot: Int) -> Int { storage[slot * Self.spacing].load(ordering: .relaxed) }

    /// The sum over all slots.
    @inlinable final var total: Int { (0..<count).reduce(0) { $0 + value($1) } }

    /// Exclusive blocks that found another block of their slot inside.
    @inlinable final var overlaps: Int { overlapCount.load(ordering: .relaxed) }
}
