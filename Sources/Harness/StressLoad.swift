import Contenders
import Glibc
import Synchronization

/// Antagonist threads that shake interleavings while a check runs, as jcstress and the libdispatch stress tests do:
///
/// - **Spinners**, one per online core by default, burn CPU at normal priority, so every core always has another
///   runnable thread: an engine's thread that blocks, yields or reaches the end of its time slice loses the core,
///   for milliseconds, at whatever instruction it was on.
/// - **Sleepers**, as many again, sleep a random 20 µs to 2 ms and then spin a random 0 to 300 µs. Their wake-ups
///   preempt whoever runs at that moment, at times no check can anticipate.
///
/// On an idle machine a window of a few instructions between a check and the act it guards is almost never hit:
/// nothing else wants the core. Under this load it is hit whenever the thread is descheduled inside it.
///
/// The load is bounded: every thread stops at `stop()` or at the deadline given to `start`, whichever comes first,
/// and `stop()` joins them. It costs nothing when not started.
public final class StressLoad: @unchecked Sendable {
    private let stopping = Atomic<Bool>(false)
    private let live = Atomic<Int>(0)
    private let deadline: Deadline
    private var threads: [pthread_t] = []

    /// The online cores: the default number of spinners and of sleepers.
    public static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    private init(deadline: Deadline) { self.deadline = deadline }

    /// Starts `spinners` spinning threads and `sleepers` sleeping ones, which run until `stop()` or `deadline`.
    public static func start(spinners: Int = cores, sleepers: Int = cores, until deadline: Deadline) -> StressLoad {
        let load = StressLoad(deadline: deadline)
        for _ in 0..<spinners { load.spawn { load.spin() } }
        for _ in 0..<sleepers { load.spawn { load.sleepAndWake() } }
        return load
    }

    /// Stops every antagonist and waits until each has ended (within about a millisecond).
    public func stop() {
        stopping.store(true, ordering: .releasing)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    /// How many antagonists are running now.
    public var running: Int { live.load(ordering: .acquiring) }

    private var isDone: Bool { stopping.load(ordering: .acquiring) || Deadline.now() >= deadline }

    private func spin() {
        while !isDone { busy(.microseconds(100)) }
    }

    private func sleepAndWake() {
        var generator = SystemRandomNumberGenerator()
        while !isDone {
            Threads.sleep(.microseconds(Int.random(in: 20...2_000, using: &generator)))
            busy(.microseconds(Int.random(in: 0...300, using: &generator)))
        }
    }

    /// Burns the CPU for `duration` without touching memory another thread uses.
    private func busy(_ duration: Duration) {
        let end = Deadline.now() + duration
        while Deadline.now() < end {}
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private func spawn(_ body: @escaping () -> Void) {
        live.add(1, ordering: .relaxed)
        let body = { [self] in
            body()
            live.subtract(1, ordering: .releasing)
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(result == 0, "stress load: pthread_create failed: \(result)")
        threads.append(thread)
    }
}
