import ArenaContract
import Dispatch
import Synchronization

/// A `DispatchGroup`, plus a count of manual enters so an unbalanced leave names the group.
public final class SystemGroup: EngineGroup {
    public let label: String
    private let group = DispatchGroup()
    /// Manual `enter()` minus `leave()`; `group.async` balances itself inside libdispatch and is not counted.
    private let manualEnters = Atomic<Int>(0)

    init(label: String) { self.label = label }

    public func async(on queue: SystemQueue, _ block: @escaping @Sendable () -> Void) {
        queue.dispatchQueue.async(group: group, execute: block)
    }

    public func enter() {
        manualEnters.add(1, ordering: .relaxed)
        group.enter()
    }

    public func leave() {
        if manualEnters.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("unbalanced leave: leave() without a matching enter() on group '\(label)'")
        }
        group.leave()
    }

    public func notify(queue: SystemQueue, _ block: @escaping @Sendable () -> Void) {
        group.notify(queue: queue.dispatchQueue, execute: block)
    }

    public func notify(queue: SystemQueue, item: SystemWorkItem) {
        if let barrier = item.barrierSubmission { return group.notify(flags: .barrier, queue: queue.dispatchQueue, execute: barrier) }
        group.notify(queue: queue.dispatchQueue, work: item.dispatchItem)
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        WaitResult(group.wait(timeout: deadline.dispatchTime))
    }
}
