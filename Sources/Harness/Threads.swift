import ArenaContract
import CLinux
import Glibc

/// Plain threads for checks and workloads: submitters, racing callers, waiters. They are pthreads, not engine
/// workers, so a caller can block them freely. Each is named `arena.thread` (`harnessName`), so a thread census can
/// tell them from an engine's.
public enum Threads {
    /// The name every harness thread gives itself before it runs its body.
    public static let harnessName = "arena.thread"

    /// Starts a thread running `body` that nobody joins, created detached (`startDetachedEngineThread` says why:
    /// a detach after the create crashed `group.enter-leave`'s child under stress, docs/RACES.md).
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        _ = startNamedThread(harnessName, detached: true, body)
    }

    /// Starts a thread running `body`; the caller joins it (`pthread_join`).
    public static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        startNamedThread(harnessName, detached: false, body)
    }

    /// The CPUs the calling thread may run on, in order (empty if the kernel would not say).
    public static func allowedCPUs() -> [Int32] {
        var cpus = [Int32](repeating: 0, count: 1024)
        let count = clinux_allowed_cpus(&cpus, Int32(cpus.count))
        return Array(cpus.prefix(Int(max(0, count))))
    }

    /// Lets the calling thread (and the threads it starts from now on) run on `cpus` only; false if the kernel
    /// refused. One CPU pins it; `allowedCPUs()` read before gives the way back.
    @discardableResult
    public static func allow(_ cpus: [Int32]) -> Bool { clinux_allow_cpus(cpus, Int32(cpus.count)) == 0 }

    /// Busy-waits for `duration` without sleeping, as a thread doing work would.
    public static func spin(_ duration: Duration) {
        let end = Deadline.now() + duration
        while Deadline.now() < end {}
    }

    /// Runs `body(i)` for i in 0..<count on `count` threads that start together (a start barrier, so they race),
    /// and returns when all returned or `deadline` passed. Returns whether all returned.
    @discardableResult
    public static func race(
        _ count: Int, until deadline: Deadline = .now() + .seconds(8),
        _ body: @escaping @Sendable (Int) -> Void
    ) -> Bool {
        let ready = Latch(count)
        let go = Latch()
        let done = Latch(count)
        for index in 0..<count {
            detach {
                ready.countDown()
                go.wait(until: .distantFuture)
                body(index)
                done.countDown()
            }
        }
        ready.wait(until: deadline)
        go.countDown()
        return done.wait(until: deadline)
    }

    /// `body(i)` for i in 0..<count, in order, computed on `jobs` threads (the calling one among them) that each take
    /// the next index left: for work that waits on child processes, so that one child's sleep or start-up overlaps
    /// another's. No deadline of its own: each `body` must end by itself (a child's watchdog). One thread runs
    /// everything in order when `jobs` is 1; each index costs a lock and unlock beyond `body`.
    public static func map<Result: Sendable>(
        _ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Result
    ) -> [Result] {
        guard jobs > 1, count > 1 else { return (0..<count).map(body) }
        let results = Locked([Result?](repeating: nil, count: count))
        let next = Locked(0)
        let work: @Sendable () -> Void = {
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < count else { return }
                let result = body(index)
                results.withLock { $0[index] = result }
            }
        }
        let helpers = (1..<min(jobs, count)).map { _ in start(work) }
        work()
        for helper in helpers { pthread_join(helper, nil) }
        return results.snapshot.map { $0! }
    }

    /// Sleeps the calling thread for `duration` (resuming after signals).
    public static func sleep(_ duration: Duration) {
        var request = timespec(
            tv_sec: Int(duration.components.seconds),
            tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// An identifier of the calling thread.
    public static var current: UInt { UInt(pthread_self()) }
}
