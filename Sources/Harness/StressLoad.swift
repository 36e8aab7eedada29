import ArenaContract
import CLinux
import Glibc
import Synchronization

/// Antagonist threads that shake interleavings while a check runs, so that an engine's thread is preempted at
/// unlucky moments:
///
/// - **Spinners**, one per online core by default, burn CPU at normal priority: every core always has another
///   runnable thread, so an engine thread that runs long, blocks or yields loses the core for a time slice.
/// - **Preempters**, as many again, sleep a random 20–200 µs, then spin a random 0–100 µs at real-time priority
///   (`SCHED_FIFO` 1): each wake-up takes the core from whatever thread runs there, at whatever instruction it is
///   on, for up to 100 µs.
///
/// The preempters need real-time priority because the Linux scheduler (EEVDF) shields threads that mostly sleep, as
/// an engine's threads and a check's threads do: a thread that wakes gets an early deadline and runs its few
/// microseconds before any normal-priority thread. Measured here with `scripts/stress/preemption-probe.c` (2 cores; a
/// thread that sleeps 50 µs and then runs a 10 µs window, 20,000 times): the window was stalled by more than 50 µs
/// in 0.01–0.04% of the passes on an idle machine, 0.01% beside these threads at normal priority, and 3.75–4.03%
/// beside them with the preempters at real-time priority. A process that may not use real-time priority (not root, no CAP_SYS_NICE) gets
/// the preempters at normal priority, and `preemptsInRealTime` says so.
///
/// The load is bounded: a preempter is busy at most 100 µs in every 120 µs, so normal threads keep a sixth of a
/// core at worst (about two thirds on average), and every thread stops at `stop()` or at the deadline given to
/// `start`, whichever comes first; `stop()` joins them.
public final class StressLoad: @unchecked Sendable {
    private let stopping = Atomic<Bool>(false)
    private let live = Atomic<Int>(0)
    private let realTimePreempters = Atomic<Int>(0)
    private let deadline: Deadline
    private let preempters: Int
    private var threads: [pthread_t] = []

    /// The name every antagonist thread carries (/proc/self/task/ID/comm), so that a check counting an engine's
    /// threads' activity can leave the load out.
    public static let threadName = "arena.stress"

    /// The online cores: the default number of spinners and of preempters.
    public static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    private init(deadline: Deadline, preempters: Int) {
        self.deadline = deadline
        self.preempters = preempters
    }

    /// Starts `spinners` spinning threads and `preempters` preempting ones, which run until `stop()` or `deadline`.
    public static func start(spinners: Int = cores, preempters: Int = cores, until deadline: Deadline) -> StressLoad {
        let load = StressLoad(deadline: deadline, preempters: preempters)
        for _ in 0..<spinners { load.spawn { load.spin() } }
        for _ in 0..<preempters { load.spawn { load.preempt() } }
        return load
    }

    /// Whether this process may give a thread real-time priority (asks a short-lived thread, which keeps it).
    public static var realTimeAvailable: Bool {
        let granted = Locked(false)
        pthread_join(Threads.start { granted.withLock { $0 = raisePriority() } }, nil)
        return granted.snapshot
    }

    /// Stops every antagonist and waits until each has ended (within about 100 µs).
    public func stop() {
        stopping.store(true, ordering: .releasing)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    /// How many antagonists are running now.
    public var running: Int { live.load(ordering: .acquiring) }

    /// Whether every preempter got real-time priority (each asks as it starts: false until they all did).
    public var preemptsInRealTime: Bool { realTimePreempters.load(ordering: .acquiring) == preempters }

    private var isDone: Bool { stopping.load(ordering: .acquiring) || Deadline.now() >= deadline }

    private func spin() {
        while !isDone { Threads.spin(.microseconds(100)) }
    }

    private func preempt() {
        if Self.raisePriority() { realTimePreempters.add(1, ordering: .releasing) }
        var generator = SystemRandomNumberGenerator()
        while !isDone {
            Threads.sleep(.microseconds(Int.random(in: 20...200, using: &generator)))
            Threads.spin(.microseconds(Int.random(in: 0...100, using: &generator)))
        }
    }

    /// Gives the calling thread `SCHED_FIFO` priority 1; false when the process may not.
    private static func raisePriority() -> Bool {
        var parameters = sched_param(sched_priority: 1)
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        live.add(1, ordering: .relaxed)
        threads.append(
            Threads.start { [self] in
                clinux_set_thread_name(Self.threadName)
                body()
                live.subtract(1, ordering: .releasing)
            })
    }
}
