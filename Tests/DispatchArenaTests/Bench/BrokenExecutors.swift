import ArenaContract
import Bench
import Contenders
import Reporting
import Synchronization

/// A deliberate fault in an executor layer, for the executor workloads' sabotages. (A conformance mutant's executor
/// layer is built on its base engine's correct queues, so its GCD faults never reach actors and tasks.)
enum ExecutorFault: String, CaseIterable, Sendable {
    /// An actor's jobs run on the global queue, not on its serial queue: its methods run unisolated, and may overlap.
    case actorOffQueue
    /// The task executor runs its jobs on a serial queue of its own, not on the pool.
    case poolElsewhere
    /// The task executor loses every 64th job: the task it belonged to never resumes.
    case poolDropsJobs
    /// The task executor beside an actor runs its jobs on the global queue, yet isolated to the actor's executor: a call
    /// into the actor runs inline there, off the actor's queue.
    case colocatedElsewhere
}

/// The system engine with one fault in its executor layer; its GCD objects are the system engine's, untouched.
struct BrokenExecutorsEngine: GCDBorrower {
    let fault: ExecutorFault
    let lender = SystemEngine()

    var name: String { "broken-executors-\(fault.rawValue)" }
    var summary: String { "The system engine with one fault in its executor layer: \(fault.rawValue)." }
    var limits: [Capability: String] { lender.limits }
    var executors: BrokenExecutors { BrokenExecutors(fault: fault, system: lender) }
}

/// The system engine's executor layer, broken where the fault says.
struct BrokenExecutors: ExecutorLayer {
    let fault: ExecutorFault
    let system: SystemEngine

    func makeActorExecutor(label: String) -> BrokenSerialExecutor? {
        BrokenSerialExecutor(
            EngineSerialExecutor(engine: system, label: label),
            runningOn: fault == .actorOffQueue ? system.globalQueue : nil)
    }

    var poolExecutor: BrokenPoolExecutor {
        BrokenPoolExecutor(
            EnginePoolExecutor(engine: system),
            runningOn: fault == .poolElsewhere ? system.makeQueue(label: "elsewhere", kind: .serial) : nil,
            dropsJobs: fault == .poolDropsJobs)
    }

    func colocatedExecutor(for executor: BrokenSerialExecutor) -> BrokenColocatedExecutor? {
        BrokenColocatedExecutor(beside: executor, runningOn: fault == .colocatedElsewhere ? system.globalQueue : nil)
    }
}

/// A serial executor whose jobs run on its own serial queue, or on `elsewhere` when the fault moves them; isolation
/// is asked of the serial queue either way.
final class BrokenSerialExecutor: LayerSerialExecutor, @unchecked Sendable {
    let base: EngineSerialExecutor<SystemEngine>
    let queue: SystemQueue

    init(_ base: EngineSerialExecutor<SystemEngine>, runningOn elsewhere: SystemQueue?) {
        self.base = base
        queue = elsewhere ?? base.queue
    }

    var label: String { base.label }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func submit(_ block: @escaping @Sendable () -> Void) { base.submit(block) }
    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) { base.setSpecific(key, value) }
    func isIsolatingCurrentContext() -> Bool? { base.isIsolatingCurrentContext() }
    func checkIsolated() { base.checkIsolated() }
}

/// A task executor over the system engine's global queue, or running its jobs on `elsewhere` when the fault moves
/// them; whether the caller is on the pool is asked of the global queue's executor either way.
final class BrokenPoolExecutor: LayerTaskExecutor, @unchecked Sendable {
    let base: EnginePoolExecutor<SystemEngine>
    let elsewhere: SystemQueue?
    let dropsJobs: Bool
    let enqueued = Atomic<Int>(0)

    init(_ base: EnginePoolExecutor<SystemEngine>, runningOn elsewhere: SystemQueue?, dropsJobs: Bool) {
        self.base = base
        self.elsewhere = elsewhere
        self.dropsJobs = dropsJobs
    }

    func enqueue(_ job: consuming ExecutorJob) {
        if dropsJobs && enqueued.wrappingAdd(1, ordering: .relaxed).newValue % 64 == 0 { return }
        guard let elsewhere else { return base.enqueue(job) }
        let job = UnownedJob(job)
        elsewhere.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    var isCurrent: Bool { base.isCurrent }
}

/// A task executor beside a serial executor: its jobs run isolated to it on its queue, or on `elsewhere` when the fault
/// moves them; whether the caller is beside the actor is asked of the serial queue either way.
final class BrokenColocatedExecutor: LayerTaskExecutor, @unchecked Sendable {
    let serial: BrokenSerialExecutor
    let queue: SystemQueue

    init(beside serial: BrokenSerialExecutor, runningOn elsewhere: SystemQueue?) {
        self.serial = serial
        queue = elsewhere ?? serial.queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(isolatedTo: self.serial.asUnownedSerialExecutor(), taskExecutor: self.asUnownedTaskExecutor())
        }
    }

    var isCurrent: Bool { serial.isIsolatingCurrentContext() == true }
}
