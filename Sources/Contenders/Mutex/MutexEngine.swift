import ArenaContract

/// The mutex engine: Grand Central Dispatch built the classic way, from pthread mutexes and condition variables,
/// on a pool of worker threads the engine owns (MADispatchQueue's design, carried through the whole contract).
///
/// Every object keeps its state under a pthread mutex of its own and waits on condition variables. A queue is a
/// `Deque` of items; when it has work it asks its target for a turn (a queue without a target asks the worker
/// pool), so a queue targeting a serial queue runs as one of that queue's blocks and a target chain is as wide as
/// its narrowest link. A serial queue runs one drainer at a time and yields after a batch; a concurrent queue runs
/// as many blocks as its target lets it, and a barrier waits for them to finish and runs alone. `sync` takes the
/// queue (and its whole target chain) and runs the block on the caller's thread when all of it is free; otherwise it
/// waits in the queue's FIFO on a condition variable and a drainer runs the block in order. The pool keeps one
/// runnable worker per CPU and starts another when workers block (up to 128 threads). It takes the most urgent
/// quality-of-service class first, and a drain gives its thread back between two blocks when a more urgent class is
/// waiting, which libdispatch on Linux does not do (`priority-scheduling`). One timer thread keeps a heap
/// of deadlines for asyncAfter and timer sources; an epoll reactor thread watches descriptors (pipes, pidfds, inotify
/// instances for process and file sources) and the process-wide
/// signal hub feeds signal sources (both neutral plumbing, in Contenders/Plumbing). Misuse stops the process with the object's label.
public struct MutexEngine: Engine {
    public typealias Queue = MutexQueue
    public typealias Group = MutexGroup
    public typealias Semaphore = MutexSemaphore
    public typealias Once = MutexOnce
    public typealias UserDataSource = MutexUserDataSource
    public typealias TimerSource = MutexTimerSource
    public typealias DescriptorSource = MutexDescriptorSource
    public typealias SignalSource = MutexSignalSource
    public typealias ProcessSource = MutexProcessSource
    public typealias FileSource = MutexFileSource
    public typealias Data = RegionData
    public typealias IOChannel = SourceIOChannel<MutexEngine>

    let runtime: MutexRuntime

    /// A new engine with a worker pool of its own.
    public init() { runtime = MutexRuntime() }

    public var name: String { "mutex" }

    public var summary: String {
        "GCD from pthread mutexes and condition variables, on a worker pool of its own (one runnable worker per CPU, most urgent class first)."
    }

    /// None: the pool runs the most urgent class first (`MutexReadyList`), going beyond the reference here.
    public var limits: [Capability: String] { [:] }

    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: MutexQueue?) -> MutexQueue {
        MutexQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target, runtime: runtime)
    }

    public var globalQueue: MutexQueue { runtime.global }

    public func globalQueue(qos: QoSClass) -> MutexQueue { runtime.globals[qos.rank] }

    /// Bookkeeping: the class of the innermost queue the thread runs (through its targets) and of the item it performs.
    public var currentQoS: QoSClass {
        PerformedItemClass.effective(queue: MutexThreadContext.current.innermost?.inheritedQoS)
    }

    /// A serial queue like any other, whose turns go to the main loop instead of the pool.
    public var mainQueue: MutexQueue { runtime.main }

    /// Runs the main queue's turns on the calling thread for good.
    public func dispatchMain() -> Never { runtime.mainLoop.run() }

    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        MutexThreadContext.current.innermost?.inheritedSpecific(key)
    }

    public func makeGroup(label: String) -> MutexGroup { MutexGroup(label: label) }

    public func makeSemaphore(value: Int) -> MutexSemaphore? { value < 0 ? nil : MutexSemaphore(value: value) }

    public func makeOnce(label: String) -> MutexOnce { MutexOnce(label: label) }

    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) {
        MutexApply.run(iterations: iterations, on: runtime.pool, body)
    }

    public func makeWorkItem(
        label: String, qos: QoSClass?, flags: WorkItemFlags,
        _ block: @escaping @Sendable () -> Void
    ) -> MutexWorkItem {
        MutexWorkItem(label: label, qos: qos, flags: flags, block: block)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: MutexQueue) -> MutexUserDataSource {
        MutexUserDataSource(label: label, merge: merge, queue: queue)
    }

    public func makeTimerSource(label: String, queue: MutexQueue) -> MutexTimerSource {
        MutexTimerSource(label: label, queue: queue, timers: runtime.timers)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: MutexQueue) -> MutexDescriptorSource {
        MutexDescriptorSource(
            label: label, descriptor: fileDescriptor, direction: .read, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: MutexQueue) -> MutexDescriptorSource {
        MutexDescriptorSource(
            label: label, descriptor: fileDescriptor, direction: .write, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeSignalSource(label: String, signal: Int32, queue: MutexQueue) -> MutexSignalSource {
        MutexSignalSource(label: label, signal: signal, queue: queue)
    }

    /// A pidfd watched by the reactor thread (beyond the reference: libdispatch on Linux has no process sources).
    public func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: MutexQueue
    ) -> MutexProcessSource {
        MutexProcessSource(label: label, processID: processID, events: events, queue: queue, reactor: runtime.reactor)
    }

    /// An inotify watch read by the reactor thread (beyond the reference: libdispatch on Linux has no file sources).
    public func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: MutexQueue
    ) -> MutexFileSource {
        MutexFileSource(
            label: label, fileDescriptor: fileDescriptor, events: events, queue: queue,
            reactor: runtime.reactor)
    }

    /// Stops and joins every thread this engine started. Nothing may be submitted to it afterwards.
    public func shutdown() { runtime.shutdown() }

    /// Threads the worker pool runs now.
    public var workerThreads: Int { runtime.pool.liveThreads }
}

extension MutexEngine: ThreadPoolEngine {}
