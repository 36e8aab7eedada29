import ArenaContract
import Conformance
import Contenders
import Glibc
import Harness
import Synchronization

/// A base engine with one deliberate fault (see `Fault`); the base is the system engine unless the fault says
/// otherwise (`Mutants.base(for:)`). Each wrapper forwards to the base engine's object and misbehaves only where its
/// fault says; nothing else differs, so a rule that a mutant fails is failed by the fault.
struct MutantEngine<Base: Engine>: Engine {
    typealias Queue = MutantQueue<Base>
    typealias Group = MutantGroup<Base>
    typealias Semaphore = MutantSemaphore<Base>
    typealias Once = MutantOnce<Base>
    typealias UserDataSource = MutantUserDataSource<Base>
    typealias TimerSource = MutantTimerSource<Base>
    typealias DescriptorSource = MutantSource<Base>
    typealias SignalSource = MutantSource<Base>
    typealias ProcessSource = MutantSource<Base>
    typealias FileSource = MutantSource<Base>
    typealias Data = MutantData<Base>
    typealias IOChannel = MutantIOChannel<Base>
    /// The base engine's operation layer with the fault applied: built on the base engine's own (correct) queues, so a
    /// GCD fault leaves the operation rules alone and an operation fault touches nothing else.
    typealias Operations = MutantOperations<Base.Operations>
    /// Executors over the base engine's own queues with the fault applied (`MutantExecutors`): a GCD or operation
    /// fault leaves them alone, and an executor fault touches nothing else.
    typealias Executors = MutantExecutors<Base>

    let fault: Fault
    let base: Base
    let shared: MutantShared<Base>

    init(_ fault: Fault, base: Base) {
        self.fault = fault
        self.base = base
        shared = MutantShared(fault: fault, base: base)
    }

    var name: String { Mutants.name(of: fault) }
    var operations: MutantOperations<Base.Operations> { MutantOperations(fault: fault, base: base.operations) }
    var executors: MutantExecutors<Base> { MutantExecutors(shared: shared) }
    var summary: String { "The \(base.name) engine with one fault, \(fault.rawValue): \(fault.summary)." }

    var limits: [Capability: String] {
        var limits = base.limits
        if fault == .retargetIgnored { limits[.retargetActiveQueues] = nil }
        if fault == .priorityUnordered { limits[.priorityScheduling] = nil }
        return limits
    }

    func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: MutantQueue<Base>?) -> MutantQueue<Base> {
        var underlying = kind
        if fault == .serialOverlaps && kind == .serial { underlying = .concurrent }
        if fault == .concurrentIsSerial && kind == .concurrent { underlying = .serial }
        let inactive = fault == .inactiveIgnored ? false : startsInactive
        let bypassed = fault == .targetIgnored || (fault == .mainTargetBypassed && target === shared.main)
        let baseTarget = bypassed ? nil : target?.base
        var qos = fault == .queueClassIgnored ? nil : qos
        if fault == .userInteractiveDemoted && qos == .userInteractive { qos = .userInitiated }
        let made = base.makeQueue(label: label, kind: underlying, qos: qos, startsInactive: inactive, target: baseTarget)
        let gate =
            fault == .suspendSkipsTargeters
            ? base.makeQueue(label: "\(label).gate", kind: underlying, qos: nil, startsInactive: false, target: made) : nil
        return MutantQueue(base: made, kind: kind, inactive: inactive, shared: shared, ownQoS: qos, gate: gate)
    }

    var globalQueue: MutantQueue<Base> { shared.global }

    func globalQueue(qos: QoSClass) -> MutantQueue<Base> {
        switch fault {
        case .globalClassIgnored: shared.global
        case .userInteractiveDemoted where qos == .userInteractive: shared.globals[QoSClass.userInitiated.rank]
        default: shared.globals[qos.rank]
        }
    }

    var currentQoS: QoSClass {
        if fault == .targetClassIgnored, let running = MutantQueueClass.running { return running ?? .default }
        return base.currentQoS
    }

    var mainQueue: MutantQueue<Base> { shared.main }

    func dispatchMain() -> Never { base.dispatchMain() }

    func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        if fault == .specificLeaks { return shared.leaked.withLock { $0[ObjectIdentifier(key)] } as? Value }
        return base.currentSpecific(key)
    }

    func makeGroup(label: String) -> MutantGroup<Base> { MutantGroup(base: base.makeGroup(label: label), shared: shared) }

    func makeSemaphore(value: Int) -> MutantSemaphore<Base>? {
        if value < 0 && fault == .negativeAccepted { return base.makeSemaphore(value: 0).map { MutantSemaphore(base: $0, fault: fault) } }
        let admitted = fault == .semaphoreOverAdmits ? value + 1 : value
        return base.makeSemaphore(value: admitted).map { MutantSemaphore(base: $0, fault: fault) }
    }

    func makeOnce(label: String) -> MutantOnce<Base> { MutantOnce(base: base.makeOnce(label: label), fault: fault) }

    func apply(iterations: Int, _ body: @Sendable (Int) -> Void) {
        switch fault {
        case .applySkipsLast:
            base.apply(iterations: max(0, iterations - 1), body)
        case .applyZeroRunsOnce where iterations == 0:
            body(0)
        case .applySerial:
            for index in 0..<iterations { body(index) }
        case .applyRepeatsIndex where iterations > 0:
            base.apply(iterations: iterations, body)
            body(0)
        case .applyWaitsForWorkers:
            withoutActuallyEscaping(body) { body in
                let group = base.makeGroup(label: "mutant.apply")
                for index in 0..<iterations { group.async(on: base.globalQueue) { body(index) } }
                _ = group.wait(until: .distantFuture)
            }
        default:
            base.apply(iterations: iterations, body)
        }
    }

    func makeWorkItem(label: String, qos: QoSClass?, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void) -> MutantWorkItem<Base>
    {
        var flags = fault == .barrierFlagIgnored ? flags.subtracting(.barrier) : flags
        if fault == .itemClassAlwaysEnforced { flags.insert(.enforceQoS) }
        let qos = fault == .itemClassIgnored ? nil : qos
        if fault == .notifyLostWhileFinishing {
            let notifies = MutantNotifyList<Base>()
            let item = base.makeWorkItem(label: label, qos: qos, flags: flags) {
                block()
                notifies.finish()
            }
            return MutantWorkItem(base: item, fault: fault, notifies: notifies)
        }
        return MutantWorkItem(base: base.makeWorkItem(label: label, qos: qos, flags: flags, block), fault: fault)
    }

    func makeData(copying bytes: UnsafeRawBufferPointer) -> MutantData<Base> {
        MutantData(base.makeData(copying: bytes), engine: base, fault: fault)
    }

    func makeData(
        taking bytes: UnsafeRawBufferPointer, deallocateOn queue: MutantQueue<Base>,
        _ deallocator: @escaping @Sendable () -> Void
    ) -> MutantData<Base> {
        let target = fault == .deallocatorOffQueue ? base.globalQueue : queue.base
        return MutantData(base.makeData(taking: bytes, deallocateOn: target, deallocator), engine: base, fault: fault)
    }

    func makeIOChannel(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: MutantQueue<Base>,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) -> MutantIOChannel<Base> {
        MutantIOChannel(
            engine: base, fault: fault, label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue,
            cleanup: cleanup)
    }

    func makeIOChannel(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32, queue: MutantQueue<Base>,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) -> MutantIOChannel<Base> {
        MutantIOChannel(
            engine: base, fault: fault, label: label, kind: kind, path: path, flags: flags, mode: mode,
            queue: queue, cleanup: cleanup)
    }

    func makeUserDataSource(label: String, merge: DataMerge, queue: MutantQueue<Base>) -> MutantUserDataSource<Base> {
        let kind: DataMerge = fault == .sourceMergesAsAdd ? .add : merge
        let target = fault == .sourceHandlerOffQueue ? base.globalQueue : queue.base
        return MutantUserDataSource(
            base: base.makeUserDataSource(label: label, merge: kind, queue: target),
            shared: shared, queue: queue.base)
    }

    func makeTimerSource(label: String, queue: MutantQueue<Base>) -> MutantTimerSource<Base> {
        MutantTimerSource(base: base.makeTimerSource(label: label, queue: queue.base), shared: shared)
    }

    func makeReadSource(label: String, fileDescriptor: Int32, queue: MutantQueue<Base>) -> MutantSource<Base> {
        MutantSource(
            base: base.makeReadSource(label: label, fileDescriptor: fileDescriptor, queue: queue.base),
            shared: shared, descriptor: fileDescriptor, kind: .read)
    }

    func makeWriteSource(label: String, fileDescriptor: Int32, queue: MutantQueue<Base>) -> MutantSource<Base> {
        if fault == .writeAlwaysReady {
            // A user-data source standing in: it fires on activation whatever the descriptor's state.
            let standIn = base.makeUserDataSource(label: label, merge: .add, queue: queue.base)
            return MutantSource(base: standIn, shared: shared, descriptor: fileDescriptor, kind: .write) { standIn.merge(1) }
        }
        return MutantSource(
            base: base.makeWriteSource(label: label, fileDescriptor: fileDescriptor, queue: queue.base),
            shared: shared, descriptor: fileDescriptor, kind: .write)
    }

    func makeSignalSource(label: String, signal: Int32, queue: MutantQueue<Base>) -> MutantSource<Base> {
        MutantSource(
            base: base.makeSignalSource(label: label, signal: signal, queue: queue.base),
            shared: shared, descriptor: -1, kind: .signal)
    }

    func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: MutantQueue<Base>
    ) -> MutantSource<Base> {
        var asked = events
        if fault == .exitMissedForLaterObservers {
            let first = shared.watchedProcesses.withLock { $0.insert(processID).inserted }
            if !first { asked = [] }
        }
        if fault == .exitMissedWhenExited && MutantWatchSource<Base>.hasExited(processID) { asked = [] }
        let made = base.makeProcessSource(label: label, processID: processID, events: asked, queue: queue.base)
        return MutantWatchSource(
            base: made, shared: shared, queue: queue.base, descriptor: -1, kind: .process,
            requested: events.rawValue)
    }

    func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: MutantQueue<Base>
    ) -> MutantSource<Base> {
        var asked = events
        switch fault {
        case .renameMissed: asked.remove(.rename)
        case .deleteMissedWhileOpen: asked.remove(.delete)
        case .directoryEntriesIgnored where MutantWatchSource<Base>.isDirectory(fileDescriptor): asked.remove(.write)
        case .fileEventsUnmasked: asked = .all
        default: break
        }
        let made = base.makeFileSource(label: label, fileDescriptor: fileDescriptor, events: asked, queue: queue.base)
        return MutantWatchSource(
            base: made, shared: shared, queue: queue.base, descriptor: fileDescriptor, kind: .file,
            requested: events.rawValue)
    }
}

/// State one mutant engine shares across its objects, with the base engine they wrap.
final class MutantShared<Base: Engine>: @unchecked Sendable {
    let fault: Fault
    /// The engine the mutant wraps.
    let base: Base
    /// Held for the whole of every sync under `syncHoldsEngineLock` (a plain, non-recursive mutex).
    let engineLock: UnsafeMutablePointer<pthread_mutex_t>
    /// Values set on any queue, under `specificLeaks`.
    let leaked = Locked<[ObjectIdentifier: Any]>([:])
    /// Values kept for good, under `specificKeepsReplaced` and `specificOutlivesQueue`.
    let kept = Locked<[Any]>([])
    private(set) var global: MutantQueue<Base>!
    /// The global queues by class; the default one is `global`.
    private(set) var globals: [MutantQueue<Base>] = []
    private(set) var main: MutantQueue<Base>!
    /// The processes a process source was made for, under `exitMissedForLaterObservers`.
    let watchedProcesses = Locked<Set<Int32>>([])
    /// Blocks submitted without waiting, counted under `asyncDropsBlocks`.
    private let submissions = Atomic<Int>(0)
    /// Global blocks submitted and not yet started, under `queuesWaitForGlobal`.
    let globalPending = Atomic<Int>(0)

    init(fault: Fault, base: Base) {
        self.fault = fault
        self.base = base
        engineLock = .allocate(capacity: 1)
        pthread_mutex_init(engineLock, nil)
        let queue = fault == .globalIsSerial ? base.makeQueue(label: "mutant.global.serial") : base.globalQueue
        global = MutantQueue(base: queue, kind: .concurrent, inactive: false, shared: self)
        globals = QoSClass.allCases.map { qos in
            qos == .default
                ? global
                : MutantQueue(base: base.globalQueue(qos: qos), kind: .concurrent, inactive: false, shared: self, ownQoS: qos)
        }
        let mainBase = fault == .mainOffLoop ? base.makeQueue(label: "main") : base.mainQueue
        main = MutantQueue(base: mainBase, kind: .serial, inactive: false, shared: self, isMain: true)
    }

    /// Under `queuesWaitForGlobal`: sleeps in steps of 50 µs while global blocks are pending (10 s at most), as a pool
    /// that always serves the global queue first would keep another queue's block waiting.
    func waitForGlobal() {
        let end = Deadline.now() + .seconds(10)
        while globalPending.load(ordering: .relaxed) > 0 && Deadline.now() < end { Threads.sleep(.microseconds(50)) }
    }

    /// Whether this submission is lost: every 64th under `asyncDropsBlocks`.
    func dropsSubmission() -> Bool {
        fault == .asyncDropsBlocks && submissions.add(1, ordering: .relaxed).newValue % 64 == 0
    }
}

/// The mutants' registry: every fault, by name. Reachable by name only: no mutant is a contender of `arena list` or
/// `arena conform`; the arena's child process finds one by its name for `arena explain` and the tests.
package enum Mutants {
    /// The engine a fault's mutant wraps, chosen here and nowhere else: the system engine, except for faults about
    /// the main queue, about classes `system` lacks, and about process and file sources, which `system` lacks on
    /// Linux. The main-queue rules need the main loop, which a test's child can give only to an engine whose loop
    /// runs on any thread (`system`'s must have the process's first thread, which Swift's async main already took);
    /// the item-class, user-interactive, process and file rules need an engine that keeps them, or the mutant would
    /// be `unsupported`, not failed (`closesDescriptorOnCancel` fails `fd.close-in-cancel` and `vnode.delete`).
    package static func base(for fault: Fault) -> any Engine {
        switch fault {
        case .mainOffLoop, .mainSyncInline, .mainTargetBypassed, .mainSyncOnSelfAllowed, .mainOperationsOffLoop, .globalMainOffLoop:
            MutexEngine()
        case .userInteractiveDemoted, .itemClassAlwaysEnforced, .itemClassIgnored: MutexEngine()
        case .exitReportedTwice, .exitMissedForLaterObservers, .exitMissedWhenExited, .writeAlwaysExtends,
            .renameMissed, .deleteMissedWhileOpen, .linkReportedAsAttrib, .directoryEntriesIgnored,
            .fileEventsUnmasked, .closesDescriptorOnCancel:
            MutexEngine()
        // The system engine lacks descriptor-hang-up (libdispatch may crash at a hang-up), so its rule skips it.
        case .endOfFileSilent: MutexEngine()
        default: SystemEngine()
        }
    }

    /// A new mutant with `fault`, on the base `base(for:)` chooses.
    package static func engine(for fault: Fault) -> any Engine {
        func wrapping<Base: Engine>(_ base: Base) -> any Engine { MutantEngine(fault, base: base) }
        return wrapping(base(for: fault))
    }

    /// The prefix of every mutant's name.
    package static let prefix = "mutant-"

    /// The registry name of the mutant with `fault`: `mutant-` and the fault's raw value.
    package static func name(of fault: Fault) -> String { prefix + fault.rawValue }

    /// The fault of the mutant called `name`, if it is one.
    package static func fault(named name: String) -> Fault? {
        guard name.hasPrefix(prefix) else { return nil }
        return Fault(rawValue: String(name.dropFirst(prefix.count)))
    }

    /// The mutants made so far, by fault: one engine per fault and process, made when first named.
    private static let made = Locked<[Fault: any Engine]>([:])

    /// The mutant called `name` (`mutant-` and a fault), the same engine every time in one process.
    package static func engine(named name: String) -> (any Engine)? {
        guard let fault = fault(named: name) else { return nil }
        return made.withLock { made in
            if let existing = made[fault] { return existing }
            let new = Self.engine(for: fault)
            made[fault] = new
            return new
        }
    }
}
