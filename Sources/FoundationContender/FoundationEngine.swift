import Contenders

/// Foundation's own `OperationQueue`, the reference for operation queues: a contender whose operation layer is
/// Foundation's (`FoundationOperations`) and whose GCD objects are the system engine's, which Foundation runs on.
///
/// Its column in the conformance matrix is about operation queues only: it lacks `dispatch-objects`, so the GCD
/// rules, which are the system engine's to keep, are reported unsupported here rather than run twice. Every GCD
/// call it gets is the system engine's, at the system engine's cost.
public struct FoundationEngine: Engine {
    public typealias Queue = SystemQueue
    public typealias Group = SystemGroup
    public typealias Semaphore = SystemSemaphore
    public typealias Once = SystemOnce
    public typealias UserDataSource = SystemUserDataSource
    public typealias TimerSource = SystemTimerSource
    public typealias DescriptorSource = SystemSource
    public typealias SignalSource = SystemSource
    public typealias ProcessSource = SystemSource
    public typealias FileSource = SystemSource
    public typealias Data = SystemData
    public typealias IOChannel = SystemIOChannel

    private let system = SystemEngine()

    public init() {}

    public var name: String { "foundation" }

    public var summary: String {
        "Foundation's OperationQueue and BlockOperation (swift-corelibs-foundation), the reference for operation queues; its GCD is the system engine's."
    }

    public var limits: [Capability: String] {
        var limits = system.limits
        limits[.dispatchObjects] = """
            the foundation contender is Foundation's OperationQueue, checked on the operation-queue rules; its \
            queues, groups and sources are libdispatch's, which the system column checks
            """
        limits[.removeDependency] = """
            swift-corelibs-foundation's Operation.removeDependency lowers the count of unfinished dependencies only \
            when the removed one is finished and the operation cancelled (`if canidate._state == .finished && \
            _isCancelled { _decrementUnfinishedDependencyCount() }`), so removing an unfinished dependency never makes \
            the operation ready: op.remove-dependency run with the capability claimed failed 3 runs of 3 and 10 of 10 \
            direct runs ("the operation reporting isReady after its last unfinished dependency was removed did not \
            happen within 2.0 seconds")
            """
        return limits
    }

    /// Foundation's `OperationQueue`, behind the layer protocol. A cheap value.
    public var operations: FoundationOperations { FoundationOperations() }

    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: SystemQueue?) -> SystemQueue {
        system.makeQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target)
    }

    public var globalQueue: SystemQueue { system.globalQueue }
    public func globalQueue(qos: QoSClass) -> SystemQueue { system.globalQueue(qos: qos) }
    public var currentQoS: QoSClass { system.currentQoS }
    public var mainQueue: SystemQueue { system.mainQueue }
    public func dispatchMain() -> Never { system.dispatchMain() }
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? { system.currentSpecific(key) }
    public func makeGroup(label: String) -> SystemGroup { system.makeGroup(label: label) }
    public func makeSemaphore(value: Int) -> SystemSemaphore? { system.makeSemaphore(value: value) }
    public func makeOnce(label: String) -> SystemOnce { system.makeOnce(label: label) }
    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) { system.apply(iterations: iterations, body) }

    public func makeWorkItem(label: String, qos: QoSClass?, flags: WorkItemFlags,
                             _ block: @escaping @Sendable () -> Void) -> SystemWorkItem {
        system.makeWorkItem(label: label, qos: qos, flags: flags, block)
    }

    public func makeData(copying bytes: UnsafeRawBufferPointer) -> SystemData { system.makeData(copying: bytes) }

    public func makeData(taking bytes: UnsafeRawBufferPointer, deallocateOn queue: SystemQueue,
                         _ deallocator: @escaping @Sendable () -> Void) -> SystemData {
        system.makeData(taking: bytes, deallocateOn: queue, deallocator)
    }

    public func makeIOChannel(label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: SystemQueue,
                              cleanup: @escaping @Sendable (Int32) -> Void) -> SystemIOChannel {
        system.makeIOChannel(label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue, cleanup: cleanup)
    }

    public func makeIOChannel(label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
                              queue: SystemQueue, cleanup: @escaping @Sendable (Int32) -> Void) -> SystemIOChannel {
        system.makeIOChannel(label: label, kind: kind, path: path, flags: flags, mode: mode, queue: queue, cleanup: cleanup)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: SystemQueue) -> SystemUserDataSource {
        system.makeUserDataSource(label: label, merge: merge, queue: queue)
    }

    public func makeTimerSource(label: String, queue: SystemQueue) -> SystemTimerSource {
        system.makeTimerSource(label: label, queue: queue)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: SystemQueue) -> SystemSource {
        system.makeReadSource(label: label, fileDescriptor: fileDescriptor, queue: queue)
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: SystemQueue) -> SystemSource {
        system.makeWriteSource(label: label, fileDescriptor: fileDescriptor, queue: queue)
    }

    public func makeSignalSource(label: String, signal: Int32, queue: SystemQueue) -> SystemSource {
        system.makeSignalSource(label: label, signal: signal, queue: queue)
    }

    public func makeProcessSource(label: String, processID: Int32, events: ProcessEvents, queue: SystemQueue) -> SystemSource {
        system.makeProcessSource(label: label, processID: processID, events: events, queue: queue)
    }

    public func makeFileSource(label: String, fileDescriptor: Int32, events: FileEvents, queue: SystemQueue) -> SystemSource {
        system.makeFileSource(label: label, fileDescriptor: fileDescriptor, events: events, queue: queue)
    }
}
