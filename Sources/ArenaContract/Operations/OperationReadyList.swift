import HeapModule

/// An operation queue's ready operations: highest priority first and, within a priority, in order of addition (a
/// binary heap: O(log n) to insert and to take). Guarded by the queue's lock.
///
/// Entries are hints, not the truth: the queue checks each entry it takes against its operation (`claim`), so an
/// entry made stale (the priority changed since, the operation gained a dependency, or it was pushed twice) is
/// dropped when taken rather than searched for and removed.
struct OperationReadyList<E: Engine> {
    struct Entry: Comparable {
        let operation: EngineOperation<E>
        let priority: OperationPriority
        /// Order of addition on the queue: lower is older.
        let sequence: Int

        /// The greatest entry is taken first: higher priority, then older.
        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.priority != rhs.priority ? lhs.priority < rhs.priority : lhs.sequence > rhs.sequence
        }

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.priority == rhs.priority && lhs.sequence == rhs.sequence
        }
    }

    private var heap = Heap<Entry>()

    /// Adds `operation`, ready at `priority`, added `sequence`th on its queue. O(log n).
    mutating func insert(_ operation: EngineOperation<E>, priority: OperationPriority, sequence: Int) {
        heap.insert(Entry(operation: operation, priority: priority, sequence: sequence))
    }

    /// Takes the entry to start next. O(log n).
    mutating func popFirst() -> Entry? { heap.popMax() }
}
