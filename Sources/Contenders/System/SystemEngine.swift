import Dispatch

/// The reference engine: a thin wrapper over the system Dispatch library (swift-corelibs-libdispatch on Linux).
///
/// Every behaviour is libdispatch's own. The wrappers add only what the protocol's shape needs and one thing the
/// library does not give on Linux: a message naming the object when the program misuses it. libdispatch detects
/// misuse there too but dies with SIGILL and no text, so each wrapper keeps the smallest state that names the object
/// (see docs/ARCHITECTURE.md, "Misuse"). The cost on a hot path is one `dispatch_get_specific` before a serial sync.
public struct SystemEngine: Engine {
    public typealias Queue = SystemQueue
    public typealias Group = SystemGroup
    public typealias Semaphore = SystemSemaphore
    public typealias Once = SystemOnce
    public typealias UserDataSource = SystemUserDataSource
    public typealias TimerSource = SystemTimerSource
    public typealias DescriptorSource = SystemSource
    public typealias SignalSource = SystemSource

    public init() {}

    public var name: String { "system" }

    public var summary: String { "The system Dispatch library (libdispatch), wrapped without behaviour of its own." }

    public var limits: [Capability: String] {
        [.retargetActiveQueues: """
            libdispatch terminates the process when an active queue's target changes: the Swift overlay creates queues \
            with dispatch_queue_create_with_target, which are not 'legacy' queues (queue.h: "After an initially \
            inactive object has been activated, calling dispatch_set_target_queue() results in an assertion"; \
            measured: SIGILL in _dispatch_lane_set_target_queue)
            """]
    }

    public func makeQueue(label: String, kind: QueueKind, startsInactive: Bool, target: SystemQueue?) -> SystemQueue {
        SystemQueue(label: label, kind: kind, startsInactive: startsInactive, target: target)
    }

    private static let global = SystemQueue(wrapping: .global(), label: "system.global", kind: .concurrent)

    public var globalQueue: SystemQueue { Self.global }

    private static let main = SystemQueue(wrapping: .main, label: "main", kind: .serial, boundToMainThread: true)

    /// `DispatchQueue.main`, drained on the main thread by `dispatchMain()`.
    public var mainQueue: SystemQueue { Self.main }

    /// Drains the main queue on the process's main thread for good (see `SystemMainLoop`); misuse on any other thread.
    public func dispatchMain() -> Never { SystemMainLoop.run() }

    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        DispatchQueue.getSpecific(key: key.dispatchKey)?.value
    }

    public func makeGroup(label: String) -> SystemGroup { SystemGroup(label: label) }

    public func makeSemaphore(value: Int) -> SystemSemaphore? {
        // dispatch_semaphore_create returns NULL for a negative value (measured); the Swift overlay hides that.
        value < 0 ? nil : SystemSemaphore(value: value)
    }

    public func makeOnce(label: String) -> SystemOnce { SystemOnce(label: label) }

    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
    }

    public func makeWorkItem(label: String, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void) -> SystemWorkItem {
        SystemWorkItem(label: label, flags: flags, block: block)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: SystemQueue) -> SystemUserDataSource {
        SystemUserDataSource(label: label, merge: merge, queue: queue.dispatchQueue)
    }

    public func makeTimerSource(label: String, queue: SystemQueue) -> SystemTimerSource {
        SystemTimerSource(label: label, queue: queue.dispatchQueue)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: SystemQueue) -> SystemSource {
        SystemSource(label: label, DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue.dispatchQueue))
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: SystemQueue) -> SystemSource {
        SystemSource(label: label, DispatchSource.makeWriteSource(fileDescriptor: fileDescriptor, queue: queue.dispatchQueue))
    }

    public func makeSignalSource(label: String, signal: Int32, queue: SystemQueue) -> SystemSource {
        SystemSource(label: label, DispatchSource.makeSignalSource(signal: signal, queue: queue.dispatchQueue))
    }
}

extension Deadline {
    /// The same instant as a `DispatchTime` (both read CLOCK_MONOTONIC on Linux).
    var dispatchTime: DispatchTime {
        isDistantFuture ? .distantFuture : DispatchTime(uptimeNanoseconds: Swift.max(nanoseconds, 1))
    }
}

extension WaitResult {
    init(_ result: DispatchTimeoutResult) {
        self = result == .success ? .success : .timedOut
    }
}
