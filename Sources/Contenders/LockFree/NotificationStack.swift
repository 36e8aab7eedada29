import Synchronization

/// A list of (queue, block) notifications, pushed by any thread and taken all at once: a Treiber stack
/// (R. K. Treiber, 1986) that is only ever popped whole, by exchange, so it has no ABA problem.
///
/// Memory ordering: a node is written, then published by a release CAS; `takeAll` exchanges with acquire.
/// Reclamation: nodes are +1 references handed from the pusher to whoever takes them.
final class NotificationStack: @unchecked Sendable {
    final class Node {
        let queue: LockFreeQueue
        let block: @Sendable () -> Void
        var next: UnsafeMutableRawPointer?
        init(queue: LockFreeQueue, block: @escaping @Sendable () -> Void) {
            self.queue = queue
            self.block = block
        }
    }

    private let head = Atomic<UnsafeMutableRawPointer?>(nil)

    deinit { _ = takeAll() }

    func push(_ queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        let node = Node(queue: queue, block: block)
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
    func takeAll() -> [(queue: LockFreeQueue, block: @Sendable () -> Void)] {
        var pointer = head.exchange(nil, ordering: .acquiring)
        var taken: [(queue: LockFreeQueue, block: @Sendable () -> Void)] = []
        while let current = pointer {
            let node = Unmanaged<Node>.fromOpaque(current).takeRetainedValue()
            taken.append((node.queue, node.block))
            pointer = node.next
        }
        return taken.reversed()
    }

    /// Submits every notification to its queue.
    func submitAll() {
        for notification in takeAll() { notification.queue.async(notification.block) }
    }
}
