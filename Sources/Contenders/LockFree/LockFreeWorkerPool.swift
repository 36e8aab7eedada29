import ArenaContract
import CLinux
import Glibc
import Synchronization

/// One worker slot of the pool: its run queue and the futex word it sleeps on. Slots are made once and reused by
/// whichever thread occupies them.
final class LockFreeWorker: @unchecked Sendable {
    static let awake: UInt32 = 0, parked: UInt32 = 1

    unowned let pool: LockFreeWorkerPool
    let index: Int
    let local = LocalRunQueue()
    let word = FutexWord(LockFreeWorker.awake)
    /// The kernel id of the thread in this slot, for the starvation watch.
    let threadID = Atomic<Int32>(0)
    /// Jobs this slot's threads looked for from the top of the loop; read and written by the occupying thread only.
    var ticks: UInt32 = 0

    init(pool: LockFreeWorkerPool, index: Int) {
        self.pool = pool
        self.index = index
    }

    var bit: UInt64 { 1 << UInt64(index) }
}

/// The threads that run everything, with no lock on the path of work (design: Tokio's scheduler, with libdispatch's
/// rule for blocked workers).
///
/// - A worker pushes to its own FIFO run queue; other threads push to the injection queue. A worker takes from its
///   own queue, then the injection queue, then steals the oldest job of another worker's queue; every 61st look takes
///   the injection queue first, so that work pushed from outside is not starved by workers that keep feeding their own
///   queues (Go's scheduler checks its global run queue every 61 ticks the same way). For most of its spin a
///   thief passes over a queue holding one job: its owner runs it next, and a message handed back and forth (an actor
///   call and its return) stays on one core instead of crossing with every hand-off (Go's scheduler backs off from a
///   running owner's `runnext` likewise). The spin's last rounds and the parking look take it: a job behind a long
///   block still moves.
/// - With nothing to do a worker spins briefly, then announces itself in `parked` (a bitmask) and sleeps on its
///   futex word. A push makes its job visible, then (after a sequentially consistent fence) reads `parked`; a parking
///   worker sets its bit, then (after the same fence) looks for work once more. One of the two sees the other, so no
///   wake-up is lost; the pusher claims a parked worker by clearing its bit and wakes exactly that one (a parking
///   worker claimed while its last look found work passes the claim on).
/// - Width = active CPUs of runnable workers. A worker blocking inside the engine says so and, if work is waiting,
///   a parked worker is woken or a thread started. Blocking the engine cannot see is caught by a watch that, while
///   work waits with no worker parked, reads the workers' kernel states every 10 ms and starts threads when fewer
///   than `width` run: the missing ones, and twice as many as last time while the starvation lasts, never more
///   than the jobs waiting (`PoolGrowth`). At most 64 threads (the bitmask); threads beyond the width retire after 1 s asleep.
///
/// Locks: `growth` (a pthread mutex, in `PoolGrowth.swift`) is taken only to start, retire and join threads.
final class LockFreeWorkerPool: @unchecked Sendable {
    static let maxWorkers = 64
    /// The spin rounds (of 64) that pass over a victim's only job.
    static let sparingRounds = 48
    /// How often a worker looks at the injection queue before its own (`nextJob`): Go's 61, a prime, so that the look
    /// does not fall in step with a program's own periods.
    static let injectionInterval: UInt32 = 61
    let width: Int
    /// Every slot, made once; only read after `init`.
    private(set) var workers: [LockFreeWorker] = []
    let injection = InjectionQueue()
    /// Bit i: worker i sleeps, or is about to.
    let parked = PaddedAtomic<UInt64>(0)
    /// Workers spinning in search of work: while one does, a push need not wake a sleeper.
    let searching = PaddedAtomic<Int>(0)
    /// Bit i: slot i has a thread.
    let occupied = PaddedAtomic<UInt64>(0)
    /// Workers blocked inside the engine.
    let blocked = PaddedAtomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    /// Set while the starvation watch should look; the watch sleeps on it otherwise.
    let watchWanted = FutexWord(0)
    let growth = PoolGrowth()

    init() {
        width = min(Self.maxWorkers, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        workers = (0..<Self.maxWorkers).map { LockFreeWorker(pool: self, index: $0) }
    }

    // MARK: Submitting

    /// Queues a job (+1 reference taken) and makes sure a worker will run it.
    @inline(__always)
    func push(_ job: LockFreeJob) {
        let pointer = job.retainedPointer()
        if let worker = LockFreeThreadContext.current.worker, worker.pool === self {
            if !worker.local.push(pointer) { injection.push(pointer) }
        } else {
            injection.push(pointer)
        }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if searching.atomic.pointee.load(ordering: .relaxed) > 0 { return }  // a spinner will find it
        let sleepers = parked.atomic.pointee.load(ordering: .relaxed)
        if sleepers != 0 {
            wakeOne(sleepers)
        } else {
            makeRoomForWork()
        }
    }

    /// Claims a parked worker (clears its bit) and wakes it.
    private func wakeOne(_ observed: UInt64) {
        var sleepers = observed
        while sleepers != 0 {
            let index = sleepers.trailingZeroBitCount
            let (won, current) = parked.atomic.pointee.compareExchange(
                expected: sleepers, desired: sleepers & ~(1 << UInt64(index)), ordering: .acquiringAndReleasing)
            if won {
                let worker = workers[index]
                worker.word.word.pointee.store(LockFreeWorker.awake, ordering: .releasing)
                worker.word.wake()
                return
            }
            sleepers = current
        }
        makeRoomForWork()
    }

    /// No worker sleeps: start one if fewer than `width` are running, or ask the watch to look.
    private func makeRoomForWork() {
        let running = occupied.atomic.pointee.load(ordering: .relaxed).nonzeroBitCount - blocked.atomic.pointee.load(ordering: .relaxed)
        if running < width {
            growth.startWorker(in: self)
        } else if watchWanted.word.pointee.exchange(1, ordering: .acquiringAndReleasing) == 0 {
            growth.startWatch(for: self)
            watchWanted.wake()
        }
    }

    // MARK: Blocking inside the engine

    func workerWillBlock() {
        blocked.atomic.pointee.add(1, ordering: .relaxed)
        guard hasWork else { return }
        let sleepers = parked.atomic.pointee.load(ordering: .relaxed)
        if sleepers != 0 { wakeOne(sleepers) } else { makeRoomForWork() }
    }

    func workerDidUnblock() { blocked.atomic.pointee.subtract(1, ordering: .relaxed) }

    /// Whether any job waits (a snapshot). Looks at the occupied slots only: `handOffSearch` asks whenever the last
    /// searcher finds work with nobody parked, which a saturated pool does often.
    var hasWork: Bool {
        if !injection.isEmpty { return true }
        var present = occupied.atomic.pointee.load(ordering: .relaxed)
        while present != 0 {
            if !workers[present.trailingZeroBitCount].local.isEmpty { return true }
            present &= present - 1
        }
        return false
    }

    /// How many jobs wait in the pool's queues (a snapshot, for the starvation watch).
    var queuedJobs: Int {
        var total = injection.count
        var present = occupied.atomic.pointee.load(ordering: .relaxed)
        while present != 0 {
            total += workers[present.trailingZeroBitCount].local.count
            present &= present - 1
        }
        return total
    }

    // MARK: Workers

    /// A worker's life, on the thread that occupies slot `worker`.
    func work(as worker: LockFreeWorker) {
        let context = LockFreeThreadContext.current
        context.worker = worker
        worker.threadID.store(clinux_thread_id(), ordering: .relaxed)
        defer { context.worker = nil }
        while !stopping.load(ordering: .relaxed) {
            if let job = nextJob(worker) {
                run(job, context)
                continue
            }
            if let job = spin(worker) {
                run(job, context)
                continue
            }
            if let job = park(worker) {
                run(job, context)
                continue
            }
            if growth.retireIfIdleAndExtra(worker, in: self) { return }
        }
        occupied.atomic.pointee.bitwiseAnd(~worker.bit, ordering: .relaxed)  // stopping: the slot empties
    }

    /// Runs a job from the pool; a block's job is kept for reuse (a doorbell belongs to its queue).
    private func run(_ pointer: UnsafeMutableRawPointer, _ context: LockFreeThreadContext) {
        let job = LockFreeJob.take(pointer)
        switch job.work {
        case .drain(let queue): return queue.takeUnretainedValue().runDoorbell()
        case .fanned(let queue, let body): queue.takeUnretainedValue().runFanned(body)
        case .task(let task): task()
        default: preconditionFailure("lock-free engine: a queue's own job reached the pool")
        }
        job.group?._withUnsafeGuaranteedRef { $0.finishOne() }
        context.spares.recycle(job)
    }

    /// Every `injectionInterval`-th look: the injection queue first; otherwise `findWork`'s order. An increment and a
    /// compare per job.
    @inline(__always)
    private func nextJob(_ worker: LockFreeWorker) -> UnsafeMutableRawPointer? {
        worker.ticks &+= 1
        if worker.ticks % Self.injectionInterval == 0, let job = injection.pop() { return job }
        return findWork(worker)
    }

    /// Own queue, then the injection queue, then the oldest job of someone else's; `sparing`, not a queue's only job.
    @inline(__always)
    private func findWork(_ worker: LockFreeWorker, sparing: Bool = false) -> UnsafeMutableRawPointer? {
        if let job = worker.local.pop() { return job }
        if let job = injection.pop() { return job }
        return steal(into: worker, sparing: sparing)
    }

    private func steal(into worker: LockFreeWorker, sparing: Bool) -> UnsafeMutableRawPointer? {
        let present = occupied.atomic.pointee.load(ordering: .relaxed)
        let start = Int.random(in: 0..<Self.maxWorkers)
        for step in 0..<Self.maxWorkers {
            let victim = workers[(start + step) % Self.maxWorkers]
            guard victim !== worker, present & victim.bit != 0 else { continue }
            if sparing && victim.local.count == 1 { continue }
            guard let stolen = victim.local.pop() else { continue }
            return stolen
        }
        return nil
    }

    /// A few microseconds of looking before sleeping: work often arrives within them. The first `sparingRounds` spare a
    /// victim's only job (`steal(into:sparing:)`), the rest take it. While it spins the worker counts as searching, and
    /// pushes skip waking sleepers; so the last searcher to find work hands the search on (Tokio's rule,
    /// `handOffSearch`), and one giving up looks once more after leaving the count, handing on the same way if that look
    /// finds work.
    private func spin(_ worker: LockFreeWorker) -> UnsafeMutableRawPointer? {
        searching.atomic.pointee.add(1, ordering: .sequentiallyConsistent)
        for round in 0..<64 {
            for _ in 0..<(round < 32 ? 16 : 64) { clinux_cpu_relax() }
            if let job = findWork(worker, sparing: round < Self.sparingRounds) {
                if searching.atomic.pointee.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { handOffSearch() }
                return job
            }
        }
        let wasLast = searching.atomic.pointee.subtract(1, ordering: .sequentiallyConsistent).newValue == 0
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        let job = findWork(worker)
        if job != nil && wasLast { handOffSearch() }
        return job
    }

    /// The last searcher found work. Pushes made while it searched woke nobody, and it runs only one job: it wakes a
    /// sleeper to search in its place, or, with none asleep and work still waiting, makes room for that work (a
    /// thread, or the watch). Without this, a second job pushed meanwhile waits for a worker that may be blocked.
    private func handOffSearch() {
        let sleepers = parked.atomic.pointee.load(ordering: .relaxed)
        if sleepers != 0 {
            wakeOne(sleepers)
        } else if hasWork {
            makeRoomForWork()
        }
    }

    /// Sleeps until claimed by a push, or 1 s for a thread beyond the width. Returns work found on the way.
    ///
    /// Work found by the last look may come with a claim: a push that read this worker's bit before `unpark` cleared it
    /// chose this worker to run its job and woke nobody else. This worker runs one job, maybe a blocking one, so it
    /// passes the claim on as the last searcher does (`handOffSearch`); dropping it stranded the push's job while
    /// another worker slept (models/search-handoff.pml, variant DROP_CLAIM).
    private func park(_ worker: LockFreeWorker) -> UnsafeMutableRawPointer? {
        worker.word.word.pointee.store(LockFreeWorker.parked, ordering: .relaxed)
        parked.atomic.pointee.bitwiseOr(worker.bit, ordering: .sequentiallyConsistent)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if let job = findWork(worker) {
            if unpark(worker) { handOffSearch() }
            return job
        }
        if stopping.load(ordering: .relaxed) { return nil }
        let extra = occupied.atomic.pointee.load(ordering: .relaxed).nonzeroBitCount > width
        worker.word.wait(whileEqualTo: LockFreeWorker.parked, until: extra ? .now() + .seconds(1) : .distantFuture)
        return nil
    }

    /// Leaves the parked set (whether or not a push claimed this worker meanwhile); true when it was claimed, and the
    /// caller then owes the claimer a worker (it runs work itself, or hands on).
    func unpark(_ worker: LockFreeWorker) -> Bool {
        let before = parked.atomic.pointee.bitwiseAnd(~worker.bit, ordering: .acquiringAndReleasing).oldValue
        worker.word.word.pointee.store(LockFreeWorker.awake, ordering: .relaxed)
        return before & worker.bit == 0
    }

    // MARK: Shutdown

    /// Stops every thread after the queued work ran, and joins them.
    func shutdown() {
        while hasWork { sched_yield() }
        stopping.store(true, ordering: .relaxed)
        for worker in workers {
            worker.word.word.pointee.store(LockFreeWorker.awake, ordering: .releasing)
            worker.word.wake()
        }
        watchWanted.word.pointee.store(1, ordering: .releasing)
        watchWanted.wake()
        growth.joinAll()
    }

    /// Threads occupying slots now.
    var liveThreads: Int { occupied.atomic.pointee.load(ordering: .relaxed).nonzeroBitCount }
}
