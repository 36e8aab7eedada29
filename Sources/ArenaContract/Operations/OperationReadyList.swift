import HeapModule

/// An operation queue's ready list: the operations ready to start, in the order their queue starts them. The default
/// operation layer is generic over it (`EngineOperations<E, ReadyList, Admission>`), so a list of an author's own replaces the
/// default without copying the layer, and is called directly, specialised, never through an existential.
///
/// The queue calls it under its lock, files each operation as it turns ready (added ready, its last dependency done,
/// cancelled, its priority changed) and takes entries while it has room. Entries are hints, not the truth: the queue
/// checks each entry it takes against its operation and drops a stale one (the priority changed since, the operation
/// started already, or it was filed twice), so a list never searches for an entry to remove it.
///
/// The order is the list's to keep, and the operation rules check it: the highest priority first and, within a
/// priority, the oldest addition first (`sequence`), whatever order the operations turned ready in (Foundation's
/// order: `op.priority`, `op.serial-readiness`).
public protocol OperationReadyList: SendableMetatype {
    /// An empty list.
    init()

    /// Files `entry`.
    mutating func insert(_ entry: OperationReadyEntry)

    /// Takes the entry to start next, or `nil` when the list is empty.
    mutating func popFirst() -> OperationReadyEntry?
}

/// One ready operation as its queue files it: what the order depends on, and the operation, which only the queue
/// reads. Copying it retains the operation.
public struct OperationReadyEntry {
    /// The operation's `queuePriority` when it was filed.
    public let priority: OperationPriority
    /// Its order of addition on the queue: lower is older.
    public let sequence: Int
    /// The operation, for the queue that filed it.
    let operation: AnyObject

    init(operation: AnyObject, priority: OperationPriority, sequence: Int) {
        self.operation = operation
        self.priority = priority
        self.sequence = sequence
    }
}

/// The default ready list: a binary heap, highest priority first and, within a priority, in order of addition.
/// O(log n) to insert and to take.
public struct PriorityReadyList: OperationReadyList {
    /// An entry ordered so that the greatest is taken first: higher priority, then older.
    private struct Ordered: Comparable {
        let entry: OperationReadyEntry

        static func < (lhs: Ordered, rhs: Ordered) -> Bool {
            let (left, right) = (lhs.entry, rhs.entry)
            return left.priority != right.priority ? left.priority < right.priority : left.sequence > right.sequence
        }

        static func == (lhs: Ordered, rhs: Ordered) -> Bool {
            lhs.entry.priority == rhs.entry.priority && lhs.entry.sequence == rhs.entry.sequence
        }
    }

    private var heap = Heap<Ordered>()

    public init() {}

    /// O(log n).
    public mutating func insert(_ entry: OperationReadyEntry) { heap.insert(Ordered(entry: entry)) }

    /// O(log n).
    public mutating func popFirst() -> OperationReadyEntry? { heap.popMax()?.entry }
}
