/// A contender that stands for one layer (an operation queue, Swift executors) and borrows every GCD object from
/// another engine, its lender: each GCD call it gets is the lender's, at the lender's cost.
///
/// Conforming takes a `lender` (`SystemEngine()` for the reference) and the layer the contender is about; the GCD
/// factory methods come from here, one forwarding call each. Such a contender should list `dispatch-objects` in its
/// limits, so that the GCD rules, the lender's to keep, are not run twice. `LayerContender` (in `Contenders`) is this
/// protocol with the system engine as the lender and the limits derived from the layers it brings: the short path.
public protocol GCDBorrower: Engine
where
    Queue == Lender.Queue, Group == Lender.Group, Semaphore == Lender.Semaphore, Once == Lender.Once,
    UserDataSource == Lender.UserDataSource, TimerSource == Lender.TimerSource,
    DescriptorSource == Lender.DescriptorSource, SignalSource == Lender.SignalSource,
    ProcessSource == Lender.ProcessSource, FileSource == Lender.FileSource, Data == Lender.Data,
    IOChannel == Lender.IOChannel
{
    /// The engine whose GCD objects this contender hands out.
    associatedtype Lender: Engine
    /// The engine whose GCD objects this contender hands out.
    var lender: Lender { get }
}

extension GCDBorrower {
    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: Lender.Queue?) -> Lender.Queue {
        lender.makeQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target)
    }

    public var globalQueue: Lender.Queue { lender.globalQueue }
    public func globalQueue(qos: QoSClass) -> Lender.Queue { lender.globalQueue(qos: qos) }
    public var currentQoS: QoSClass { lender.currentQoS }
    public var mainQueue: Lender.Queue { lender.mainQueue }
    public func dispatchMain() -> Never { lender.dispatchMain() }

    /// The value the executor layer keeps for the caller, where it keeps its own (`SpecificValueLayer`: a layer whose
    /// serial executors are no queues of the lender), else the lender's: a conformance check (cached by the runtime
    /// after the first) and one or two look-ups.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        if let layer = executors as? any SpecificValueLayer, let value = layer.currentSpecific(key) { return value }
        return lender.currentSpecific(key)
    }
    public func makeGroup(label: String) -> Lender.Group { lender.makeGroup(label: label) }
    public func makeSemaphore(value: Int) -> Lender.Semaphore? { lender.makeSemaphore(value: value) }
    public func makeOnce(label: String) -> Lender.Once { lender.makeOnce(label: label) }
    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) { lender.apply(iterations: iterations, body) }

    public func makeWorkItem(
        label: String, qos: QoSClass?, flags: WorkItemFlags,
        _ block: @escaping @Sendable () -> Void
    ) -> Lender.WorkItem {
        lender.makeWorkItem(label: label, qos: qos, flags: flags, block)
    }

    public func makeData(copying bytes: UnsafeRawBufferPointer) -> Lender.Data { lender.makeData(copying: bytes) }

    public func makeData(
        taking bytes: UnsafeRawBufferPointer, deallocateOn queue: Lender.Queue,
        _ deallocator: @escaping @Sendable () -> Void
    ) -> Lender.Data {
        lender.makeData(taking: bytes, deallocateOn: queue, deallocator)
    }

    public func makeIOChannel(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: Lender.Queue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) -> Lender.IOChannel {
        lender.makeIOChannel(label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue, cleanup: cleanup)
    }

    public func makeIOChannel(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: Lender.Queue, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> Lender.IOChannel {
        lender.makeIOChannel(label: label, kind: kind, path: path, flags: flags, mode: mode, queue: queue, cleanup: cleanup)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: Lender.Queue) -> Lender.UserDataSource {
        lender.makeUserDataSource(label: label, merge: merge, queue: queue)
    }

    public func makeTimerSource(label: String, queue: Lender.Queue) -> Lender.TimerSource {
        lender.makeTimerSource(label: label, queue: queue)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: Lender.Queue) -> Lender.DescriptorSource {
        lender.makeReadSource(label: label, fileDescriptor: fileDescriptor, queue: queue)
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: Lender.Queue) -> Lender.DescriptorSource {
        lender.makeWriteSource(label: label, fileDescriptor: fileDescriptor, queue: queue)
    }

    public func makeSignalSource(label: String, signal: Int32, queue: Lender.Queue) -> Lender.SignalSource {
        lender.makeSignalSource(label: label, signal: signal, queue: queue)
    }

    public func makeProcessSource(label: String, processID: Int32, events: ProcessEvents, queue: Lender.Queue) -> Lender.ProcessSource {
        lender.makeProcessSource(label: label, processID: processID, events: events, queue: queue)
    }

    public func makeFileSource(label: String, fileDescriptor: Int32, events: FileEvents, queue: Lender.Queue) -> Lender.FileSource {
        lender.makeFileSource(label: label, fileDescriptor: fileDescriptor, events: events, queue: queue)
    }
}

/// An executor layer whose serial executors keep the values set on them (`LayerSerialExecutor.setSpecific`) themselves,
/// because they run on threads of their own rather than on queues of the contender's engine: an event loop, a thread
/// per actor. A contender borrowing its GCD (`GCDBorrower`, `LayerContender`) asks the layer first in
/// `currentSpecific`, so the values are visible in the executors' jobs and blocks, as the executor rules expect; a
/// layer over the engine's own queues (`EngineExecutors`) needs none of this.
public protocol SpecificValueLayer: ExecutorLayer {
    /// The value for `key` set on the serial executor whose job or block the caller is running, or `nil` (not on one
    /// of the layer's serial executors, or no value there): what the contender's `currentSpecific` answers before
    /// asking its lender. Called by rules, not on hot paths; a thread-local read and a look-up is the expected cost.
    func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value?
}
