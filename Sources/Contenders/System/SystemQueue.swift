import ArenaContract
import CDispatch
import CLinux
import Dispatch
import Synchronization

/// A `DispatchQueue` with its label and kind, plus the bookkeeping that names it in misuse diagnostics.
public final class SystemQueue: EngineQueue {
    public typealias WorkItem = SystemWorkItem

    public let label: String
    public let kind: QueueKind

    /// The wrapped queue.
    @usableFromInline package let dispatchQueue: DispatchQueue

    /// Set on this queue only. `dispatch_get_specific` finds it from blocks of this queue and of every queue that
    /// targets it, which is exactly when this thread already drains the queue and a serial sync would deadlock.
    private let ownerKey = DispatchSpecificKey<Bool>()

    /// `suspend()` calls minus `resume()` calls; names the queue on over-resume and on release while suspended.
    private let suspensions = Atomic<Int>(0)

    /// Whether this is the main queue, bound to the main thread.
    private let isMain: Bool

    /// Whether the queue still waits for `activate()`; libdispatch also refuses to release an inactive queue.
    private let inactive: Atomic<Bool>

    /// The context and finalizer, kept in libdispatch's own slots.
    private let finalization = SystemQueueContext()

    /// The C queue the overlay wraps, as a bit pattern; 0 until first asked for (see `cQueue`).
    private let nativeQueue = Atomic<UInt>(0)

    /// The C queue the overlay wraps, for the C calls that take one (data destructors, I/O channels): found by
    /// reflection once (`SystemQueueContext.cQueue(of:)`), then one atomic load. Two first callers may both reflect;
    /// they find the same pointer.
    var cQueue: OpaquePointer {
        if let known = OpaquePointer(bitPattern: nativeQueue.load(ordering: .relaxed)) { return known }
        let found = SystemQueueContext.cQueue(of: dispatchQueue)
        nativeQueue.store(UInt(bitPattern: Int(bitPattern: found)), ordering: .relaxed)
        return found
    }

    init(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: SystemQueue?) {
        self.label = label
        self.kind = kind
        var attributes: DispatchQueue.Attributes = kind == .concurrent ? [.concurrent] : []
        if startsInactive { attributes.insert(.initiallyInactive) }
        dispatchQueue = DispatchQueue(
            label: label, qos: qos?.dispatchQoS ?? .unspecified, attributes: attributes,
            target: target?.dispatchQueue)
        inactive = Atomic(startsInactive)
        isMain = false
        dispatchQueue.setSpecific(key: ownerKey, value: true)
    }

    /// Wraps a queue the library owns (the global queue; the main queue, `boundToMainThread`).
    init(wrapping queue: DispatchQueue, label: String, kind: QueueKind, boundToMainThread: Bool = false) {
        self.label = label
        self.kind = kind
        dispatchQueue = queue
        inactive = Atomic(false)
        isMain = boundToMainThread
        if kind == .serial { dispatchQueue.setSpecific(key: ownerKey, value: true) }
    }

    deinit {
        if suspensions.load(ordering: .relaxed) > 0 { misuse("released while suspended: queue '\(label)'") }
        if inactive.load(ordering: .relaxed) { misuse("released while inactive: queue '\(label)'") }
    }

    /// Whether the calling thread is running a block of this queue or of a queue targeting it, or, for the main
    /// queue, is the main thread (which libdispatch binds the main queue to).
    @inline(__always)
    private var callerDrainsThisQueue: Bool {
        // The Swift overlay uses the key object's address as the C key; asking C skips the overlay's boxing.
        dispatch_get_specific(UnsafeRawPointer(Unmanaged.passUnretained(ownerKey).toOpaque())) != nil
            || (isMain && clinux_is_main_thread() != 0)
    }

    /// Stops the process when the caller already drains this queue (libdispatch would die without a message).
    @usableFromInline
    func refuseSyncFromOwnQueue(barrier: Bool) {
        if callerDrainsThisQueue {
            misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
        }
    }

    public func async(_ block: @escaping @Sendable () -> Void) {
        dispatchQueue.async(execute: block)
    }

    public func barrierAsync(_ block: @escaping @Sendable () -> Void) {
        dispatchQueue.async(flags: .barrier, execute: block)
    }

    /// `@inlinable`, so it specialises where it is called and adds no generic layer of its own to the overlay's.
    @inlinable
    public func sync<T>(_ block: () throws -> T) rethrows -> T {
        if kind == .serial { refuseSyncFromOwnQueue(barrier: false) }
        var outcome: Result<T, any Error>?
        dispatchQueue.sync { outcome = Result { try block() } }
        return try Self.unwrap(outcome!, rescue: { throw $0 })
    }

    @inlinable
    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T {
        refuseSyncFromOwnQueue(barrier: true)
        var outcome: Result<T, any Error>?
        dispatchQueue.sync(flags: .barrier) { outcome = Result { try block() } }
        return try Self.unwrap(outcome!, rescue: { throw $0 })
    }

    /// The value or error a sync block produced, returned or rethrown.
    ///
    /// `sync` and `barrierSync` run their block inside the overlay's plain `() -> Void` overload and carry the
    /// outcome out in a local `Result`: the overlay's generic `sync<T>(execute:) rethrows` costs about 450 ns more per
    /// call on Linux (measured by the protocol-cost benchmark: ~720 against ~270 ns per serial sync), for its
    /// `withoutActuallyEscaping` and optional bookkeeping. `rescue` rethrows the error, since a rethrowing function may
    /// throw only through a closure argument.
    @inlinable
    static func unwrap<T>(_ outcome: Result<T, any Error>, rescue: (any Error) throws -> T) rethrows -> T {
        switch outcome {
        case .success(let value): return value
        case .failure(let error): return try rescue(error)
        }
    }

    public func async(_ item: SystemWorkItem) {
        if let barrier = item.barrierSubmission { return dispatchQueue.async(flags: .barrier, execute: barrier) }
        dispatchQueue.async(execute: item.dispatchItem)
    }

    public func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        dispatchQueue.asyncAfter(deadline: deadline.dispatchTime, execute: block)
    }

    public func asyncAfter(deadline: Deadline, _ item: SystemWorkItem) {
        if let barrier = item.barrierSubmission {
            return dispatchQueue.asyncAfter(deadline: deadline.dispatchTime, flags: .barrier, execute: barrier)
        }
        dispatchQueue.asyncAfter(deadline: deadline.dispatchTime, execute: item.dispatchItem)
    }

    public func setTarget(_ target: SystemQueue) {
        if !inactive.load(ordering: .relaxed) {
            misuse("setTarget on an active queue: queue '\(label)' (libdispatch allows it only before activation)")
        }
        dispatchQueue.setTarget(queue: target.dispatchQueue)
    }

    public func suspend() {
        suspensions.add(1, ordering: .relaxed)
        dispatchQueue.suspend()
    }

    public func resume() {
        if suspensions.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("over-resume: resume() without a matching suspend() on queue '\(label)'")
        }
        dispatchQueue.resume()
    }

    public func activate() {
        if inactive.exchange(false, ordering: .relaxed) { dispatchQueue.activate() }
    }

    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        dispatchQueue.setSpecific(key: key.dispatchKey, value: value.map(SpecificBox.init))
    }

    public func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        dispatchQueue.getSpecific(key: key.dispatchKey)?.value
    }

    public var context: QueueContext? {
        get { finalization.current }
        set { finalization.set(context: newValue, on: dispatchQueue) }
    }

    public func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) {
        finalization.set(finalizer: finalizer, on: dispatchQueue)
    }
}
