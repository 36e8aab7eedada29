import ArenaContract
import Harness
import Synchronization

/// An atomic counter.
public final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    public init() {}

    /// Adds `amount`, returns the new value.
    @discardableResult
    public func add(_ amount: Int = 1) -> Int { storage.add(amount, ordering: .sequentiallyConsistent).newValue }

    public var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}

/// Measures how many blocks are inside a region at once: `enter` on the way in, `leave` on the way out.
public final class ConcurrencyMeter: Sendable {
    private let current = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    public init() {}

    /// Enters the region; returns how many are inside now, this caller included.
    @discardableResult
    public func enter() -> Int {
        let now = current.add(1, ordering: .sequentiallyConsistent).newValue
        _ = peak.max(now, ordering: .sequentiallyConsistent)
        return now
    }

    public func leave() { current.subtract(1, ordering: .sequentiallyConsistent) }

    /// How many are inside now.
    public var inside: Int { current.load(ordering: .sequentiallyConsistent) }

    /// The most that were inside at once.
    public var maximum: Int { peak.load(ordering: .sequentiallyConsistent) }

    /// Runs `body` inside the region.
    public func measure<T>(_ body: () throws -> T) rethrows -> T {
        enter()
        defer { leave() }
        return try body()
    }
}

/// One atomic counter per index, for "each index exactly once".
public final class IndexCounters: @unchecked Sendable {
    public let count: Int
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    public init(_ count: Int) {
        self.count = count
        slots = .allocate(capacity: Swift.max(count, 1))
        for index in 0..<count { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    public func hit(_ index: Int) {
        precondition(index >= 0 && index < count, "index \(index) out of 0..<\(count)")
        slots[index].add(1, ordering: .relaxed)
    }

    public func hits(_ index: Int) -> Int { slots[index].load(ordering: .relaxed) }

    /// Indices hit other than exactly once, with their counts (at most `limit`).
    public func wrong(limit: Int = 5) -> [(index: Int, hits: Int)] {
        var found: [(Int, Int)] = []
        for index in 0..<count where hits(index) != 1 {
            found.append((index, hits(index)))
            if found.count == limit { break }
        }
        return found
    }
}

/// An append-only log that threads share.
public final class Recorder<Element>: @unchecked Sendable {
    private let storage = Locked<[Element]>([])

    public init() {}

    public func append(_ element: Element) { storage.withLock { $0.append(element) } }

    public var elements: [Element] { storage.snapshot }

    public var count: Int { storage.withLock { $0.count } }
}

/// A plain, unsynchronised integer. Checks use it where the engine's guarantee (exclusion, ordering) is what keeps
/// accesses apart, so a broken engine loses updates visibly.
public final class UnguardedCell: @unchecked Sendable {
    public var value = 0

    public init() {}
}
