// The adapters' own marks (`ExecutorIsolation.key` on a serial executor's queue, `RunningPool` on a pool job's thread)
// are the contract's package plumbing, so that with no fault these executors are the adapters' logic over the base
// engine's queues.
import ArenaContract
import Harness

/// The executor layer of a mutant: serial executors over serial queues of the base engine and its global queue as the
/// task executor, as the default adapters (`EngineExecutors`) build them, with the executor fault applied (see `Fault`,
/// the executor cases). Written again rather than wrapped: a job must run on the executor it was enqueued on, and an
/// actor's job run on any other is enqueued again by the runtime, for ever. Jobs go to the base engine's own queues,
/// so no GCD fault touches them; under any fault but the executor ones the layer is correct.
struct MutantExecutors<Base: Engine>: ExecutorLayer {
    let shared: MutantShared<Base>

    func makeActorExecutor(label: String) -> MutantSerialExecutor<Base>? { MutantSerialExecutor(shared: shared, label: label) }

    var poolExecutor: MutantPoolExecutor<Base> { MutantPoolExecutor(shared: shared) }

    func colocatedExecutor(for executor: MutantSerialExecutor<Base>) -> MutantColocatedExecutor<Base>? {
        MutantColocatedExecutor(beside: executor, fault: shared.fault)
    }

    func makeGlobalExecutor() -> MutantGlobalExecutor<Base>? { MutantGlobalExecutor(shared: shared) }
}

/// A serial queue of the base engine as a serial executor, isolated where its queue's blocks run (the adapter's
/// queue-specific mark), with the fault applied.
final class MutantSerialExecutor<Base: Engine>: LayerSerialExecutor, @unchecked Sendable {
    private let shared: MutantShared<Base>
    private var fault: Fault { shared.fault }
    /// The base engine's serial queue, wrapped as a mutant queue only for `setSpecific`: what a rule sets there is then
    /// what the mutant's `currentSpecific` reads, whatever the GCD fault. Jobs and blocks go to `queue.base`.
    private let queue: MutantQueue<Base>
    /// Jobs enqueued and not yet run, newest last, under `executorRunsNewestFirst`.
    private let pending = Locked<[UnownedJob]>([])
    /// Under `executorOnTwoQueues`: a second serial queue, marked as this executor's too, and which of the two the
    /// next job goes to.
    private let twin: Base.Queue?
    private let turn = Locked(0)

    init(shared: MutantShared<Base>, label: String) {
        self.shared = shared
        queue = MutantQueue(base: shared.base.makeQueue(label: label, kind: .serial), kind: .serial, inactive: false, shared: shared)
        twin = shared.fault == .executorOnTwoQueues ? shared.base.makeQueue(label: label + ".twin", kind: .serial) : nil
        queue.base.setSpecific(ExecutorIsolation.key, ObjectIdentifier(self))
        twin?.setSpecific(ExecutorIsolation.key, ObjectIdentifier(self))
    }

    var label: String { queue.label }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        switch fault {
        case .executorRunsNewestFirst:
            pending.withLock { $0.append(job) }
            queue.base.async { [self] in pending.withLock { $0.removeLast() }.runSynchronously(on: asUnownedSerialExecutor()) }
        case .executorOnPool:
            shared.base.globalQueue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        case .executorOnTwoQueues:
            let second = turn.withLock { next in
                defer { next ^= 1 }
                return next == 1
            }
            (second ? twin! : queue.base).async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        default:
            queue.base.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        }
    }

    func submit(_ block: @escaping @Sendable () -> Void) { queue.base.async(block) }

    /// Runs `job` of `colocated` in a block of this executor's queue, isolated to this executor (the default layer's
    /// co-located executor does the same); on the base engine's global queue under `colocatedOnPool`.
    func run(_ job: UnownedJob, besideAs colocated: MutantColocatedExecutor<Base>) {
        let body: @Sendable () -> Void = { [self] in
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: colocated.asUnownedTaskExecutor())
        }
        if fault == .colocatedOnPool { shared.base.globalQueue.async(body) } else { queue.base.async(body) }
    }

    func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) { queue.setSpecific(key, value) }

    func isIsolatingCurrentContext() -> Bool? {
        let running = shared.base.currentSpecific(ExecutorIsolation.key)
        switch fault {
        case .isolationAlwaysHeld: return true
        case .isolationNeverHeld: return false
        case .isolationOnAnyExecutor: return running != nil
        default: return running == ObjectIdentifier(self)
        }
    }
}

/// The base engine's global queue as a task executor, marking the threads of its jobs (the adapter's mark, which
/// `isCurrent` reads), with the fault applied.
final class MutantPoolExecutor<Base: Engine>: LayerTaskExecutor, @unchecked Sendable {
    private let fault: Fault
    private let queue: Base.Queue

    init(shared: MutantShared<Base>) {
        RunningPool.claim()
        fault = shared.fault
        queue = fault == .poolSerial ? shared.base.makeQueue(label: "mutant.pool.serial") : shared.base.globalQueue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        if fault == .poolBypassed { return globalConcurrentExecutor.enqueue(job) }
        let job = UnownedJob(job)
        queue.async { [self] in
            let outer = RunningPool.enter(queue)
            job.runSynchronously(on: asUnownedTaskExecutor())
            RunningPool.leave(restoring: outer)
        }
    }

    var isCurrent: Bool { RunningPool.current == UnsafeMutableRawPointer(Unmanaged.passUnretained(queue).toOpaque()) }
}

/// A task executor beside a mutant serial executor: its jobs run in blocks of that executor's queue, isolated to it,
/// as the default layer's `EngineColocatedExecutor`; under `colocatedOnPool` on the base engine's global queue.
final class MutantColocatedExecutor<Base: Engine>: LayerTaskExecutor, @unchecked Sendable {
    private let serial: MutantSerialExecutor<Base>

    init(beside serial: MutantSerialExecutor<Base>, fault: Fault) { self.serial = serial }

    func enqueue(_ job: consuming ExecutorJob) { serial.run(UnownedJob(job), besideAs: self) }

    var isCurrent: Bool { serial.isIsolatingCurrentContext() == true }
}
