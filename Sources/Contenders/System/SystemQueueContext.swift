import ArenaContract
import CDispatch
import Dispatch

/// A system queue's context and finalizer, handed to libdispatch's own `dispatch_set_context` and
/// `dispatch_set_finalizer_f`, so that libdispatch decides when the finalizer runs (after the queue's last reference
/// and last block), where (on its target) and whether (only with a context).
///
/// libdispatch's context is one pointer: while the context is set, it holds a retained `Payload` with the context and
/// the finalizer; while it is `nil`, the C context is NULL and libdispatch calls no finalizer. The Swift overlay does
/// not expose the C queue, so it is read once from the overlay's stored `__wrapped` field (by reflection, on the
/// first set; the overlay keeps the C queue there for the object's whole life).
final class SystemQueueContext: @unchecked Sendable {
    /// What libdispatch's finalizer receives.
    final class Payload {
        let context: QueueContext
        let finalizer: (@Sendable (QueueContext) -> Void)?
        init(context: QueueContext, finalizer: (@Sendable (QueueContext) -> Void)?) {
            self.context = context
            self.finalizer = finalizer
        }
    }

    private let lock = PthreadMutex()
    private var context: QueueContext?
    private var finalizer: (@Sendable (QueueContext) -> Void)?
    private var native: dispatch_object_t?

    var current: QueueContext? { lock.withLock { context } }

    func set(context newContext: QueueContext?, on queue: DispatchQueue) {
        lock.withLock {
            context = newContext
            install(on: queue)
        }
    }

    func set(finalizer newFinalizer: (@Sendable (QueueContext) -> Void)?, on queue: DispatchQueue) {
        lock.withLock {
            finalizer = newFinalizer
            install(on: queue)
        }
    }

    /// Replaces libdispatch's context with a payload of the current pair (or NULL), releasing the one it replaces.
    private func install(on queue: DispatchQueue) {
        let object = native ?? dispatch_object_t(_dq: Self.cQueue(of: queue))
        native = object
        let old = dispatch_get_context(object)
        let payload = context.map { Unmanaged.passRetained(Payload(context: $0, finalizer: finalizer)).toOpaque() }
        dispatch_set_context(object, payload)
        dispatch_set_finalizer_f(object, systemQueueFinalize)
        if let old { Unmanaged<Payload>.fromOpaque(old).release() }
    }

    /// The C queue the overlay wraps.
    static func cQueue(of queue: DispatchQueue) -> OpaquePointer {
        guard let wrapped = Mirror(reflecting: queue).children.first(where: { $0.label == "__wrapped" })?.value as? OpaquePointer else {
            preconditionFailure("system engine: the Dispatch overlay no longer keeps its C queue in '__wrapped'")
        }
        return wrapped
    }
}

/// libdispatch's finalizer: called on the target queue, only with a non-NULL context, which is a retained payload.
private func systemQueueFinalize(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    let payload = Unmanaged<SystemQueueContext.Payload>.fromOpaque(raw).takeRetainedValue()
    payload.finalizer?(payload.context)
}
