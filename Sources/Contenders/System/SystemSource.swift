import ArenaContract
import Dispatch
import Synchronization

/// A `DispatchSource` of any kind, plus the suspend and activation bookkeeping that names it in diagnostics.
public class SystemSource: EngineSource, @unchecked Sendable {
    public let label: String
    /// The wrapped source; libdispatch makes every kind as this one class.
    let source: DispatchSource
    private let suspensions = Atomic<Int>(0)
    private let inactive = Atomic<Bool>(true)
    /// Whether merges and handlers annotate their edge for ThreadSanitizer (decided once: false in a plain build).
    let annotatesForTSan = ThreadSanitizerAnnotations.isActive

    init(label: String, _ source: any DispatchSourceProtocol) {
        self.label = label
        self.source = source as! DispatchSource
    }

    deinit {
        if suspensions.load(ordering: .relaxed) > 0 { misuse("released while suspended: source '\(label)'") }
        if inactive.load(ordering: .relaxed) { misuse("released while inactive: source '\(label)'") }
    }

    public func setEventHandler(_ handler: (@Sendable () -> Void)?) {
        guard annotatesForTSan, let handler else { return source.setEventHandler(handler: handler) }
        // libdispatch orders a merge before the handler it causes, inside the library, where TSan does not look, and
        // TSan's libdispatch interceptors do not cover dispatch_source_merge_data: the edge is annotated here, with
        // the release in `SystemUserDataSource.merge`. Only under TSan; otherwise the handler is set as given.
        let key = Unmanaged.passUnretained(self).toOpaque()
        source.setEventHandler {
            ThreadSanitizerAnnotations.acquire(key)
            handler()
        }
    }

    public func setRegistrationHandler(_ handler: (@Sendable () -> Void)?) {
        source.setRegistrationHandler(handler: handler)
    }

    public func setCancelHandler(_ handler: (@Sendable () -> Void)?) {
        source.setCancelHandler(handler: handler)
    }

    public var data: UInt { source.data }

    public func activate() {
        if inactive.exchange(false, ordering: .relaxed) { source.activate() }
    }

    public func suspend() {
        suspensions.add(1, ordering: .relaxed)
        source.suspend()
    }

    public func resume() {
        if suspensions.subtract(1, ordering: .relaxed).newValue < 0 {
            misuse("over-resume: resume() without a matching suspend() on source '\(label)'")
        }
        source.resume()
    }

    public func cancel() { source.cancel() }

    public var isCancelled: Bool { source.isCancelled }
}

/// A user-data source of one merge kind.
public final class SystemUserDataSource: SystemSource, EngineUserDataSource, @unchecked Sendable {
    private let merge: DataMerge

    init(label: String, merge: DataMerge, queue: DispatchQueue) {
        self.merge = merge
        let source: any DispatchSourceProtocol =
            switch merge {
            case .add: DispatchSource.makeUserDataAddSource(queue: queue)
            case .or: DispatchSource.makeUserDataOrSource(queue: queue)
            case .replace: DispatchSource.makeUserDataReplaceSource(queue: queue)
            }
        super.init(label: label, source)
    }

    public func merge(_ value: UInt) {
        if annotatesForTSan { ThreadSanitizerAnnotations.release(Unmanaged.passUnretained(self).toOpaque()) }
        switch merge {
        case .add: source.add(data: value)
        case .or: source.or(data: value)
        case .replace: source.replace(data: value)
        }
    }
}

/// A timer source.
public final class SystemTimerSource: SystemSource, EngineTimerSource, @unchecked Sendable {
    init(label: String, queue: DispatchQueue) {
        super.init(label: label, DispatchSource.makeTimerSource(queue: queue))
    }

    public func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        source.schedule(
            deadline: deadline.dispatchTime,
            repeating: repeating.map { .nanoseconds(Int(clamping: $0.nanosecondsClamped)) } ?? .never,
            leeway: .nanoseconds(Int(clamping: leeway.nanosecondsClamped)))
    }
}
