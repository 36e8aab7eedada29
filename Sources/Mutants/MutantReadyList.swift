import ArenaContract

/// A faulty ready list for the default operation layer: each priority's operations in the order they turned ready, not
/// the order they were added (a first-in, first-out line per priority that ignores `sequence`). Every operation that is
/// ready when added is in order; one that turns ready late (its dependency finished after newer ones were added) goes
/// after them, against Foundation's order. `op.priority` must catch it (`MutantTests.readyListOrder`).
package struct TurnedReadyOrderList: OperationReadyList {
    private var lines: [[OperationReadyEntry]] = Array(repeating: [], count: OperationPriority.allCases.count)

    package init() {}

    package mutating func insert(_ entry: OperationReadyEntry) {
        lines[OperationPriority.allCases.firstIndex(of: entry.priority)!].append(entry)
    }

    package mutating func popFirst() -> OperationReadyEntry? {
        guard let line = lines.indices.last(where: { !lines[$0].isEmpty }) else { return nil }
        return lines[line].removeFirst()
    }
}
