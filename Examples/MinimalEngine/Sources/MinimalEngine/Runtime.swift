import ArenaContract
import Glibc

/// What one engine shares, guarded by its `Monitor`: the queues with jobs, the timers, the workers, and the queues each
/// thread is running a job of.
///
/// A worker loops: fire the due timers, start the head job of the first queue that may start it, run it; with nothing
/// to do, sleep until the next timer. The pool keeps `width` workers able to run (one per CPU, at least two so that two
/// blocks can always meet): a worker waiting inside the engine counts as blocked, and while none is idle another starts
/// (128 at most), so blocking in a block never strands work. Workers beyond that leave after a second without a job.
/// Jobs of the main queue (and of queues targeting it) are left to the thread in `dispatchMain()`, which loops the same
/// way over those alone.
final class Runtime: @unchecked Sendable {
    let width = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    private let monitor = Monitor()
    private(set) var global: MinimalQueue!, main: MinimalQueue!
    /// The global queues by class, least urgent first; the default one is `global`.
    private(set) var globals: [MinimalQueue] = []
    // Guarded by the monitor:
    var ready: [MinimalQueue] = []  // queues with jobs, in turn order
    var entered: [pthread_t: [MinimalQueue]] = [:]  // queues whose jobs each thread runs, innermost last
    private var timers: [(at: Deadline, fire: () -> Void)] = []
    private var workers: Set<pthread_t> = [], idle = 0, blocked = 0, mainRuns = false

    init() {
        global = MinimalQueue(
            label: "minimal.global", kind: .concurrent, qos: nil, startsInactive: false, target: nil,
            runtime: self)
        globals = QoSClass.allCases.map { qos in
            qos == .default
                ? global
                : MinimalQueue(
                    label: "minimal.global.\(qos.rawValue)", kind: .concurrent, qos: qos,
                    startsInactive: false, target: global, runtime: self)
        }
        main = MinimalQueue(label: "main", kind: .serial, qos: nil, startsInactive: false, target: nil, runtime: self)
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        monitor.lock()
        defer { monitor.unlock() }
        return try body()
    }

    /// As `locked`, then wakes every sleeper to look again: the one rule that keeps wake-ups from getting lost.
    func changing<T>(_ body: () throws -> T) rethrows -> T {
        try locked {
            defer { monitor.broadcast() }
            return try body()
        }
    }

    /// As `changing`, from a thread that may hold the lock already: a queue's deinit runs wherever its last reference
    /// went, and that is often a worker dropping the job it just ran, with the lock held.
    func changingFromAnywhere(_ body: () -> Void) {
        if monitor.isHeldHere {
            body()
            monitor.broadcast()
        } else {
            changing(body)
        }
    }

    /// With the lock held: sleeps until `condition` holds (true) or `deadline` passes (false).
    func wait(until deadline: Deadline, for condition: () -> Bool) -> Bool {
        if condition() { return true }
        let worker = workers.contains(pthread_self())
        if worker { blocked += 1 }
        defer { if worker { blocked -= 1 } }
        addWorker()
        while !condition() {
            if !monitor.wait(until: deadline) { return condition() }
        }
        return true
    }

    /// With the lock held: starts a worker while fewer than `width` exist, or while none is idle and fewer than `width`
    /// can run.
    func addWorker() {
        let starved = idle == 0 && workers.count - blocked < width && workers.count < 128
        guard workers.count < width || starved else { return }
        var thread = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()  // the worker's reference, released when it leaves
        let created = pthread_create(
            &thread, nil,
            { me in
                Unmanaged<Runtime>.fromOpaque(me!).takeRetainedValue().work()
            }, me)
        precondition(created == 0, "minimal engine: cannot start a worker thread")
        workers.insert(thread)
        pthread_detach(thread)
    }

    /// With the lock held: calls `fire` (with the lock held) once `deadline` has passed, at once if it has.
    func after(_ deadline: Deadline, _ fire: @escaping () -> Void) {
        guard deadline > .now() else { return fire() }
        timers.append((deadline, fire))
        addWorker()  // someone must be there to fire it
    }

    /// With the lock held: the calling thread starts a job of `queue`, holding its chain and running inside it.
    func start(_ queue: MinimalQueue, alone: Bool) {
        queue.hold(alone: alone, by: 1)
        entered[pthread_self(), default: []].append(queue)
    }

    /// With the lock held: the calling thread's job of `queue` ended.
    func finish(_ queue: MinimalQueue, alone: Bool) {
        queue.hold(alone: alone, by: -1)
        entered[pthread_self()]!.removeLast()
        if entered[pthread_self()]!.isEmpty { entered[pthread_self()] = nil }
    }

    /// A worker's life (its result is the pthread start routine's).
    private func work() -> UnsafeMutableRawPointer? {
        monitor.lock()
        var lastJob = Deadline.now()
        while workers.count - blocked <= width || Deadline.now() < lastJob + .seconds(1) {
            fireDueTimers()
            if let job = takeJob(onMain: false) {
                run(job)
                lastJob = .now()
            } else {
                let retire = workers.count - blocked > width ? lastJob + .seconds(1) : .distantFuture
                idle += 1
                _ = monitor.wait(until: min(retire, timers.map(\.at).min() ?? .distantFuture))
                idle -= 1
            }
        }
        workers.remove(pthread_self())
        monitor.unlock()
        return nil
    }

    /// `dispatchMain()`: the calling thread runs the jobs bound to the main queue as they come. A second call is misuse.
    func runMain() -> Never {
        monitor.lock()
        if mainRuns { misuse("dispatchMain() called a second time: engine 'minimal' already runs its main queue") }
        mainRuns = true
        while true {
            if let job = takeJob(onMain: true) { run(job) } else { _ = monitor.wait(until: .distantFuture) }
        }
    }

    /// With the lock held: runs a started job without it, then ends the job.
    private func run(_ job: (queue: MinimalQueue, block: @Sendable () -> Void, alone: Bool)) {
        monitor.unlock()
        job.block()
        monitor.lock()
        finish(job.queue, alone: job.alone)
        monitor.broadcast()
    }

    /// With the lock held: starts the head job of the first ready queue that may start it, and sends that queue to the
    /// back of the line, so that queues take turns. A retarget marker takes effect here; sync jobs are their callers'.
    /// The main thread (`onMain`) takes only the jobs bound to the main queue, and the workers all the others.
    private func takeJob(onMain: Bool) -> (queue: MinimalQueue, block: @Sendable () -> Void, alone: Bool)? {
        for (index, queue) in ready.enumerated() {
            let head = queue.jobs.first!
            let alone = head.isBarrier || queue.kind == .serial
            guard !head.isSync && queue.isBoundToMain == onMain && queue.mayStart(alone: alone) else { continue }
            _ = queue.takeHead()
            if queue.listed { ready.append(ready.remove(at: index)) }
            monitor.broadcast()  // a sync job may be at the head now
            guard case .block(let block, _) = head else {
                if case .retarget(let target) = head { queue.target = target }  // between two jobs, as promised
                return takeJob(onMain: onMain)
            }
            start(queue, alone: alone)
            return (queue, block, alone)
        }
        return nil
    }

    private func fireDueTimers() {
        let now = Deadline.now()
        let due = timers.filter { $0.at <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.at <= now }
        for timer in due { timer.fire() }
        monitor.broadcast()
    }
}
