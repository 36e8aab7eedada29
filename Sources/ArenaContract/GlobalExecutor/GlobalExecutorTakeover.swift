import CLinux
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// Makes a layer's executor Swift Concurrency's global executor for the rest of the process, the way SwiftNIO's
/// takeover does (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`), and
/// further: every runtime hook that carries a job, and the standard library's default executor.
///
/// - The runtime's hooks (`swift_task_enqueueGlobal_hook`, `…WithDelay_hook`, `…WithDeadline_hook`, and with `main`
///   `swift_task_enqueueMainExecutor_hook`): every job the runtime hands the global executor (a task's, a default
///   actor's) and every job due later that reaches the runtime's entry points.
/// - `_createExecutors(factory:)` (the standard library's executor factory, SPI in Swift 6.3): `Task.sleep` and the
///   clocks' sleeps ask for a scheduling executor (`Task.currentSchedulingExecutor`: the task's preference, else the
///   default executor) and never reach the delay hooks, so without it a sleep's timer stays libdispatch's; with it the
///   engine's timer (its queues' `asyncAfter`) keeps every sleep. With `main`, the main actor's executor too.
///
/// Install before the first task starts: at the top of `main`, or from a library's constructor (the preloadable
/// `ArenaGlobalExecutor`). Jobs enqueued before stay where they went. Installing is for good: nothing uninstalls.
public enum GlobalExecutorTakeover {
    /// The contender whose executor was installed, or `nil`.
    public static var installed: String? { state.name }

    /// Whether the calling code runs in a job of the installed global executor; `false` when none is installed.
    public static var isCurrent: Bool { state.executor?.isCurrent ?? false }

    /// Installs `engine`'s global executor (its layer's `makeGlobalExecutor()`) and, with `main`, the engine's main
    /// queue as the main actor's executor: the program must then hand its main thread to the engine (an `async` main
    /// does, through the executor's `run()`, or `engine.dispatchMain()`). A contender whose executor layer's pool is
    /// Swift's default executor (`swift`) installs nothing: it is the global executor already. Installing the same
    /// contender again does nothing. Throws, having changed nothing, where the engine cannot serve, a hook is taken or
    /// another contender was installed.
    public static func install<E: Engine>(_ engine: E, main: Bool = false) throws(TakeoverRefusal) {
        if let lack = EngineProfile(engine).lack(of: .globalExecutor) {
            throw .cannotServe(contender: engine.name, reason: lack.reason)
        }
        if let name = state.name {
            guard name == engine.name else { throw .alreadyTaken(by: name, asked: engine.name) }
            return
        }
        if engine.executors.poolIsDefault {
            state.name = engine.name
            return
        }
        guard let executor = engine.executors.makeGlobalExecutor() else {
            throw .cannotServe(contender: engine.name, reason: "its executor layer makes no global executor")
        }
        try install(executor, named: engine.name, main: main)
    }

    /// Installs `executor` under `name`: checks every hook first, then sets the default executor and the hooks.
    private static func install(_ executor: any LayerGlobalExecutor, named name: String, main: Bool) throws(TakeoverRefusal) {
        let hooks = try Hooks.find(main: main)
        state.executor = executor
        state.mainExecutor = main ? GlobalMainExecutor(executor) : nil
        state.name = name
        _createExecutors(factory: TakeoverFactory.self)
        hooks.set(main: main)
    }

    /// What was installed. Written once, before the hooks that read it are set, so any thread that runs a hook sees it.
    nonisolated(unsafe) static var state = State()

    struct State {
        var name: String?
        var executor: (any LayerGlobalExecutor)?
        var mainExecutor: GlobalMainExecutor?
    }
}

// MARK: - The executor factory

/// The standard library's factory, answering with the installed executors: the default executor is the installed
/// one behind `SchedulingAdapter`, the main executor the engine's main queue where the program handed it its thread
/// and the platform's otherwise.
enum TakeoverFactory: ExecutorFactory {
    static var defaultExecutor: any TaskExecutor { SchedulingAdapter(GlobalExecutorTakeover.state.executor!) }
    static var mainExecutor: any MainExecutor {
        GlobalExecutorTakeover.state.mainExecutor ?? PlatformExecutorFactory.mainExecutor
    }
}

/// The installed executor as the standard library's default executor: plain jobs go to it as they are, and jobs due
/// at an instant of a clock whose durations are `Duration` (the continuous and suspending clocks, which are all
/// `Task.sleep` schedules) go to it with the instant as a `Deadline`.
final class SchedulingAdapter: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    let executor: any LayerGlobalExecutor

    init(_ executor: any LayerGlobalExecutor) { self.executor = executor }

    func enqueue(_ job: consuming ExecutorJob) { executor.enqueue(job) }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        executor.enqueue(UnownedJob(job), at: Self.deadline(in: clock.now.duration(to: instant), of: clock))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        executor.enqueue(UnownedJob(job), at: Self.deadline(in: delay, of: clock))
    }

    /// Now plus `remaining` on the contract's clock; a clock whose durations are no `Duration` is misuse.
    private static func deadline<C: Clock>(in remaining: C.Duration, of clock: C) -> Deadline {
        guard let remaining = remaining as? Duration else {
            misuse("the global executor can schedule only on clocks measured in Duration, not on \(C.self)")
        }
        return remaining <= .zero ? Deadline.now() : Deadline.now() + remaining
    }
}

/// The engine's main queue as the main actor's executor, where the program hands its main thread to the engine: the
/// main actor's jobs run there, one at a time, isolated to it; `run()` hands over the calling thread for good.
final class GlobalMainExecutor: MainExecutor, JobRunner, @unchecked Sendable {
    let executor: any LayerGlobalExecutor
    private let queue: any EngineQueue
    private var unownedSelf: UnownedSerialExecutor!
    private unowned(unsafe) var runner: (any JobRunner)?

    init(_ executor: any LayerGlobalExecutor) {
        self.executor = executor
        queue = executor.mainQueue
        unownedSelf = UnownedSerialExecutor(ordinary: self)
        runner = self
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { unownedSelf }

    func enqueue(_ job: consuming ExecutorJob) { queue.async(job: UnownedJob(job), runner: runner.unsafelyUnwrapped) }

    func runJob(_ job: UnownedJob) { job.runSynchronously(on: unownedSelf) }

    func run() throws { executor.runMainLoop() }

    func runUntil(_ condition: () -> Bool) throws {
        misuse("the engine's main loop runs for good: it cannot run until a condition (RunLoopExecutor.runUntil)")
    }

    func stop() { misuse("the engine's main loop runs for good: it cannot be stopped (RunLoopExecutor.stop)") }

    var isMainExecutor: Bool { true }

    func isIsolatingCurrentContext() -> Bool? { executor.isOnMainLoop }

    func checkIsolated() {
        if !executor.isOnMainLoop {
            misuse("main actor isolation check failed: the caller is not running on the engine's main loop")
        }
    }
}

// MARK: - The runtime's hooks

/// The runtime's hook variables, found by name in the loaded Swift runtime, and the functions set in them. Each hook
/// is a C function pointer the runtime calls instead of its own entry point, passing the original too; ours never
/// call the original.
struct Hooks {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias EnqueueHook = @convention(thin) (UnownedJob, Original) -> Void
    typealias DelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
    typealias DelayHook = @convention(thin) (UInt64, UnownedJob, DelayOriginal) -> Void
    typealias DeadlineOriginal = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    typealias DeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, DeadlineOriginal) -> Void

    static let enqueueName = "swift_task_enqueueGlobal_hook"
    static let delayName = "swift_task_enqueueGlobalWithDelay_hook"
    static let deadlineName = "swift_task_enqueueGlobalWithDeadline_hook"
    static let mainName = "swift_task_enqueueMainExecutor_hook"

    let enqueue: UnsafeMutablePointer<EnqueueHook?>
    let delay: UnsafeMutablePointer<DelayHook?>
    let deadline: UnsafeMutablePointer<DeadlineHook?>
    let main: UnsafeMutablePointer<EnqueueHook?>

    /// The hook variables, each checked empty (only the main one where `main` asks for it). Found by the linker
    /// (`CLinux`), not `dlsym`: a build that links the Swift runtime in (`--static-swift-stdlib`, the bundle's) exports
    /// no dynamic symbol for them.
    static func find(main: Bool) throws(TakeoverRefusal) -> Hooks {
        func variable<T>(_ address: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> UnsafeMutablePointer<T?> {
            UnsafeMutableRawPointer(address).assumingMemoryBound(to: T?.self)
        }
        let hooks = Hooks(
            enqueue: variable(clinux_swift_enqueue_global_hook()), delay: variable(clinux_swift_enqueue_global_with_delay_hook()),
            deadline: variable(clinux_swift_enqueue_global_with_deadline_hook()), main: variable(clinux_swift_enqueue_main_executor_hook()))
        if hooks.enqueue.pointee != nil { throw .hookTaken(hook: enqueueName) }
        if hooks.delay.pointee != nil { throw .hookTaken(hook: delayName) }
        if hooks.deadline.pointee != nil { throw .hookTaken(hook: deadlineName) }
        if main && hooks.main.pointee != nil { throw .hookTaken(hook: mainName) }
        return hooks
    }

    /// Sets our functions in the variables: from here on, every job the runtime hands the global executor is ours.
    func set(main: Bool) {
        delay.pointee = { nanoseconds, job, _ in
            GlobalExecutorTakeover.state.executor.unsafelyUnwrapped.enqueue(job, at: .now() + .nanoseconds(nanoseconds))
        }
        deadline.pointee = { seconds, nanoseconds, _, _, clock, job, _ in
            GlobalExecutorTakeover.state.executor.unsafelyUnwrapped.enqueue(
                job, at: Hooks.deadline(seconds: seconds, nanoseconds: nanoseconds, clock: clock))
        }
        if main {
            self.main.pointee = { job, _ in
                GlobalExecutorTakeover.state.mainExecutor.unsafelyUnwrapped.enqueue(ExecutorJob(job))
            }
        }
        enqueue.pointee = { job, _ in GlobalExecutorTakeover.state.executor.unsafelyUnwrapped.enqueue(ExecutorJob(job)) }
    }

    /// The instant `seconds`/`nanoseconds` of the runtime's clock `clock` (1 continuous, 2 suspending: `_ClockID`) as
    /// a `Deadline`: now plus what remains of it on that clock, which the runtime reads (`swift_get_time`).
    static func deadline(seconds: Int64, nanoseconds: Int64, clock: Int32) -> Deadline {
        var nowSeconds: Int64 = 0
        var nowNanoseconds: Int64 = 0
        swiftGetTime(&nowSeconds, &nowNanoseconds, clock)
        let remaining = Duration.seconds(seconds - nowSeconds) + .nanoseconds(nanoseconds - nowNanoseconds)
        return remaining <= .zero ? .now() : .now() + remaining
    }
}

/// The runtime's clock reading, as the standard library declares it for its clocks.
@_silgen_name("swift_get_time")
package func swiftGetTime(_ seconds: UnsafeMutablePointer<Int64>, _ nanoseconds: UnsafeMutablePointer<Int64>, _ clock: CInt)
