import ArenaContract
import Synchronization

/// A list of notifications (each submits a block or a work item to its queue), pushed by any thread and taken all at
/// once: a Treiber stack (R. K. Treiber, 1986) that is only ever popped whole, by exchange, so it has no ABA problem.
///
/// Memory ordering: a node is written, then published by a release CAS; `take` exchanges with acquire.
/// Reclamation: nodes are +1 references handed from the pusher to whoever takes them.
///
/// Each notification carries the group's round it was registered in, so that the party ending a round takes only
/// that round's (and earlier) ones: one preempted between its round's end and its `take` must not run a notification
/// registered after the group was entered again.
final class NotificationStack: @unchecked Sendable {
    final class Node {
        let submit: @Sendable () -> Void
        let round: UInt64
        var next: UnsafeMutableRawPointer?
        init(_ submit: @escaping @Sendable () -> Void, round: UInt64) {
            self.submit = submit
            self.round = round
        }
    }

    private let head = Atomic<UnsafeMutableRawPointer?>(nil)

    deinit { _ = take(through: .max) }

    /// Adds a notification of `round` that submits `block` to `queue`.
    func push(_ queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void, round: UInt64) {
        push(Node({ queue.async(block) }, round: round))
    }

    /// Adds a notification of `round` that submits `item` to `queue`, as `queue.async(item)` does.
    func push(_ queue: LockFreeQueue, _ item: LockFreeWorkItem, round: UInt64) {
        push(Node({ queue.async(item) }, round: round))
    }

    private func push(_ node: Node) {
        let pointer = Unmanaged.passRetained(node).toOpaque()
        var current = head.load(ordering: .relaxed)
        while true {
            node.next = current
            let (won, seen) = head.compareExchange(expected: current, desired: pointer, ordering: .releasing)
            if won { return }
            current = seen
        }
    }

    /// Takes every notification of `round` or earlier, oldest first; later ones go back on the stack (after any pushed
    /// meanwhile, which are of a later round too).
    func take(through round: UInt64) -> [@Sendable () -> Void] {
        var putBack = false
        return take(through: round, putBack: &putBack)
    }

    /// `take(through:)`, setting `putBack` when it put notifications back. While it held them the stack looked empty,
    /// and a party that would have taken them may have passed: the caller settles again (`LockFreeGroup.settleLater`).
    /// A put-back ends with a sequentially consistent fence, so that the caller's next loads (the group's round and
    /// count) are ordered after it, against that party's store, fence, then look at the stack.
    func take(through round: UInt64, putBack: inout Bool) -> [@Sendable () -> Void] {
        var pointer = head.exchange(nil, ordering: .acquiring)
        var nodes: [Node] = []
        while let current = pointer {
            let node = Unmanaged<Node>.fromOpaque(current).takeRetainedValue()
            nodes.append(node)
            pointer = node.next
        }
        var taken: [@Sendable () -> Void] = []
        for node in nodes.reversed() {
            if node.round <= round {
                taken.append(node.submit)
            } else {
                push(node)
                putBack = true
            }
        }
        if putBack { atomicMemoryFence(ordering: .sequentiallyConsistent) }
        return taken
    }

    /// Adds a notification that submits `block` to `queue`, outside any round (a work item's).
    func push(_ queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) { push(queue, block, round: 0) }

    /// Submits every notification to its queue.
    func submitAll() {
        for submit in take(through: .max) { submit() }
    }

    /// Whether some notification waits on the stack.
    var isEmpty: Bool { head.load(ordering: .acquiring) == nil }
}
