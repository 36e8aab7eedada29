import Glibc

/// Kernel thread states, for worker pools that grow when their workers block where they cannot see (libdispatch's
/// Linux workqueue monitor does the same).
enum ThreadStates {
    /// Whether the kernel has thread `id` of this process running or ready to run (state R in
    /// /proc/self/task/ID/stat). A few system calls: call it from a monitor, not from a hot path.
    static func isRunnable(_ id: Int32) -> Bool {
        guard let text = read("/proc/self/task/\(id)/stat"),
              let close = text.lastIndex(of: UInt8(ascii: ")")), close + 2 < text.count else { return false }
        return text[close + 2] == UInt8(ascii: "R")  // "pid (name) S ...": the state follows the name
    }

    /// Nanoseconds thread `id` of this process has spent on a CPU (the first figure of /proc/self/task/ID/schedstat),
    /// or nil where the kernel does not keep it (or the thread is gone).
    static func runNanoseconds(_ id: Int32) -> UInt64? {
        guard let text = read("/proc/self/task/\(id)/schedstat") else { return nil }
        return UInt64(String(decoding: text.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self))
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
/// kernel has it runnable now, or if it spent at least a tenth of the tick on a CPU since the watch last looked.
///
/// The state alone misleads under contention: a worker waiting its turn for a busy lock (the pool's own, a queue's)
/// sleeps in a futex for microseconds at a time, and a watch that reads "S" at that instant would start a thread for a
/// worker that is not blocked, and then another, each adding to the contention (the mutex engine reached 13 threads on
/// 2 cores that way). A worker blocked in a block (a sleep, a read, a foreign lock) runs nothing between two looks.
/// A thread seen for the first time counts its run time since it started.
struct WorkerProgress {
    private var lastRun: [Int32: UInt64] = [:]
    /// The least time on a CPU, per look, that counts as progress.
    private let minimumRun: UInt64

    init(tick: Duration) {
        minimumRun = UInt64(tick.components.seconds) * 100_000_000 + UInt64(tick.components.attoseconds / 10_000_000_000)
    }

    /// How many of the workers `ids` progress (two small /proc reads each); forgets the others.
    mutating func countProgressing(_ ids: some Sequence<Int32>) -> Int {
        var seen: [Int32: UInt64] = [:]
        var progressing = 0
        for id in ids {
            let run = ThreadStates.runNanoseconds(id)
            if let run { seen[id] = run }
            if ThreadStates.isRunnable(id) {
                progressing += 1
            } else if let run, run - min(run, lastRun[id] ?? 0) >= minimumRun {
                progressing += 1
            }
        }
        lastRun = seen
        return progressing
    }
}
