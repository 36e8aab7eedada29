/// A contender that stands for another layer (Foundation's operation queues, Swift's default executors) and borrows
/// the system engine's GCD objects: every GCD call it gets is the system engine's, at the system engine's cost.
///
/// Conforming takes `system` and the layer the contender is about; the GCD factory methods come from here. Such a
/// contender lacks `dispatch-objects`, so the GCD rules, the system engine's to keep, are not run twice.
public protocol SystemGCDBorrower: Engine
where Queue == SystemQueue, Group == SystemGroup, Semaphore == SystemSemaphore, Once == SystemOnce,
      UserDataSource == SystemUserDataSource, TimerSource == SystemTimerSource, DescriptorSource == SystemSource,
      SignalSource == SystemSource, ProcessSource == SystemSource, FileSource == SystemSource, Data == SystemData,
      IOChannel == SystemIOChannel {
    /// The engine whose GCD objects this contender hands out.
    var system: SystemEngine { get }
}

extension SystemGCDBorrower {
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
