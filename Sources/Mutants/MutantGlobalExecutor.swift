import ArenaContract
import Glibc
import Harness
import Synchronization

/// The global executor of a mutant: the default one over the base engine's queues (`EngineGlobalExecutor`), with the
/// global-executor fault applied (see `Fault`, the `global` cases); under any other fault it is the default one.
final class MutantGlobalExecutor<Base: Engine>: LayerGlobalExecutor, @unchecked Sendable {
    private let fault: Fault
    private let inner: EngineGlobalExecutor<Base>
    /// Jobs handed over so far, under `globalJobsLost`.
    private let handed = Atomic<Int>(0)
    /// Under `globalMainOffLoop`: the serial queue the main actor's jobs go to instead of the main queue.
    private let offLoop: Base.Queue?

    init(shared: MutantShared<Base>) {
        fault = shared.fault
        inner = EngineGlobalExecutor(engine: shared.base)
        offLoop = fault == .globalMainOffLoop ? shared.base.makeQueue(label: "mutant.main-off-loop", kind: .serial) : nil
        if fault == .globalExitWaits { atexit { Threads.sleep(.milliseconds(300)) } }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        switch fault {
        case .globalJobsLost where handed.add(1, ordering: .relaxed).newValue % 50 == 0:
            return
        case .globalOffContender:
            let job = UnownedJob(job)
            Threads.detach { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        case .globalRunsOnTaskExecutor:
            let job = UnownedJob(job)
            inner.engine.globalQueue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
        case .globalPriorityIgnored:
            let job = UnownedJob(job)
            inner.engine.globalQueue.async { [inner] in inner.runJob(job) }
        default:
            inner.enqueue(job)
        }
    }

    func enqueue(_ job: UnownedJob, at deadline: Deadline) {
        switch fault {
        case .globalTimerEarly: enqueue(ExecutorJob(job))
        case .globalOffContender:
            Threads.detach { [self] in
                Threads.sleep(deadline - .now())
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        default: inner.enqueue(job, at: deadline)
        }
    }

    var isCurrent: Bool { inner.isCurrent }
    var mainQueue: any EngineQueue { offLoop ?? inner.mainQueue }
    func runMainLoop() -> Never { inner.runMainLoop() }
    var isOnMainLoop: Bool { inner.isOnMainLoop }
}
