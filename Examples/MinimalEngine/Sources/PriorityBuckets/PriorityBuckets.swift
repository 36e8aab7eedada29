import ArenaContract
import DequeModule

/// An operation queue's ready list as five lines, one per priority: the highest line with an entry goes first, and
/// each line keeps order of addition. An entry joins the end of its line when it is the newest there (operations
/// mostly turn ready in the order they were added): O(1) to file and to take, where the default heap is O(log n). An
/// operation that turns ready after newer ones of its priority (its dependency finished late) steps in ahead of them:
/// O(line).
public struct PriorityBuckets: OperationReadyList {
    private var lines = Array(repeating: Deque<OperationReadyEntry>(), count: 5)

    public init() {}

    public mutating func insert(_ entry: OperationReadyEntry) {
        let line = Self.line(entry.priority)
        var place = lines[line].endIndex
        while place > 0 && lines[line][place - 1].sequence > entry.sequence { place -= 1 }
        lines[line].insert(entry, at: place)
    }

    public mutating func popFirst() -> OperationReadyEntry? {
        for line in lines.indices.reversed() {
            if let entry = lines[line].popFirst() { return entry }
        }
        return nil
    }

    private static func line(_ priority: OperationPriority) -> Int {
        switch priority {
        case .veryLow: 0
        case .low: 1
        case .normal: 2
        case .high: 3
        case .veryHigh: 4
        }
    }
}
