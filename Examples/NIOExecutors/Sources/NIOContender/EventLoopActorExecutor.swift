import ArenaContract
import NIOCore

/// One of the group's event loops as the layer's serial executor: an actor returning `asUnownedSerialExecutor()` from
/// its `unownedExecutor` gets NIO's own executor of the loop (`EventLoop.executor`, `UnownedSerialExecutor(complexEquality:)`
/// over NIO's `SelectableEventLoop`), so NIO's `enqueue` runs its jobs (no closure per job: NIO keeps the job in its
/// task queue) and NIO's `checkIsolated` and `isSameExclusiveExecutionContext` answer the runtime's isolation
/// questions.
///
/// What NIO's executor lacks, this type adds beside it, on NIO's public API: plain blocks (`submit`, NIO's `execute`,
/// a closure each), specific values (`setSpecific`, a table per loop the contender's `currentSpecific` reads), a label,
/// and `isIsolatingCurrentContext` for the layer's own callers (NIO's `inEventLoop`). The runtime never calls this
/// type's own `enqueue`: it forwards to NIO's, for a caller holding this type.
public final class EventLoopActorExecutor: LayerSerialExecutor {
    /// The event loop whose executor runs the actor's jobs.
    public let loop: any EventLoop
    /// NIO's executor of `loop`.
    public let nio: any SerialExecutor
    public let label: String
    let specifics: LoopSpecifics

    init(_ loop: EventLoops.Loop, label: String) {
        self.loop = loop.loop
        nio = loop.loop.executor
        specifics = loop.specifics
        self.label = label
    }

    /// NIO's executor of the loop, so the runtime enqueues on NIO.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { nio.asUnownedSerialExecutor() }

    /// Hands the job to NIO's executor (the runtime goes there directly).
    public func enqueue(_ job: consuming ExecutorJob) { nio.enqueue(job) }

    /// Runs `block` on the loop (`EventLoop.execute`: a closure, a lock, and from another thread a wake-up).
    public func submit(_ block: @escaping @Sendable () -> Void) { loop.execute(block) }

    /// Sets the value on the loop's table: every actor executor on the same loop sees it, as blocks of one queue do.
    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) { specifics.set(key, value) }

    /// Whether the caller runs on the loop (NIO's `inEventLoop`, a thread-identity comparison): jobs of every actor on
    /// the loop, and its plain blocks.
    public func isIsolatingCurrentContext() -> Bool? { loop.inEventLoop }

    /// Stops the process, naming the executor's label, unless the caller runs on the loop.
    public func checkIsolated() {
        if !loop.inEventLoop { misuse("isolation check failed: the caller is not running on event loop executor '\(label)'") }
    }
}
