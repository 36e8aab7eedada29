import ArenaContract
import Synchronization

/// A work item: an atomic state (cancelled, finished, waited) that waiters sleep on (futex), and a notification
/// stack submitted when it finishes.
public final class LockFreeWorkItem: EngineWorkItem, @unchecked Sendable {
    public typealias Queue = LockFreeQueue

    public let label: String
    /// How queues run it (`.barrier`: as a barrier on a concurrent queue).
    let flags: WorkItemFlags
    /// The item's class, applied as `flags` say while it runs (`PerformedItemClass`).
    private let qos: QoSClass?
    private let block: @Sendable () -> Void
    private static let cancelled: UInt32 = 1, finished: UInt32 = 2, waited: UInt32 = 4
    private let state = FutexWord(0)
    private let notifications = NotificationStack()

    init(label: String, qos: QoSClass?, flags: WorkItemFlags, block: @escaping @Sendable () -> Void) {
        self.label = label
        self.qos = qos
        self.flags = flags
        self.block = block
    }

    public func perform() {
        if state.word.pointee.load(ordering: .acquiring) & Self.cancelled == 0 {
            PerformedItemClass.performing(qos, enforced: flags.contains(.enforceQoS), block)
        }
        state.word.pointee.bitwiseOr(Self.finished, ordering: .sequentiallyConsistent)
        state.wakeAll()
        notifications.submitAll()
    }

    public func cancel() { state.word.pointee.bitwiseOr(Self.cancelled, ordering: .releasing) }

    public var isCancelled: Bool { state.word.pointee.load(ordering: .acquiring) & Self.cancelled != 0 }

    public func notify(queue: LockFreeQueue, _ block: @escaping @Sendable () -> Void) {
        notifications.push(queue, block)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if state.word.pointee.load(ordering: .acquiring) & Self.finished != 0 { notifications.submitAll() }
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        if state.word.pointee.load(ordering: .acquiring) & Self.waited != 0 {
            misuse("work item waited on twice: work item '\(label)'")
        }
        let result: WaitResult = LockFreeThreadContext.blocking {
            while true {
                let current = state.word.pointee.load(ordering: .acquiring)
                if current & Self.finished != 0 { return .success }
                if !state.wait(whileEqualTo: current, until: deadline) {
                    return state.word.pointee.load(ordering: .acquiring) & Self.finished != 0 ? .success : .timedOut
                }
            }
        }
        if result == .success { state.word.pointee.bitwiseOr(Self.waited, ordering: .relaxed) }
        return result
    }
}
