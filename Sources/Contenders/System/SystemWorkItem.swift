import Dispatch
import Synchronization

/// A `DispatchWorkItem`, plus a flag that names the item when it is waited on twice.
public final class SystemWorkItem: EngineWorkItem {
    public typealias Queue = SystemQueue

    public let label: String
    /// libdispatch's block objects are thread-safe; the overlay does not mark the class Sendable.
    nonisolated(unsafe) let dispatchItem: DispatchWorkItem
    private let waited = Atomic<Bool>(false)

    init(label: String, flags: WorkItemFlags, block: @escaping @Sendable () -> Void) {
        self.label = label
        dispatchItem = DispatchWorkItem(flags: flags.contains(.barrier) ? .barrier : [], block: block)
    }

    public func perform() { dispatchItem.perform() }

    public func cancel() { dispatchItem.cancel() }

    public var isCancelled: Bool { dispatchItem.isCancelled }

    public func notify(queue: SystemQueue, _ block: @escaping @Sendable () -> Void) {
        dispatchItem.notify(queue: queue.dispatchQueue, execute: block)
    }

    public func wait(until deadline: Deadline) -> WaitResult {
        if waited.load(ordering: .relaxed) { misuse("work item waited on twice: work item '\(label)'") }
        let result = WaitResult(dispatchItem.wait(timeout: deadline.dispatchTime))
        if result == .success { waited.store(true, ordering: .relaxed) }
        return result
    }
}
