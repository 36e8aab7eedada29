/// A GCD-style concurrency engine: the factory for every object of the Grand Central Dispatch contract.
///
/// Code that drives an engine is generic over `E: Engine`, so every call is direct and specialisable; `any Engine`
/// appears only where a name from the command line becomes an engine (a `Contender` of the lineup), and a contender
/// measures through a closure compiled for the concrete type. An engine value is a cheap handle: copying it shares
/// the same worker threads and global queue.
public protocol Engine: Sendable {
    /// The engine's serial and concurrent queues.
    associatedtype Queue: EngineQueue
    /// Groups that track work on this engine's queues.
    associatedtype Group: EngineGroup where Group.Queue == Queue
    /// Counting semaphores.
    associatedtype Semaphore: EngineSemaphore
    /// Tokens whose body runs exactly once.
    associatedtype Once: EngineOnce
    /// Sources fed by `merge` (add, or, replace).
    associatedtype UserDataSource: EngineUserDataSource
    /// Timer sources.
    associatedtype TimerSource: EngineTimerSource
    /// Read and write sources on file descriptors.
    associatedtype DescriptorSource: EngineSource
    /// Signal sources.
    associatedtype SignalSource: EngineSource
    /// Sources reporting a process's exit (`ProcessEvents`).
    associatedtype ProcessSource: EngineSource
    /// Sources reporting changes to a file or directory (`FileEvents`).
    associatedtype FileSource: EngineSource
    /// Buffers of bytes in disjoint regions.
    associatedtype Data: EngineData
    /// Asynchronous channels over file descriptors, delivering and taking the engine's buffers.
    associatedtype IOChannel: EngineIOChannel where IOChannel.Queue == Queue, IOChannel.Data == Data
    /// The operation-queue layer over this engine: `EngineOperations<Self, PriorityReadyList, WidthAdmission>`,
    /// Foundation's `OperationQueue` contract built from the engine's queues and groups, unless the engine brings its
    /// own.
    associatedtype Operations: OperationLayer = EngineOperations<Self, PriorityReadyList, WidthAdmission>
    /// This engine's operation-queue layer. A cheap value.
    var operations: Operations { get }
    /// Swift executors over this engine: `EngineExecutors<Self>`, a serial executor per actor over the engine's serial
    /// queues and its global queue as a task executor, unless the engine brings its own.
    associatedtype Executors: ExecutorLayer = EngineExecutors<Self>
    /// This engine's executor layer. A cheap value.
    var executors: Executors { get }

    /// Work items; they are submitted with `Queue.async(_:)`, so the queue names their type.
    typealias WorkItem = Queue.WorkItem

    /// The engine's registry name (`system`, `mutex`, …).
    var name: String { get }

    /// One sentence on how the engine is built.
    var summary: String { get }

    /// The capabilities this engine lacks, each with the reason a reader should accept.
    var limits: [Capability: String] { get }

    /// The departures from the contract documented as this implementation's own (a reference's races, each with its
    /// finding), so that a report names them as the reference's and the exit code leaves them out; none by default.
    /// An engine under test declares none: its failures are failures.
    var deviations: [KnownDeviation] { get }

    /// A new queue. An inactive queue runs nothing until `activate()`; `target` defaults to the global queue. A queue
    /// with a `qos` class runs its blocks at it; one without runs them at its target's class.
    func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: Queue?) -> Queue

    /// The engine's global concurrent queue of the default class, shared by every caller.
    var globalQueue: Queue { get }

    /// The global concurrent queue of class `qos`, shared by every caller; `.default` gives `globalQueue`. Its blocks
    /// run at `qos`, and a queue targeting it without a class of its own runs at it too.
    func globalQueue(qos: QoSClass) -> Queue

    /// The class the calling block runs at (see `QoSClass.effective`): the class of the queue running it (its own,
    /// or its target's), or of the work item it performs where the item's class applies. `.default` on a thread
    /// that runs no block of the engine. For reading, not for hot paths: `system` asks the kernel (a system call).
    var currentQoS: QoSClass { get }

    /// The engine's main queue: a serial queue whose blocks run, in submission order, on the main-loop thread (the
    /// one in `dispatchMain()`). `sync` onto it from another thread runs the block there too: a hand-off that costs
    /// two thread switches. Blocks submitted before the loop starts wait for it.
    var mainQueue: Queue { get }

    /// Makes the calling thread the engine's main-loop thread and runs the main queue's blocks on it for the rest of
    /// the process. Calling it twice is misuse; `system` must be called on the process's main thread.
    func dispatchMain() -> Never

    /// The value for `key` as seen from the caller: set on the queue whose block is running, or on the nearest
    /// queue along its target chain; `nil` on a plain thread.
    func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value?

    /// A new, empty group. `label` names it in diagnostics.
    func makeGroup(label: String) -> Group

    /// A semaphore starting at `value`; `nil` when `value` is negative (libdispatch returns NULL there).
    func makeSemaphore(value: Int) -> Semaphore?

    /// A new once token. `label` names it in diagnostics.
    func makeOnce(label: String) -> Once

    /// Runs `body` once for every index in `0..<iterations`, in parallel where workers are free, and returns after
    /// every call returned. The caller takes part. `iterations == 0` returns at once.
    func apply(iterations: Int, _ body: @Sendable (Int) -> Void)

    /// A work item wrapping `block`, run as `flags` say; with a `qos` class, it runs at it where `flags` and the
    /// queue's class let it (`QoSClass.effective`). `label` names it in diagnostics.
    func makeWorkItem(label: String, qos: QoSClass?, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void) -> WorkItem

    /// A buffer holding a copy of `bytes`; with none, the empty buffer.
    func makeData(copying bytes: UnsafeRawBufferPointer) -> Data

    /// A buffer of `bytes` as they are, not copied: the caller hands them over and must not change them. Once the
    /// last buffer sharing them is gone, `deallocator` is submitted to `queue`, exactly once.
    func makeData(
        taking bytes: UnsafeRawBufferPointer, deallocateOn queue: Queue,
        _ deallocator: @escaping @Sendable () -> Void
    ) -> Data

    /// A channel over `fileDescriptor`, which it owns from now until `cleanup` runs on `queue`: once, after the
    /// channel was closed (or released) and its last operation ended, with 0 or the error that ended the channel.
    /// The cleanup handler is where the caller may close the descriptor again.
    func makeIOChannel(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: Queue,
        cleanup: @escaping @Sendable (_ error: Int32) -> Void
    ) -> IOChannel

    /// A channel over the file at the absolute `path`, opened with `flags` and `mode` (as `open(2)` takes them) when
    /// its first operation is ready to run, not before; an error opening it ends that operation and every later one,
    /// and reaches `cleanup`. The channel closes the descriptor itself, before `cleanup` runs on `queue`.
    func makeIOChannel(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32, queue: Queue,
        cleanup: @escaping @Sendable (_ error: Int32) -> Void
    ) -> IOChannel

    /// Reads `length` bytes from `fileDescriptor`, as a stream, and calls `handler` once on `queue` (`dispatch_read`):
    /// with the bytes read, at most `length`, and 0 (no bytes and 0: the end of file came first), or with the bytes
    /// read before an error and the error. libdispatch delivers what the descriptor holds at its first read (io.h:
    /// 'only as much data as is currently available'); the default reads on to the length or the end of file. The descriptor stays the
    /// caller's, who must not read it or change its flags until the handler runs. By default a stream channel of the
    /// engine's own (`makeIOChannel`) that gathers the reads and is closed at the end: a channel, a queue and a
    /// block per run of bytes; `system` calls libdispatch's.
    func read(fileDescriptor: Int32, length: Int, queue: Queue, _ handler: @escaping @Sendable (_ data: Data, _ error: Int32) -> Void)

    /// Writes `data` to `fileDescriptor`, as a stream, and calls `handler` once on `queue` (`dispatch_write`): with nil
    /// and 0 once every byte was written, or with the error that ended the write (and the bytes left unwritten, where
    /// it began: libdispatch gives none for a bad descriptor). The
    /// descriptor stays the caller's, as for `read`. By default a stream channel of the engine's own, as `read`;
    /// `system` calls libdispatch's.
    func write(fileDescriptor: Int32, data: Data, queue: Queue, _ handler: @escaping @Sendable (_ unwritten: Data?, _ error: Int32) -> Void)

    /// A new, inactive user-data source whose handlers run on `queue`.
    func makeUserDataSource(label: String, merge: DataMerge, queue: Queue) -> UserDataSource

    /// A new, inactive, unscheduled timer source whose handlers run on `queue`.
    func makeTimerSource(label: String, queue: Queue) -> TimerSource

    /// A new, inactive source that fires while `fileDescriptor` has bytes to read; `data` is the bytes available.
    func makeReadSource(label: String, fileDescriptor: Int32, queue: Queue) -> DescriptorSource

    /// A new, inactive source that fires while `fileDescriptor` can take bytes; `data` is an estimate of the room.
    func makeWriteSource(label: String, fileDescriptor: Int32, queue: Queue) -> DescriptorSource

    /// A new, inactive source counting deliveries of `signal`; the caller must set the signal's disposition to
    /// ignore first, or the signal's default action runs.
    func makeSignalSource(label: String, signal: Int32, queue: Queue) -> SignalSource

    /// A new, inactive source reporting `events` of process `processID`; `data` is the `ProcessEvents` mask seen
    /// since the last call. Exit is reported once, after the process exited; a process that had already exited
    /// (a zombie, or gone) is reported exited at once, as libdispatch does. Once the registration handler ran, the
    /// source is watching. An engine without `process-sources` stops the process here.
    func makeProcessSource(label: String, processID: Int32, events: ProcessEvents, queue: Queue) -> ProcessSource

    /// A new, inactive source reporting `events` on the file or directory open as `fileDescriptor`; `data` is the
    /// `FileEvents` mask seen since the last call. The descriptor stays the caller's: close it in the cancel
    /// handler, not before. Once the registration handler ran, the source is watching. An engine without
    /// `file-sources` stops the process here.
    func makeFileSource(label: String, fileDescriptor: Int32, events: FileEvents, queue: Queue) -> FileSource
}

/// Whether a queue runs one block at a time or many.
public enum QueueKind: String, Sendable, Codable {
    /// One block at a time, in submission order.
    case serial
    /// Many blocks at once, started in submission order; barriers run alone.
    case concurrent
}

/// How a user-data source combines merged values with its pending data.
public enum DataMerge: String, Sendable, Codable, CaseIterable {
    /// Pending data is the sum of the values merged since the last handler call.
    case add
    /// Pending data is the bitwise OR of the values merged since the last handler call.
    case or
    /// Pending data is the last value merged.
    case replace
}

extension Engine where Operations == EngineOperations<Self, PriorityReadyList, WidthAdmission> {
    /// The default layer: the engine's own queues and groups under Foundation's contract. Free to make.
    public var operations: EngineOperations<Self, PriorityReadyList, WidthAdmission> { EngineOperations(self) }
}

extension Engine where Executors == EngineExecutors<Self> {
    /// The default layer: the engine's serial queues as serial executors, its global queue as a task executor. Free
    /// to make.
    public var executors: EngineExecutors<Self> { EngineExecutors(self) }
}

extension Engine {
    /// The engine as plain data: its name, summary, limits and deviations (`EngineProfile`), the capability check
    /// included.
    public var profile: EngineProfile { EngineProfile(self) }

    /// None: an engine declares the deviations documented as its own.
    public var deviations: [KnownDeviation] { [] }

    /// The capabilities this engine has: those it does not list in `limits`, within the layers it has.
    public var capabilities: [Capability] { profile.capabilities }

    /// A work item wrapping `block`, with no flags and no class.
    public func makeWorkItem(label: String, _ block: @escaping @Sendable () -> Void) -> WorkItem {
        makeWorkItem(label: label, qos: nil, flags: [], block)
    }

    /// A work item wrapping `block`, run as `flags` say, with no class.
    public func makeWorkItem(label: String, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void) -> WorkItem {
        makeWorkItem(label: label, qos: nil, flags: flags, block)
    }

    /// A new active queue of `kind`, with no class, targeting the global queue.
    public func makeQueue(label: String, kind: QueueKind = .serial) -> Queue {
        makeQueue(label: label, kind: kind, qos: nil, startsInactive: false, target: nil)
    }

    /// A new queue with no class of its own.
    public func makeQueue(label: String, kind: QueueKind, startsInactive: Bool, target: Queue?) -> Queue {
        makeQueue(label: label, kind: kind, qos: nil, startsInactive: startsInactive, target: target)
    }
}
