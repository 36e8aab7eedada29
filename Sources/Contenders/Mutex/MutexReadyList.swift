import ArenaContract
import DequeModule

/// The pool's ready items, one FIFO per quality-of-service class: a worker takes the oldest item of the most urgent
/// class that has one, so a flooded pool runs higher classes first (libdispatch's priority test), and each class is
/// FIFO. Guarded by the pool's lock.
struct MutexReadyList {
    private var lanes: [Deque<MutexPoolItem>] = Array(repeating: [], count: QoSClass.allCases.count)
    private(set) var count = 0
    /// The rank of the most urgent class with an item, or -1 when empty.
    private(set) var mostUrgent = -1

    var isEmpty: Bool { count == 0 }

    /// Appends `item` to the FIFO of class `rank`. O(1).
    mutating func append(_ item: MutexPoolItem, rank: Int) {
        lanes[rank].append(item)
        count += 1
        mostUrgent = Swift.max(mostUrgent, rank)
    }

    /// The oldest item of the most urgent class, if any. O(1), plus a scan of the classes below when its FIFO empties.
    mutating func popFirst() -> MutexPoolItem? {
        guard mostUrgent >= 0, let item = lanes[mostUrgent].popFirst() else { return nil }
        count -= 1
        while mostUrgent >= 0 && lanes[mostUrgent].isEmpty { mostUrgent -= 1 }
        return item
    }
}
