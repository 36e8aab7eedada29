import ArenaContract
import Glibc

/// Which of a pool's workers are stalled, for a starvation watch that looks every tick: a worker progresses if the
/// kernel has it runnable now, if it spent at least a tenth of the tick on a CPU since the watch last looked, or if
/// its pool saw it take work since then (its `turns`, a count the engine keeps, where it keeps one).
///
/// The state alone misleads under contention: a worker waiting its turn for a busy lock (the pool's own, a queue's)
/// sleeps in a futex for microseconds at a time, and a watch that reads "S" at that instant would start a thread for a
/// worker that is not blocked, and then another, each adding to the contention (the mutex engine reached 13 threads on
/// 2 cores that way). Behind 16 producers on 2 cores such a worker may also run under a tenth of the tick, in short
/// items between long waits for the lock, so a pool that counts the items a worker takes says so with `turns`. A
/// worker blocked in a block (a sleep, a read, a foreign lock) runs nothing and takes nothing between two looks.
/// A thread seen for the first time counts its run time since it started.
///
/// `missing` turns that into the watch's verdict: at once when no worker progresses, but only at the second look in a
/// row when one lags while another works, since the laggard may be inside a long drain waiting for a busy queue lock
/// (behind 16 producers on 2 cores, for a whole tick at times). Either way only if some CPU has nothing to run: a
/// thread more cannot run sooner on a machine whose CPUs all have runnable threads (the producers themselves); a
/// worker waiting for a lock those threads hold gets it within a few ticks. No progress for
/// `stalledLooksOnBusyCPUs` looks grows the pool even then. (Reference runs before this had `mutex` or `lockfree` at
/// 5 engine threads at one point behind 16 callers on 2 cores.)
struct WorkerProgress {
    private var last: [Int32: (run: UInt64, turns: Int)] = [:]
    private var laggedBefore = false
    /// Looks in a row at which no worker progressed.
    private var stalledLooks = 0
    /// With every CPU busy, how many looks in a row without progress grow the pool anyway: workers blocked for good
    /// (a block waiting for one queued behind it) beside threads that keep the CPUs busy (spinners, `--stress`).
    static let stalledLooksOnBusyCPUs = 5
    /// The least time on a CPU, per look, that counts as progress.
    private let minimumRun: UInt64

    init(tick: Duration) {
        minimumRun = UInt64(tick.components.seconds) * 100_000_000 + UInt64(tick.components.attoseconds / 10_000_000_000)
    }

    /// How many threads the pool lacks after this look at `workers`: `width` less those that progress, when none
    /// does and a CPU has nothing to run (or for `stalledLooksOnBusyCPUs` looks in a row), or when some lagged at the
    /// last look too and a CPU has nothing to run; otherwise 0. `turns` is the engine's count of work each worker took,
    /// or 0 where the engine keeps none.
    mutating func missing(_ workers: some Sequence<(id: Int32, turns: Int)>, width: Int) -> Int {
        let progressing = countProgressing(workers)
        defer { laggedBefore = progressing < width }
        stalledLooks = progressing == 0 ? stalledLooks + 1 : 0
        guard progressing < width else { return 0 }
        let grow =
            progressing == 0
            ? stalledLooks >= Self.stalledLooksOnBusyCPUs || !ThreadStates.cpusSaturated()
            : laggedBefore && !ThreadStates.cpusSaturated()
        return grow ? width - progressing : 0
    }

    /// Forgets the last look's shortfall: the watch found nothing to judge (no work waiting, a worker idle).
    mutating func pause() {
        laggedBefore = false
        stalledLooks = 0
    }

    /// How many of `workers` progress (two small /proc reads each); forgets the others.
    private mutating func countProgressing(_ workers: some Sequence<(id: Int32, turns: Int)>) -> Int {
        var seen: [Int32: (run: UInt64, turns: Int)] = [:]
        var progressing = 0
        for (id, turns) in workers {
            let run = ThreadStates.runNanoseconds(id)
            let before = last[id]
            seen[id] = (run ?? 0, turns)
            if ThreadStates.isRunnable(id) || (before.map { turns != $0.turns } ?? false) {
                progressing += 1
            } else if let run, run - min(run, before?.run ?? 0) >= minimumRun {
                progressing += 1
            }
        }
        last = seen
        return progressing
    }
}
