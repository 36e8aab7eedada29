import ArenaContract
import Glibc
import Synchronization

/// The cold path of the lock-free pool: starting, retiring and joining threads, and the starvation watch.
///
/// Locks: one pthread mutex, `lock`, taken only here: when a thread starts (a push found no worker to wake and fewer
/// than `width` running), when one retires (1 s asleep beyond the width), at shutdown, and by the watch every 10 ms
/// while it looks (once per thread it starts). None of these is on the path of submitting or running work.
final class PoolGrowth: @unchecked Sendable {
    private let lock = PthreadMutex()
    private var threads: [Int: pthread_t] = [:]
    private var watch: pthread_t?

    /// Starts a thread in a free slot, if the pool is below its width of running workers (or `force`) and has a
    /// free slot.
    func startWorker(in pool: LockFreeWorkerPool, force: Bool = false) {
        lock.withLock {
            let occupied = pool.occupied.atomic.pointee.load(ordering: .relaxed)
            let running = occupied.nonzeroBitCount - pool.blocked.atomic.pointee.load(ordering: .relaxed)
            guard force || running < pool.width, occupied != .max, !pool.stopping.load(ordering: .relaxed) else { return }
            let index = (~occupied).trailingZeroBitCount
            guard index < LockFreeWorkerPool.maxWorkers else { return }
            pool.occupied.atomic.pointee.bitwiseOr(1 << UInt64(index), ordering: .relaxed)
            let worker = pool.workers[index]
            threads[index] = startEngineThread("lockfree.worker") { pool.work(as: worker) }
        }
    }

    /// After a sleep: a thread beyond the width that nobody claimed leaves its slot and detaches itself.
    func retireIfIdleAndExtra(_ worker: LockFreeWorker, in pool: LockFreeWorkerPool) -> Bool {
        let claimed = pool.unpark(worker)
        if claimed || pool.stopping.load(ordering: .relaxed) { return false }
        return lock.withLock {
            guard pool.occupied.atomic.pointee.load(ordering: .relaxed).nonzeroBitCount > pool.width else { return false }
            pool.occupied.atomic.pointee.bitwiseAnd(~worker.bit, ordering: .relaxed)
            if let thread = threads.removeValue(forKey: worker.index) { pthread_detach(thread) }
            return true
        }
    }

    /// Starts the starvation watch once.
    func startWatch(for pool: LockFreeWorkerPool) {
        lock.withLock {
            guard watch == nil else { return }
            watch = startEngineThread("lockfree.watch") { [self] in watchLoop(pool) }
        }
    }

    /// Every 10 ms while wanted: if work waits, no worker is parked and fewer than `width` workers progress
    /// (`WorkerProgress`: runnable, or on a CPU for a tenth of the tick; when one lags while another works, two
    /// ticks in a row), start threads. As many as are missing the first time; while the starvation lasts from tick to
    /// tick, twice as many as the tick before (the threads just started blocked too: the backlog is blocking work),
    /// so K blocked blocks get threads in about log2(K) ticks instead of K / width (64 blocks of 50 ms here: 265 ms
    /// with one thread a tick). Never more than the jobs waiting, so the pool does not outgrow its backlog.
    private func watchLoop(_ pool: LockFreeWorkerPool) {
        var lastGrant = 0
        var progress = WorkerProgress(tick: .milliseconds(10))
        while !pool.stopping.load(ordering: .relaxed) {
            if pool.watchWanted.word.pointee.load(ordering: .acquiring) == 0 {
                lastGrant = 0
                progress.pause()
                pool.watchWanted.wait(whileEqualTo: 0)
                continue
            }
            var request = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&request, nil)
            guard pool.hasWork, pool.parked.atomic.pointee.load(ordering: .relaxed) == 0 else {
                pool.watchWanted.word.pointee.store(0, ordering: .releasing)
                continue
            }
            let occupied = pool.occupied.atomic.pointee.load(ordering: .relaxed)
            let missing = progress.missing(
                pool.workers.lazy.filter { occupied & $0.bit != 0 }
                    .map { (id: $0.threadID.load(ordering: .relaxed), turns: 0) }, width: pool.width)
            guard missing > 0 else {
                lastGrant = 0
                continue
            }
            let grant = min(max(missing, 2 * lastGrant), max(1, pool.queuedJobs))
            for _ in 0..<grant { startWorker(in: pool, force: true) }
            lastGrant = grant
        }
    }

    /// Joins every thread started and not retired (after `stopping` was set and sleepers were woken).
    func joinAll() {
        let all = lock.withLock {
            defer {
                threads = [:]
                watch = nil
            }
            return Array(threads.values) + (watch.map { [$0] } ?? [])
        }
        for thread in all { pthread_join(thread, nil) }
    }
}
