import ArenaContract
import Glibc
import Harness

/// Swift Concurrency's global executor: each contender installed as the process's global executor
/// (`GlobalExecutorTakeover`), checked against what Swift's default executor does, the reference (`swift`). Every rule
/// runs in a child process of its own (the runtime's hooks are process-wide) and starts its tasks after the
/// installation; every wait has a deadline (the runner's `AsyncCheck`, and each poll's own).
enum GlobalExecutorRules: RuleFamily {
    static let concept = Concept.globalExecutor
    static let rules: [any ConformanceRule.Type] = [
        GlobalEveryJobOnce.self, GlobalOnContender.self, GlobalSleep.self, GlobalDelayEntryPoint.self, GlobalDeadlineEntryPoint.self,
        GlobalPriorityClasses.self, GlobalContinuations.self, GlobalMainActor.self, GlobalExit.self, GlobalNoSwitch.self,
    ]
}

/// An actor with no executor of its own: its jobs are the global executor's.
private actor GlobalCounter {
    var count = 0
    var offContender = 0

    func bump(onContender: Bool) {
        count += 1
        if !onContender { offContender += 1 }
    }
}

/// Whether the caller runs on the contender's pool: a job of the installed global executor, or on `swift`, one of
/// Swift's default executor's workers (the layer's pool executor answers both).
private func onContender<E: Engine>(_ engine: E) -> Bool { engine.executors.poolExecutor.isCurrent }

enum GlobalEveryJobOnce: GlobalExecutorRule {
    static let id = "global-executor.every-job-once"
    static let title =
        "With the contender as the global executor, each of 1,000 child tasks of a task group runs its body exactly once, and a default actor they all call counts every call."
    static let source =
        "Swift runtime, swift_task_enqueueGlobal (the global executor runs every job it is handed, once: ExecutorJob.runSynchronously 'must be called exactly once'); SE-0304 (task groups); SE-0306 (actors)"

    static let forbidden: [Outcome] = [.missing, .notOnce]

    static func check<E: Engine>(_ engine: E) async throws {
        let children = 1000
        let runs = Locked([Int](repeating: 0, count: children))
        let counter = GlobalCounter()
        let ended = Latch()
        Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<children {
                    group.addTask {
                        runs.withLock { $0[index] += 1 }
                        await counter.bump(onContender: true)
                    }
                }
            }
            ended.countDown()
        }
        try expect(
            await eventually { ended.remainingCount == 0 }, .missing,
            "the task group did not end within 5 s: \(runs.withLock { $0.filter { $0 == 0 }.count }) of \(children) children never ran")
        let counts = runs.withLock { $0 }
        let wrong = counts.enumerated().filter { $0.element != 1 }
        try expect(
            wrong.isEmpty, .notOnce,
            "\(wrong.count) of \(children) children did not run exactly once (child \(wrong.first?.offset ?? 0) ran \(wrong.first?.element ?? 0) times)"
        )
        let counted = await counter.count
        try expect(counted == children, .missing, "the actor counted \(counted) of \(children) calls")
    }
}

enum GlobalOnContender: GlobalExecutorRule {
    static let id = "global-executor.on-contender"
    static let title =
        "With the contender as the global executor, a task, a detached task, task-group children and a default actor's methods all run on the contender's threads, before and after each await."
    static let source =
        "Swift runtime, swift_task_enqueueGlobal_hook (every job of a task or default actor without an executor of its own goes to the global executor); SE-0304; SE-0306"

    static let forbidden: [Outcome] = [.wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let counter = GlobalCounter()
        let seen = Locked<[String]>([])
        func note(_ place: String) { if !onContender(engine) { seen.withLock { $0.append(place) } } }
        await Task {
            note("a task at its start"); await Task.yield(); note("a task after a yield")
        }.value
        await Task.detached {
            note("a detached task"); await counter.bump(onContender: onContender(engine)); note("a detached task after an actor call")
        }.value
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    note("a child task"); await counter.bump(onContender: onContender(engine)); note("a child after an actor call")
                }
            }
        }
        let off = await counter.offContender
        let places = seen.withLock { $0 }
        try expect(places.isEmpty, .wrongPlace, "off the contender: \(Set(places).sorted().joined(separator: ", "))")
        try expect(off == 0, .wrongPlace, "\(off) of 17 default-actor calls ran off the contender")
    }
}

enum GlobalSleep: GlobalExecutorRule {
    static let id = "global-executor.sleep"
    static let title =
        "With the contender as the global executor, Task.sleep on the continuous and suspending clocks and Task.sleep(nanoseconds:) sleep at least as long as asked, and at most a second longer (generous: a timing rule), and resume on the contender."
    static let source =
        "Swift standard library, Task.sleep(for:tolerance:clock:) ('suspends the current task for at least the given duration'), Task.sleep(nanoseconds:); SE-0329 (clocks)"

    static let forbidden: [Outcome] = [.early, .late, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let asked = Duration.milliseconds(20)
        for round in 0..<3 {
            let sleeps: [(String, () async throws -> Void)] = [
                ("continuous clock", { try await Task.sleep(for: asked, clock: .continuous) }),
                ("suspending clock", { try await Task.sleep(for: asked, clock: .suspending) }),
                ("nanoseconds", { try await Task.sleep(nanoseconds: 20_000_000) }),
            ]
            for (name, sleep) in sleeps {
                let start = ContinuousClock.now
                try await sleep()
                let slept = ContinuousClock.now - start
                try expect(slept >= asked, .early, "round \(round), \(name): asked to sleep \(asked), woke after \(slept)")
                try expect(slept < asked + .seconds(1), .late, "round \(round), \(name): asked to sleep \(asked), woke after \(slept)")
                try expect(onContender(engine), .wrongPlace, "round \(round), \(name): woke off the contender")
            }
        }
    }
}

/// A task executor that runs nothing: it hands each job it is given to `divert`, which passes it to one of the
/// runtime's entry points; the task then runs wherever that entry point sends it.
private final class Diverter: TaskExecutor, @unchecked Sendable {
    let divert: @Sendable (UnownedJob) -> Void
    init(_ divert: @escaping @Sendable (UnownedJob) -> Void) { self.divert = divert }
    func enqueue(_ job: consuming ExecutorJob) { divert(UnownedJob(job)) }
}

@_silgen_name("swift_task_enqueueGlobalWithDelay")
private func runtimeEnqueueGlobalWithDelay(_ delay: UInt64, _ job: UnownedJob)

@_silgen_name("swift_task_enqueueGlobalWithDeadline")
private func runtimeEnqueueGlobalWithDeadline(
    _ seconds: Int64, _ nanoseconds: Int64, _ leewaySeconds: Int64, _ leewayNanoseconds: Int64, _ clock: Int32, _ job: UnownedJob)

/// A job handed to one of the runtime's entry points for jobs due later, through a task whose preferred executor
/// (`Diverter`) passes its first job there: when and where it ran, once it did (5 s at most).
private func runDiverted<E: Engine>(
    _ engine: E, _ name: String, due delay: Duration, _ entry: @escaping @Sendable (UnownedJob) -> Void
) async throws {
    let start = ContinuousClock.now
    let ran = Locked<[(Duration, Bool)]>([])
    _ = Task(executorPreference: Diverter(entry)) {
        ran.withLock { $0.append((ContinuousClock.now - start, onContender(engine))) }
    }
    _ = await eventually { !ran.withLock { $0.isEmpty } }
    let runs = ran.withLock { $0 }
    try expect(runs.count == 1, .missing, "\(name): due in \(delay), the job ran \(runs.count) times within 5 s")
    let (after, onIt) = runs[0]
    try expect(after >= delay, .early, "\(name): due in \(delay), ran after \(after)")
    try expect(after < delay + .seconds(1), .late, "\(name): due in \(delay), ran after \(after)")
    try expect(onIt, .wrongPlace, "\(name): the job ran off the contender")
}

enum GlobalDelayEntryPoint: GlobalExecutorRule {
    static let id = "global-executor.delay-entry-point"
    static let title =
        "With the contender as the global executor, a job handed to the runtime's swift_task_enqueueGlobalWithDelay runs once, on the contender, not before its delay and at most a second after (generous: a timing rule)."
    static let source =
        "Swift runtime, ConcurrencyHooks.def and Concurrency.h (swift_task_enqueueGlobalWithDelay: the global executor's entry point for a job due after a delay in nanoseconds, with its hook)"

    static let forbidden: [Outcome] = [.missing, .early, .late, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        for round in 0..<3 {
            try await runDiverted(engine, "round \(round)", due: .milliseconds(20)) { runtimeEnqueueGlobalWithDelay(20_000_000, $0) }
        }
    }
}

enum GlobalDeadlineEntryPoint: GlobalExecutorRule {
    static let id = "global-executor.deadline-entry-point"
    static let title =
        "With the contender as the global executor, a job handed to the runtime's swift_task_enqueueGlobalWithDeadline with an instant of the continuous or the suspending clock runs once, on the contender, not before that instant and at most a second after (generous: a timing rule)."
    static let source =
        "Swift runtime, ConcurrencyHooks.def and Concurrency.h (swift_task_enqueueGlobalWithDeadline: 'enqueue the given job to run asynchronously on the global execution context after the deadline', an instant of the clock named)"

    static let forbidden: [Outcome] = [.missing, .early, .late, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        for (clock, name) in [(Int32(1), "continuous clock"), (2, "suspending clock")] {
            try await runDiverted(engine, name, due: .milliseconds(20)) { enqueueDue(in: .milliseconds(20), clock: clock, $0) }
        }
    }

    /// The runtime's deadline entry point with the instant `delay` from now on `clock` (1 continuous, 2 suspending,
    /// as the runtime reads them: `swift_get_time`).
    private static func enqueueDue(in delay: Duration, clock: Int32, _ job: UnownedJob) {
        var seconds: Int64 = 0
        var nanoseconds: Int64 = 0
        swiftGetTime(&seconds, &nanoseconds, clock)
        let (wholeSeconds, attoseconds) = delay.components
        nanoseconds += attoseconds / 1_000_000_000
        seconds += wholeSeconds + nanoseconds / 1_000_000_000
        runtimeEnqueueGlobalWithDeadline(seconds, nanoseconds % 1_000_000_000, 0, 0, clock, job)
    }
}

enum GlobalPriorityClasses: GlobalExecutorRule {
    static let id = "global-executor.priority-classes"
    static let title =
        "With the contender as the global executor, a detached task of each priority runs at the class that priority names: background, utility (low), default (medium), user-initiated (high), and user-initiated for a priority above high, as Swift's default executor runs it."
    static let source =
        "Swift standard library, TaskPriority (its raw values are Dispatch's qos_class_t: 'the global concurrent executor maps priorities onto Dispatch's quality-of-service classes'); dispatch/queue.h (dispatch_get_global_queue)"

    static let forbidden: [Outcome] = [.wrongValue, .missing]

    static func check<E: Engine>(_ engine: E) async throws {
        let expected: [(TaskPriority, QoSClass)] = [
            (.background, .background), (.low, .utility), (.medium, .default), (.high, .userInitiated),
            (TaskPriority(rawValue: 0x21), .userInitiated),
        ]
        for (priority, qos) in expected {
            // Nobody awaits the task: a waiter of higher priority would escalate it, and where it then runs is the
            // escalation's business, not the mapping's.
            let seen = Locked<QoSClass?>(nil)
            Task.detached(priority: priority) { seen.withLock { $0 = engine.currentQoS } }
            try expect(
                await eventually { seen.withLock { $0 } != nil }, .missing,
                "a detached task of priority \(priority.rawValue) did not run within 5 s")
            let ran = seen.withLock { $0 }!
            try expect(
                ran == qos, .wrongValue, "a detached task of priority \(priority.rawValue) ran at \(ran.rawValue), not \(qos.rawValue)")
        }
    }
}

enum GlobalContinuations: GlobalExecutorRule {
    static let id = "global-executor.continuations"
    static let title =
        "With the contender as the global executor, a checked continuation resumed from a plain thread, Task.yield and a cancelled sleep (woken at once with CancellationError) each resume the task on the contender."
    static let source =
        "Swift standard library, withCheckedContinuation (SE-0300), Task.yield, Task.sleep ('if the task is canceled before the time ends, this function throws CancellationError')"

    static let forbidden: [Outcome] = [.wrongPlace, .wrongState, .late]

    static func check<E: Engine>(_ engine: E) async throws {
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Threads.detach { continuation.resume(returning: 7) }
        }
        try expect(value == 7, .wrongState, "a continuation resumed with 7 gave \(value)")
        try expect(onContender(engine), .wrongPlace, "a task resumed from a plain thread's continuation ran off the contender")
        await Task.yield()
        try expect(onContender(engine), .wrongPlace, "a task ran off the contender after Task.yield")
        let asleep = Latch()
        let start = ContinuousClock.now
        let sleeper = Task {
            asleep.countDown()
            do {
                try await Task.sleep(for: .seconds(60))
                return "slept the whole minute"
            } catch is CancellationError {
                guard Task.isCancelled else { return "woke with CancellationError, and Task.isCancelled was false" }
                return onContender(engine) ? "ok" : "woke with CancellationError off the contender"
            } catch {
                return "woke with \(error)"
            }
        }
        try expect(await eventually { asleep.remainingCount == 0 }, .wrongState, "the sleeping task did not start within 5 s")
        try? await Task.sleep(for: .milliseconds(5))  // into its sleep
        sleeper.cancel()
        let outcome = await sleeper.value
        let waited = ContinuousClock.now - start
        try expect(outcome == "ok", outcome.contains("off") ? .wrongPlace : .wrongState, "a cancelled sleep: \(outcome)")
        try expect(waited < .seconds(30), .late, "a cancelled sleep took \(waited) to end")
    }
}

enum GlobalMainActor: GlobalExecutorRule {
    static let id = "global-executor.main-actor"
    static let title =
        "With the contender as the global executor and its main queue as the main actor's executor, a main-actor task and a main-actor function called from a task run on the main-loop thread, the caller resumes on the contender, and MainActor.assumeIsolated holds in a block of the main queue."
    static let source =
        "Swift runtime, swift_task_enqueueMainExecutor_hook and the standard library's MainExecutor (the main actor's jobs run on the executor that owns the main thread); SE-0392 (assumeIsolated); dispatch_get_main_queue(3)"

    static var needsMainLoop: Bool { true }
    static let forbidden: [Outcome] = [.wrongPlace, .missing]

    static func check<E: Engine>(_ engine: E) async throws {
        let key = SpecificKey<Bool>("arena.global-executor.main")
        engine.mainQueue.setSpecific(key, true)
        let onLoop: @Sendable () -> Bool = { engine.currentSpecific(key) == true }
        let inTask = await Task { @MainActor in onLoop() }.value
        try expect(inTask, .wrongPlace, "a main-actor task ran off the main loop")
        let inFunction = await MainActor.run { onLoop() }
        try expect(inFunction, .wrongPlace, "MainActor.run from a task ran its body off the main loop")
        try expect(onContender(engine), .wrongPlace, "a task resumed off the contender after a main-actor call")
        let held = Latch()
        let isolated = Locked(false)
        engine.mainQueue.async {
            MainActor.assumeIsolated { isolated.withLock { $0 = onLoop() } }
            held.countDown()
        }
        try expectOpens(held, "the main-queue block calling MainActor.assumeIsolated")
        try expect(isolated.withLock { $0 }, .wrongPlace, "MainActor.assumeIsolated's body ran off the main loop")
    }
}

enum GlobalExit: GlobalExecutorRule {
    static let id = "global-executor.exit"
    static let title =
        "A program with the contender as its global executor that exits while 64 of its tasks sleep ends at once, with status 0, and none of those tasks runs after the program's last line."
    static let source =
        "C standard, exit (the process ends; atexit handlers run first); Swift runtime, swift_task_enqueueGlobal (the global executor's jobs are the program's: they end with it); SE-0304 (tasks not awaited are not waited for at exit)"

    static let forbidden: [Outcome] = [.extra, .late, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let child = await withCheckedContinuation { (continuation: CheckedContinuation<ChildOutcome, Never>) in
            Threads.detach {
                continuation.resume(
                    returning: ChildProcess.run([], environment: ["\(GlobalExitProbe.variable)=\(engine.name)"], limit: .seconds(5)))
            }
        }
        try expect(child.termination != .timedOut, .late, "the program had not exited 5 s after it called exit")
        try expect(
            child.termination == .exited(0), .wrongState,
            "the program ended with \(child.termination), not status 0: \(ChildOutcome.firstLine(of: child.standardError.split(separator: "\n")))"
        )
        let lines = child.standardOutput.split(separator: "\n")
        let late = lines.filter { $0 == "late" }.count
        try expect(late == 0, .extra, "\(late) of 64 sleeping tasks ran as the program exited")
        try expect(lines == ["last"], .wrongState, "the program wrote \(lines.prefix(3)), not its one line 'last'")
    }
}

enum GlobalNoSwitch: GlobalExecutorRule {
    static let id = "global-executor.continuation-body-at-once"
    static let title =
        "With the contender as the global executor, a task without a preference runs withUnsafeContinuation's body at once, in the job that called it: a lock held across the call is never held while the task waits to run again, so a cancellation handler taking that lock from another thread never deadlocks (20 trials of 5 ms)."
    static let source =
        "Swift standard library, withUnsafeContinuation ('the body closure is run immediately'; swift-async-algorithms' merge relies on it to hold its lock across the call); withTaskCancellationHandler ('the cancellation handler may be invoked while holding internal locks associated with the task')"

    static let forbidden: [Outcome] = [.lost]

    /// A lock the task holds across `withUnsafeContinuation`, as swift-async-algorithms' `MergeStorage.next` does.
    final class HeldAcross: @unchecked Sendable {
        let lock = Lock()
        var rounds = 0
    }

    static func check<E: Engine>(_ engine: E) async throws {
        for trial in 0..<20 {
            let held = HeldAcross()
            let task = Task.detached {
                while !Task.isCancelled {
                    await withTaskCancellationHandler {
                        pthread_mutex_lock(held.lock.pointer)
                        held.rounds += 1
                        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                            pthread_mutex_unlock(held.lock.pointer)
                            continuation.resume()
                        }
                    } onCancel: {
                        held.lock.withLock {}
                    }
                }
            }
            try? await Task.sleep(for: .milliseconds(5))
            let cancelled = Latch()
            Threads.detach {
                task.cancel()  // takes the task's status lock, then ours in the handler
                cancelled.countDown()
            }
            try expect(
                await eventually(within: .seconds(3)) { cancelled.remainingCount == 0 }, .lost,
                "trial \(trial): the cancellation never returned: the task had suspended holding the lock it took before withUnsafeContinuation, and its next job waits for the task's status lock the cancellation holds (a deadlock, after \(held.rounds) rounds)"
            )
            await task.value
        }
    }
}

/// The program `global-executor.exit` starts: this executable again with `variable` naming the engine, which the
/// command line's entry point runs before it parses anything (`run`).
public enum GlobalExitProbe {
    /// The environment variable naming the engine to install.
    public static let variable = "ARENA_GLOBAL_EXIT_PROBE"

    /// Installs `engine` as the global executor, starts 64 tasks that sleep 100 ms and then write `late`, waits until
    /// each has started, writes `last` and exits (status 0); a refused installation exits 3 naming it.
    public static func run<E: Engine>(_ engine: E) -> Never {
        do { try GlobalExecutorTakeover.install(engine) } catch {
            writeLine("cannot install \(engine.name): \(error)", to: 2)
            exit(3)
        }
        let started = Latch(64)
        for _ in 0..<64 {
            Task.detached {
                started.countDown()
                try? await Task.sleep(for: .milliseconds(100))
                writeLine("late", to: 1)
            }
        }
        if !started.wait(.seconds(3)) { writeLine("\(started.remainingCount) of 64 tasks never started", to: 2) }
        writeLine("last", to: 1)
        exit(0)
    }

    /// One line, written at once (no buffer for `exit` to flush after the tasks' lines).
    private static func writeLine(_ line: String, to descriptor: Int32) {
        let text = line + "\n"
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
    }
}
