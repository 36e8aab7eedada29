import ArenaContract
import Glibc

/// Kernel thread states, for worker pools that grow when their workers block where they cannot see (libdispatch's
/// Linux workqueue monitor does the same).
enum ThreadStates {
    /// Whether the kernel has thread `id` of this process running or ready to run (state R in
    /// /proc/self/task/ID/stat). A few system calls: call it from a monitor, not from a hot path.
    static func isRunnable(_ id: Int32) -> Bool {
        guard let text = read("/proc/self/task/\(id)/stat"),
            let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < text.count
        else { return false }
        return text[close + 2] == UInt8(ascii: "R")  // "pid (name) S ...": the state follows the name
    }

    /// Nanoseconds thread `id` of this process has spent on a CPU (the first figure of /proc/self/task/ID/schedstat),
    /// or nil where the kernel does not keep it (or the thread is gone).
    static func runNanoseconds(_ id: Int32) -> UInt64? {
        guard let text = read("/proc/self/task/\(id)/schedstat") else { return nil }
        return UInt64(String(decoding: text.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self))
    }

    /// Whether every CPU of the machine has a thread to run besides the caller: the kernel's count of runnable
    /// threads, machine-wide (the fourth field of /proc/loadavg, "running/total"), exceeds the online CPUs. Two system
    /// calls and a short read; false where the file cannot be read.
    static func cpusSaturated() -> Bool {
        guard let text = read("/proc/loadavg") else { return false }
        let fields = text.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")),
            let running = Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        else { return false }
        return running > sysconf(Int32(_SC_NPROCESSORS_ONLN))
    }

    private static func read(_ path: String) -> ArraySlice<UInt8>? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count] : nil
    }
}

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
