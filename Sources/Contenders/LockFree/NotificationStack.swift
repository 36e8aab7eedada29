import Synchronization

/// A list of notifications (each submits a block or a work item to its queue), pushed by any thread and taken all at
/// once: a Treiber stack (R. K. Treiber, 1986) that is only ever popped whole, by exchange, so it has no ABA problem.
///
/// Memory ordering: a node is written, then published by a release CAS; `takeAll` exchanges with acquire.
/// Reclamation: nodes are +1 references handed from the pusher to whoever takes them.
final class NotificationStack: @unchecked Sendable {
    final class Node {
        let submit: @Sendable () -> Void
        var next: UnsafeMutableRawPointer?
        init(_ submit: @escaping @Sendable () -> Void) { self.submit = submit }
    }

    private let head = Atomic<UnsafeMutableRawPointer?>(nil)

    deinit { _ = takeAll() }

    /// Adds a notification that submits `block` to `queue`.
    func push(_ queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) { push { queue.async(block) } }

    /// Adds a notification that submits `item` to `queue`, as `queue.async(item)` does.
    func push(_ queue: LockFreeQueue, _ item: LockFreeWorkItem) { push { queue.async(item) } }

    private func push(_ submit: @escaping @Sendable () -> Void) {
        let node = Node(submit)
        let pointer = Unmanaged.passRetained(node).toOpaque()
        var current = head.load(ordering: .relaxed)
        while true {
            node.next = current
            let (won, seen) = head.compareExchange(expected: current, desired: pointer, ordering: .releasing)
            if won { return }
            current = seen
        }
    }

    /// Takes every notification, oldest first.
    func takeAll() -> [@Sendable () -> Void] {
        var pointer = head.exchange(nil, ordering: .acquiring)
        var taken: [@Sendable () -> Void] = []
        while let current = pointer {
            let node = Unmanaged<Node>.fromOpaque(current).takeRetainedValue()
            taken.append(node.submit)
            pointer = node.next
        }
        return taken.reversed()
    }

    /// Submits every notification to its queue.
    func submitAll() {
        for submit in takeAll() { submit() }
    }
}
