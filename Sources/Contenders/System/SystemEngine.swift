import ArenaContract
import CDispatch
import Dispatch
import Glibc

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
    /// Never made: the capability is missing (see `limits`).
    public typealias ProcessSource = SystemSource
    /// Never made: the capability is missing (see `limits`).
    public typealias FileSource = SystemSource
    public typealias Data = SystemData
    public typealias IOChannel = SystemIOChannel

    public init() {}

    public var name: String { "system" }

    public var summary: String { "The system Dispatch library (libdispatch), wrapped without behaviour of its own." }

    public var limits: [Capability: String] {
        [
            .retargetActiveQueues: """
            libdispatch terminates the process when an active queue's target changes: the Swift overlay creates queues \
            with dispatch_queue_create_with_target, which are not 'legacy' queues (queue.h: "After an initially \
            inactive object has been activated, calling dispatch_set_target_queue() results in an assertion"; \
            measured: SIGILL in _dispatch_lane_set_target_queue)
            """,
            .descriptorHangUp: """
            libdispatch on Linux may crash the process when a read source's descriptor hangs up: the manager thread \
            takes the hang-up out of epoll, and a worker unregisters the source on its own (before any cancel) and \
            frees the epoll note while the manager's drain still holds it (measured with gdb: epoll_ctl DEL from \
            _dispatch_event_loop_drain, then from _dispatch_unote_unregister_muxed on a worker, then \
            dispatch_source_cancel; the crash is SIGSEGV in _dispatch_event_loop_drain reading a note whose memory \
            holds a Swift object). fd.read-end-of-file crashed 1 run in 100 under --stress here, 0 in 200 quiet, and \
            2 runs of 3 in a CI run
            """,
            .userInteractiveClass: """
            libdispatch on Linux has no user-interactive root queue: DispatchQueue.global(qos: .userInteractive) is \
            the user-initiated one (label com.apple.root.user-initiated-qos), and a queue created user-interactive \
            runs on its threads, at nice -2 like user-initiated (measured)
            """,
            .queueClassUnderTarget: """
            libdispatch on Linux runs the blocks of a queue made with a class of its own and a target of the \
            program's at the class of the chain's root: a background queue targeting a user-initiated one ran its \
            blocks at user-initiated (nice -2) in 20 of 20 (measured), as `arena explore` met it first (seed 7)
            """,
            .workItemQoS: """
            libdispatch on Linux does not apply a block's own class (no kernel workqueue QoS): a work item of class \
            user-initiated flagged enforceQoS runs at its queue's class, nice 0 on a queue without one and 2 on the \
            utility global queue, exactly as without the flag (measured, every class and flag)
            """,
            .priorityScheduling: """
            libdispatch on Linux runs each class on root-queue threads of its own, told apart only by nice value \
            (background 10 to user-initiated -2), so a saturated machine shares its CPUs among all of them: the rule \
            run with the capability claimed, 3 runs, at half done (100 of 200 blocks of 2 ms, bands started least \
            urgent first): background 1-5, utility 16-24, default 23-39, user-initiated 39-40, user-interactive 0-15 \
            (it shares user-initiated's root queue, behind that band); every run failed
            """,
            .processSources: """
            libdispatch on Linux has no process sources: source.h marks DISPATCH_SOURCE_TYPE_PROC \
            DISPATCH_LINUX_UNAVAILABLE(), libdispatch.so exports no _dispatch_source_type_proc (measured with nm -D: \
            data_add, data_or, data_replace, interval, read, signal, timer and write only), and the Swift overlay has \
            no DispatchSource.makeProcessSource (measured: "type 'DispatchSource' has no member 'makeProcessSource'")
            """,
            .fileSources: """
            libdispatch on Linux has no file (vnode) sources: source.h marks DISPATCH_SOURCE_TYPE_VNODE \
            DISPATCH_LINUX_UNAVAILABLE(), libdispatch.so exports no _dispatch_source_type_vnode (measured with nm -D), \
            and the Swift overlay has no DispatchSource.makeFileSystemObjectSource (measured: "type 'DispatchSource' \
            has no member 'makeFileSystemObjectSource'")
            """,
        ]
    }

    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: SystemQueue?) -> SystemQueue {
        SystemQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target)
    }

    /// The global queues by class, least urgent first.
    private static let globals = QoSClass.allCases.map { qos in
        SystemQueue(wrapping: .global(qos: qos.dispatchClass), label: "system.global.\(qos.rawValue)", kind: .concurrent)
    }

    public var globalQueue: SystemQueue { Self.globals[QoSClass.default.rank] }

    public func globalQueue(qos: QoSClass) -> SystemQueue { Self.globals[qos.rank] }

    /// Read from the thread's nice value, which libdispatch on Linux sets on each worker by the class of the root
    /// queue it serves (measured: background 10, utility 2, default 0, user-initiated and user-interactive -2, the
    /// same under `nice -n 5`); any other value, as on a thread libdispatch did not start, reads `.default`.
    public var currentQoS: QoSClass {
        switch getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) {
        case 10: .background
        case 2: .utility
        case -2: .userInitiated
        default: .default
        }
    }

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

    public func makeWorkItem(
        label: String, qos: QoSClass?, flags: WorkItemFlags,
        _ block: @escaping @Sendable () -> Void
    ) -> SystemWorkItem {
        SystemWorkItem(label: label, qos: qos, flags: flags, block: block)
    }

    public func makeData(copying bytes: UnsafeRawBufferPointer) -> SystemData { SystemData(copying: bytes) }

    public func makeData(
        taking bytes: UnsafeRawBufferPointer, deallocateOn queue: SystemQueue,
        _ deallocator: @escaping @Sendable () -> Void
    ) -> SystemData {
        SystemData(taking: bytes, queue: queue, deallocator)
    }

    public func makeIOChannel(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: SystemQueue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SystemIOChannel {
        SystemIOChannel(label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue, cleanup: cleanup)
    }

    public func makeIOChannel(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: SystemQueue, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SystemIOChannel {
        SystemIOChannel(label: label, kind: kind, path: path, flags: flags, mode: mode, queue: queue, cleanup: cleanup)
    }

    /// libdispatch's `dispatch_read`.
    public func read(
        fileDescriptor: Int32, length: Int, queue: SystemQueue, _ handler: @escaping @Sendable (SystemData, Int32) -> Void
    ) {
        dispatch_read(fileDescriptor, length, queue.cQueue) { data, error in handler(SystemData(borrowing: data), error) }
    }

    /// libdispatch's `dispatch_write`; an empty remainder is given as nil, as the contract says for a completed write.
    public func write(
        fileDescriptor: Int32, data: SystemData, queue: SystemQueue, _ handler: @escaping @Sendable (SystemData?, Int32) -> Void
    ) {
        dispatch_write(fileDescriptor, data.object.data, queue.cQueue) { unwritten, error in
            let rest = unwritten.map(SystemData.init(borrowing:))
            handler(error == 0 && (rest?.count ?? 0) == 0 ? nil : rest, error)
        }
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

    /// Stops the process: libdispatch on Linux has no process sources (see `limits`).
    public func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: SystemQueue
    ) -> SystemSource {
        misuse("process source '\(label)' needs process-sources, which the system engine lacks on Linux")
    }

    /// Stops the process: libdispatch on Linux has no file sources (see `limits`).
    public func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: SystemQueue
    ) -> SystemSource {
        misuse("file source '\(label)' needs file-sources, which the system engine lacks on Linux")
    }
}

extension Deadline {
    /// The same instant as a `DispatchTime` (both read CLOCK_MONOTONIC on Linux); the Foundation contender's waits use
    /// it too.
    package var dispatchTime: DispatchTime {
        isDistantFuture ? .distantFuture : DispatchTime(uptimeNanoseconds: Swift.max(nanoseconds, 1))
    }
}

extension QoSClass {
    /// The Dispatch class of the same name.
    var dispatchClass: DispatchQoS.QoSClass {
        switch self {
        case .background: .background
        case .utility: .utility
        case .default: .default
        case .userInitiated: .userInitiated
        case .userInteractive: .userInteractive
        }
    }

    /// The Dispatch class of the same name, at relative priority 0.
    var dispatchQoS: DispatchQoS { DispatchQoS(qosClass: dispatchClass, relativePriority: 0) }
}

extension WaitResult {
    init(_ result: DispatchTimeoutResult) {
        self = result == .success ? .success : .timedOut
    }
}
