import ArenaContract
import Dispatch
import Synchronization

/// A `DispatchWorkItem`, plus a flag that names the item when it is waited on twice.
public final class SystemWorkItem: EngineWorkItem {
    public typealias Queue = SystemQueue

    public let label: String
    /// libdispatch's block objects are thread-safe; the overlay does not mark the class Sendable.
    nonisolated(unsafe) let dispatchItem: DispatchWorkItem
    /// Whether the item runs alone on a concurrent queue; such items are submitted through `barrierSubmission`.
    let isBarrier: Bool
    private let waited = Atomic<Bool>(false)

    init(label: String, qos: QoSClass?, flags: WorkItemFlags, block: @escaping @Sendable () -> Void) {
        self.label = label
        isBarrier = flags.contains(.barrier)
        var dispatchFlags: DispatchWorkItemFlags = isBarrier ? .barrier : []
        if flags.contains(.enforceQoS) { dispatchFlags.insert(.enforceQoS) }
        if flags.contains(.inheritQoS) { dispatchFlags.insert(.inheritQoS) }
        dispatchItem = DispatchWorkItem(qos: qos?.dispatchQoS ?? .unspecified, flags: dispatchFlags, block: block)
    }

    /// How queues and groups submit a barrier item: as a barrier submission that performs it, which block.h defines
    /// as the same thing (DISPATCH_BLOCK_BARRIER: "behaves as if submitted with dispatch_barrier_async"); cancel,
    /// notify and wait keep working, since `perform()` is the block object's own. Why not the block object itself:
    /// ThreadSanitizer's libdispatch interceptors wrap every submitted block in one of their own, which drops the
    /// flag the block object carries (measured, a barrier DispatchWorkItem on a concurrent queue between blocks of
    /// 2 ms: 0 of 20 overlapped others in a plain build, 20 of 20 under -sanitize=thread), so the sanitizer stage
    /// would check another engine than the one that ships. Other items go in as the block object.
    var barrierSubmission: (@Sendable () -> Void)? {
        guard isBarrier else { return nil }
        return { [self] in perform() }
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
