import Conformance
import Contenders
import Glibc
import Harness
import Synchronization

/// The system engine with one deliberate fault (see `Fault`). Each wrapper forwards to the system object and
/// misbehaves only where its fault says; nothing else differs, so a rule that a mutant fails is failed by the fault.
struct MutantEngine: Engine {
    typealias Queue = MutantQueue
    typealias Group = MutantGroup
    typealias Semaphore = MutantSemaphore
    typealias Once = MutantOnce
    typealias UserDataSource = MutantUserDataSource
    typealias TimerSource = MutantTimerSource
    typealias DescriptorSource = MutantSource
    typealias SignalSource = MutantSource

    let fault: Fault
    let base = SystemEngine()
    let shared: MutantShared

    init(_ fault: Fault) {
        self.fault = fault
        shared = MutantShared(fault: fault)
    }

    var name: String { "mutant-\(fault.rawValue)" }
    var summary: String { "The system engine with one fault: \(fault.rawValue)." }

    var limits: [Capability: String] {
        var limits = base.limits
        if fault == .retargetIgnored { limits[.retargetActiveQueues] = nil }
        return limits
    }

    func makeQueue(label: String, kind: QueueKind, startsInactive: Bool, target: MutantQueue?) -> MutantQueue {
        var underlying = kind
        if fault == .serialOverlaps && kind == .serial { underlying = .concurrent }
        if fault == .concurrentIsSerial && kind == .concurrent { underlying = .serial }
        let inactive = fault == .inactiveIgnored ? false : startsInactive
        let baseTarget = fault == .targetIgnored ? nil : target?.base
        return MutantQueue(base: base.makeQueue(label: label, kind: underlying, startsInactive: inactive, target: baseTarget),
                           kind: kind, inactive: inactive, shared: shared)
    }

    var globalQueue: MutantQueue { shared.global }

    func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        if fault == .specificLeaks { return shared.leaked.withLock { $0[ObjectIdentifier(key)] } as? Value }
        return base.currentSpecific(key)
    }

    func makeGroup(label: String) -> MutantGroup { MutantGroup(base: base.makeGroup(label: label), shared: shared) }

    func makeSemaphore(value: Int) -> MutantSemaphore? {
        if value < 0 && fault == .negativeAccepted { return base.makeSemaphore(value: 0).map { MutantSemaphore(base: $0, fault: fault) } }
        let admitted = fault == .semaphoreOverAdmits ? value + 1 : value
        return base.makeSemaphore(value: admitted).map { MutantSemaphore(base: $0, fault: fault) }
    }

    func makeOnce(label: String) -> MutantOnce { MutantOnce(base: base.makeOnce(label: label), fault: fault) }

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

    func makeWorkItem(label: String, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void) -> MutantWorkItem {
        MutantWorkItem(base: base.makeWorkItem(label: label, flags: fault == .barrierFlagIgnored ? [] : flags, block), fault: fault)
    }

    func makeUserDataSource(label: String, merge: DataMerge, queue: MutantQueue) -> MutantUserDataSource {
        let kind: DataMerge = fault == .sourceMergesAsAdd ? .add : merge
        let target = fault == .sourceHandlerOffQueue ? base.globalQueue : queue.base
        return MutantUserDataSource(base: base.makeUserDataSource(label: label, merge: kind, queue: target),
                                    fault: fault, queue: queue.base)
    }

    func makeTimerSource(label: String, queue: MutantQueue) -> MutantTimerSource {
        MutantTimerSource(base: base.makeTimerSource(label: label, queue: queue.base), fault: fault)
    }

    func makeReadSource(label: String, fileDescriptor: Int32, queue: MutantQueue) -> MutantSource {
        MutantSource(base: base.makeReadSource(label: label, fileDescriptor: fileDescriptor, queue: queue.base),
                     fault: fault, descriptor: fileDescriptor, kind: .read)
    }

    func makeWriteSource(label: String, fileDescriptor: Int32, queue: MutantQueue) -> MutantSource {
        if fault == .writeAlwaysReady {
            // A user-data source standing in: it fires on activation whatever the descriptor's state.
            let standIn = base.makeUserDataSource(label: label, merge: .add, queue: queue.base)
            return MutantSource(base: standIn, fault: fault, descriptor: fileDescriptor, kind: .write) { standIn.merge(1) }
        }
        return MutantSource(base: base.makeWriteSource(label: label, fileDescriptor: fileDescriptor, queue: queue.base),
                            fault: fault, descriptor: fileDescriptor, kind: .write)
    }

    func makeSignalSource(label: String, signal: Int32, queue: MutantQueue) -> MutantSource {
        MutantSource(base: base.makeSignalSource(label: label, signal: signal, queue: queue.base),
                     fault: fault, descriptor: -1, kind: .signal)
    }
}

/// State one mutant engine shares across its objects.
final class MutantShared: @unchecked Sendable {
    let fault: Fault
    /// Held for the whole of every sync under `syncHoldsEngineLock` (a plain, non-recursive mutex).
    let engineLock: UnsafeMutablePointer<pthread_mutex_t>
    /// Values set on any queue, under `specificLeaks`.
    let leaked = Locked<[ObjectIdentifier: Any]>([:])
    /// Values kept for good, under `specificKeepsReplaced` and `specificOutlivesQueue`.
    let kept = Locked<[Any]>([])
    private(set) var global: MutantQueue!
    /// Blocks submitted without waiting, counted under `asyncDropsBlocks`.
    private let submissions = Atomic<Int>(0)

    init(fault: Fault) {
        self.fault = fault
        engineLock = .allocate(capacity: 1)
        pthread_mutex_init(engineLock, nil)
        let system = SystemEngine()
        let queue = fault == .globalIsSerial ? system.makeQueue(label: "mutant.global.serial") : system.globalQueue
        global = MutantQueue(base: queue, kind: .concurrent, inactive: false, shared: self)
    }

    /// Whether this submission is lost: every 64th under `asyncDropsBlocks`.
    func dropsSubmission() -> Bool {
        fault == .asyncDropsBlocks && submissions.add(1, ordering: .relaxed).newValue % 64 == 0
    }
}

/// The mutants' registry: every fault, by name.
enum Mutants {
    static let all: [MutantEngine] = Fault.allCases.map(MutantEngine.init)

    static func engine(named name: String) -> MutantEngine? { all.first { $0.name == name } }
}
