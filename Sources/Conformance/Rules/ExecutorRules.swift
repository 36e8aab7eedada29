import ArenaContract
import Harness
import Synchronization

/// Swift executors: each contender's serial executors (actors running on its serial queues) and task executor (tasks
/// preferring its global queue), checked against the contract of SE-0392 (custom actor executors), SE-0417 (task
/// executor preference) and SE-0424 (custom isolation checking). Every wait has a deadline: the check's task is
/// bounded by the runner (`AsyncCheck`), and each poll inside ends by itself.
enum ExecutorRules: RuleFamily {
    static let concept = Concept.executors
    static let rules: [any ConformanceRule.Type] = [
        ExecutorSerialFIFO.self, ExecutorSerialExclusive.self, ExecutorActorOnQueue.self, ExecutorAssumeIsolatedInBlock.self,
        ExecutorAssumeIsolatedOffQueue.self, ExecutorAssumeIsolatedOtherQueue.self, ExecutorIsolationOverPreference.self,
        ExecutorPreferenceOnPool.self, ExecutorChildrenInherit.self, ExecutorSleep.self, ExecutorCancellation.self,
        ExecutorPoolParallel.self, ExecutorColocated.self, ExecutorCheckIsolatedOffQueue.self,
    ]
}

/// An actor on a serial executor of a layer: what its methods saw, and a count they keep.
actor ExecutorProbe<Executor: LayerSerialExecutor> {
    let executor: Executor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    var count = 0
    var order: [Int] = []
    /// Methods running now, counted atomically so that two at once are seen even where the executor lets them race.
    let running = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)

    init(_ executor: Executor) { self.executor = executor }

    /// Starts `count` tasks isolated to this actor, in index order: each is enqueued on the executor as it is made,
    /// and records its index when it runs (after this method returned).
    func startInOrder(_ count: Int) {
        for index in 0..<count {
            Task { self.order.append(index) }
        }
    }

    var recorded: Int { order.count }

    /// Counts one call; a call that finds another one running counts an overlap. Stays 5 µs on the clock in between
    /// (a loop the optimizer could fold would be no time at all), so that two calls that may overlap do.
    func guardedIncrement() {
        if running.wrappingAdd(1, ordering: .relaxed).newValue != 1 { overlaps.wrappingAdd(1, ordering: .relaxed) }
        let until = Deadline.now() + .microseconds(5)
        while Deadline.now() < until {}
        count += 1
        running.wrappingSubtract(1, ordering: .relaxed)
    }

    /// What `sample` returns at entry, after a yield and after a sleep of 1 ms: each resumption comes back through
    /// the executor.
    func samples<T: Sendable>(_ sample: @Sendable () -> T) async -> [T] {
        var seen = [sample()]
        await Task.yield()
        seen.append(sample())
        try? await Task.sleep(for: .milliseconds(1))
        seen.append(sample())
        return seen
    }

    func bump() { count += 1 }
}

/// The layer's serial executor labelled `label`, or a failure saying the layer has none (the rules needing one say so
/// in `needs`, so the runner does not get here on a layer without).
private func actorExecutor<E: Engine>(_ engine: E, _ label: String) throws -> E.Executors.ActorExecutor {
    guard let executor = engine.executors.makeActorExecutor(label: label) else {
        throw RuleFailure(.wrongState, "the layer made no serial executor, yet it claims serial-executors")
    }
    return executor
}

enum ExecutorSerialFIFO: ExecutorRule {
    static let id = "executor.serial-fifo"
    static let title =
        "Jobs enqueued on a serial executor run in the order they were enqueued: tasks made one after another inside an actor on it run in that order."
    static let source =
        "SE-0392 Custom Actor Executors ('a serial executor ... executes jobs one at a time', and Dispatch's serial queues, the proposal's example, run them first in, first out); SE-0431 @isolated(any) (a task isolated to an actor is enqueued on its executor as it is made)"
    static let needs: Set<Capability> = [.serialExecutors]

    static let forbidden: [Outcome] = [.missing, .reordered, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        for round in 0..<5 {
            let probe = ExecutorProbe(try actorExecutor(engine, "arena.executor.fifo.\(round)"))
            let count = 300
            await probe.startInOrder(count)
            let ran = await eventually { await probe.recorded == count }
            let order = await probe.order
            try expect(ran, .missing, "round \(round): \(order.count) of \(count) tasks ran within 5 s")
            if let wrong = order.indices.first(where: { order[$0] != $0 }) {
                throw RuleFailure(
                    .reordered,
                    "round \(round): tasks made in order 0..<\(count) ran as \(order[max(0, wrong - 2)..<min(count, wrong + 3)]) at position \(wrong)"
                )
            }
        }
    }
}

enum ExecutorSerialExclusive: ExecutorRule {
    static let id = "executor.serial-exclusive"
    static let title =
        "A serial executor runs one job at a time: an actor on it called by many tasks at once never runs two of its methods together, and loses no call."
    static let source =
        "SE-0392 Custom Actor Executors ('SerialExecutor ... guarantees mutual exclusion of the jobs it executes'); the standard library's SerialExecutor documentation"
    static let needs: Set<Capability> = [.serialExecutors]

    static let forbidden: [Outcome] = [.missing, .lost, .overlap, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let probe = ExecutorProbe(try actorExecutor(engine, "arena.executor.exclusive"))
        let tasks = 8, calls = 500
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask { for _ in 0..<calls { await probe.guardedIncrement() } }
            }
        }
        let count = await probe.count
        let overlaps = probe.overlaps.load(ordering: .relaxed)
        try expect(overlaps == 0, .overlap, "\(overlaps) of \(tasks * calls) calls found another call of the actor running")
        try expect(count == tasks * calls, .lost, "\(tasks) tasks × \(calls) calls counted \(count)")
    }
}

enum ExecutorActorOnQueue: ExecutorRule {
    static let id = "executor.actor-on-queue"
    static let title =
        "An actor on a serial executor runs its methods on the executor's queue: the queue's specific value is visible in them, at entry and after every suspension, and the executor reports them isolated."
    static let source =
        "SE-0392 Custom Actor Executors (an actor's unownedExecutor decides where its jobs run; the proposal's DispatchSerialQueue example); libdispatch queue.h dispatch_get_specific"
    static let needs: Set<Capability> = [.serialExecutors]

    static let forbidden: [Outcome] = [.missing, .wrongPlace, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let executor = try actorExecutor(engine, "arena.executor.on-queue")
        let key = SpecificKey<String>("arena.executor.on-queue.key")
        executor.setSpecific(key, "on-queue")
        let probe = ExecutorProbe(executor)
        for call in 0..<20 {
            let seen = await probe.samples { (engine.currentSpecific(key), executor.isIsolatingCurrentContext()) }
            for (moment, (value, isolated)) in zip(["at entry", "after a yield", "after a sleep"], seen) {
                try expect(
                    value == "on-queue", .wrongPlace,
                    "call \(call), \(moment): the queue's specific value read \(value.map { "'\($0)'" } ?? "nil") in the actor's method")
                try expect(
                    isolated == true, .wrongPlace,
                    "call \(call), \(moment): the executor reported isolation \(isolated.map(String.init) ?? "nil") in the actor's method")
            }
        }
    }
}

enum ExecutorAssumeIsolatedInBlock: ExecutorRule {
    static let id = "executor.assume-isolated-in-block"
    static let title =
        "In a plain block submitted to a serial executor's queue, assumeIsolated and preconditionIsolated on an actor running on it succeed, and what the block changes is the actor's state."
    static let source =
        "SE-0424 Custom isolation checking for SerialExecutor (checkIsolated lets assumeIsolated succeed off a Swift task, on the executor's queue); SE-0392 (Actor.assumeIsolated, preconditionIsolated)"
    static let needs: Set<Capability> = [.serialExecutors]

    static let forbidden: [Outcome] = [.missing, .wrongPlace, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let executor = try actorExecutor(engine, "arena.executor.in-block")
        let probe = ExecutorProbe(executor)
        let blocks = 50
        let refused = Locked(0)
        let done = Latch(blocks)
        for _ in 0..<blocks {
            executor.submit {
                // Asked first, so that an executor that would refuse makes this check fail instead of the process trap.
                if executor.isIsolatingCurrentContext() == true {
                    probe.preconditionIsolated()
                    probe.assumeIsolated { $0.bump() }
                } else {
                    refused.withLock { $0 += 1 }
                }
                done.countDown()
            }
        }
        try expect(await eventually { done.remainingCount == 0 }, .missing, "\(done.remainingCount) of \(blocks) blocks ran within 5 s")
        let refusals = refused.snapshot
        try expect(refusals == 0, .wrongPlace, "in \(refusals) of \(blocks) blocks on the queue the executor reported no isolation")
        let count = await probe.count
        try expect(count == blocks, .wrongPlace, "the actor counted \(count) of the \(blocks) bumps made inside assumeIsolated")
    }
}

/// `assumeIsolated` where the actor's executor is not running: must trap with the runtime's message naming the actor.
private protocol AssumeIsolatedMisuse: MisuseRule {}

extension AssumeIsolatedMisuse {
    static var objectLabel: String { "ExecutorProbe" }
    static var keywords: [String] { ["actor executor assumption", "isolat"] }
    static var needs: Set<Capability> { [.serialExecutors] }
    static var layer: Capability { .executors }
}

enum ExecutorAssumeIsolatedOffQueue: AssumeIsolatedMisuse {
    static let id = "executor.assume-isolated-off-queue"
    static let title =
        "assumeIsolated on an actor running on a serial executor, called from a plain thread, stops the process with a message naming the actor."
    static let source =
        "SE-0392 Custom Actor Executors (assumeIsolated: 'if the current context is not running on the actor's serial executor ... this method will crash with a fatal error'); SE-0424"

    static func trigger<E: Engine>(_ engine: E) {
        guard let executor = engine.executors.makeActorExecutor(label: "arena.executor.off-queue") else { return }
        let probe = ExecutorProbe(executor)
        probe.assumeIsolated { $0.bump() }
    }
}

enum ExecutorAssumeIsolatedOtherQueue: AssumeIsolatedMisuse {
    static let id = "executor.assume-isolated-other-queue"
    static let title =
        "assumeIsolated on an actor, called from a block of another serial executor's queue, stops the process with a message naming the actor: isolation is the actor's own queue, not any queue."
    static let source =
        "SE-0392 Custom Actor Executors (assumeIsolated); SE-0424 (checkIsolated must check the specific executor, as dispatch_assert_queue checks the specific queue)"

    static func trigger<E: Engine>(_ engine: E) {
        guard let mine = engine.executors.makeActorExecutor(label: "arena.executor.mine"),
            let other = engine.executors.makeActorExecutor(label: "arena.executor.other")
        else { return }
        let probe = ExecutorProbe(mine)
        let returned = Latch()
        other.submit {
            probe.assumeIsolated { $0.bump() }
            returned.countDown()
        }
        _ = returned.wait(.seconds(5))
    }
}

enum ExecutorIsolationOverPreference: ExecutorRule {
    static let id = "executor.isolation-over-preference"
    static let title =
        "A task preferring the pool that calls an actor on a serial executor runs the actor's method on the actor's queue, not the pool, and its own code after the call on the pool again."
    static let source =
        "SE-0417 Task Executor Preference ('the task executor preference does not override actor isolation': isolated code runs on the actor's executor; non-isolated code on the preferred executor)"
    static let needs: Set<Capability> = [.serialExecutors]

    static let forbidden: [Outcome] = [.missing, .wrongPlace, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let layer = engine.executors
        let executor = try actorExecutor(engine, "arena.executor.over-preference")
        let probe = ExecutorProbe(executor)
        let pool = layer.poolExecutor
        try await withTaskExecutorPreference(pool) {
            for call in 0..<20 {
                let inside = await probe.samples { (executor.isIsolatingCurrentContext() == true, pool.isCurrent) }
                try expect(
                    inside.allSatisfy { $0.0 && !$0.1 }, .wrongPlace,
                    "call \(call): in the actor's method (isolated to its executor, on the pool) it saw \(inside)")
                try expect(pool.isCurrent, .wrongPlace, "call \(call): back from the actor, the preferring task did not run on the pool")
            }
        }
    }
}

/// What `pool.isCurrent` reads in a nonisolated async function: such a function runs on the task's preferred
/// executor (SE-0417), not on its caller's.
private nonisolated func poolAfterHop<P: LayerTaskExecutor>(_ pool: P) async -> [Bool] {
    var seen = [pool.isCurrent]
    await Task.yield()
    seen.append(pool.isCurrent)
    return seen
}

enum ExecutorPreferenceOnPool: ExecutorRule {
    static let id = "executor.preference-on-pool"
    static let title =
        "A task run with a preference for the layer's task executor runs its non-isolated code on it: at the start, after every suspension, and in the non-isolated async functions it calls."
    static let source =
        "SE-0417 Task Executor Preference (withTaskExecutorPreference: 'the task ... will execute on the given executor' wherever it is not isolated to an actor)"

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let pool = engine.executors.poolExecutor
        try expect(
            !pool.isCurrent || engine.executors.poolIsDefault, .wrongPlace,
            "the check's own task, with no preference, already reported running on the layer's task executor")
        try await withTaskExecutorPreference(pool) {
            for round in 0..<20 {
                var seen = [pool.isCurrent]
                await Task.yield()
                seen.append(pool.isCurrent)
                try? await Task.sleep(for: .microseconds(100))
                seen.append(pool.isCurrent)
                seen += await poolAfterHop(pool)
                try expect(
                    !seen.contains(false), .wrongPlace,
                    "round \(round): on the layer's task executor at start, after a yield, after a sleep, in a nonisolated function (before and after a yield): \(seen)"
                )
            }
        }
    }
}

enum ExecutorChildrenInherit: ExecutorRule {
    static let id = "executor.children-inherit"
    static let title =
        "Child tasks of a task preferring the layer's task executor, in a task group or an async let, inherit the preference and run on it."
    static let source =
        "SE-0417 Task Executor Preference ('child tasks ... inherit the task executor preference of their parent'; structured concurrency's task groups and async let)"

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let pool = engine.executors.poolExecutor
        try await withTaskExecutorPreference(pool) {
            let children = 16
            let off = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<children {
                    group.addTask {
                        var misses = pool.isCurrent ? 0 : 1
                        await Task.yield()
                        misses += pool.isCurrent ? 0 : 1
                        return misses
                    }
                }
                return await group.reduce(0, +)
            }
            try expect(
                off == 0, .wrongPlace,
                "\(off) of \(children * 2) looks by \(children) task-group children found them off the layer's task executor")
            async let first = poolAfterHop(pool)
            async let second = poolAfterHop(pool)
            let seen = await first + second
            try expect(
                !seen.contains(false), .wrongPlace,
                "two async let children on the layer's task executor at start and after a yield: \(seen)")
        }
    }
}

enum ExecutorSleep: ExecutorRule {
    static let id = "executor.sleep"
    static let title =
        "Task.sleep on each of the layer's executors sleeps at least as long as asked and resumes on the executor it slept on: a task preferring the task executor on it, an actor's method on the actor's queue."
    static let source =
        "Swift standard library, Task.sleep(for:tolerance:clock:) ('suspends the current task for at least the given duration'); SE-0417; SE-0392"

    static let forbidden: [Outcome] = [.missing, .early, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let layer = engine.executors
        let pool = layer.poolExecutor
        let asked = Duration.milliseconds(20)
        try await withTaskExecutorPreference(pool) {
            for round in 0..<3 {
                let start = ContinuousClock.now
                try await Task.sleep(for: asked)
                let slept = ContinuousClock.now - start
                try expect(
                    slept >= asked, .early, "round \(round): a task on the task executor asked to sleep \(asked) woke after \(slept)")
                try expect(pool.isCurrent, .wrongPlace, "round \(round): a task on the task executor woke off it")
            }
        }
        guard let executor = layer.makeActorExecutor(label: "arena.executor.sleep") else { return }
        let key = SpecificKey<String>("arena.executor.sleep.key")
        executor.setSpecific(key, "sleep")
        let probe = ExecutorProbe(executor)
        for round in 0..<3 {
            let seen = await probe.samples { engine.currentSpecific(key) }
            try expect(
                seen.allSatisfy { $0 == "sleep" }, .wrongPlace,
                "round \(round): an actor's method on the executor read the queue's value \(seen) at entry, after a yield and after a sleep"
            )
        }
    }
}

enum ExecutorCancellation: ExecutorRule {
    static let id = "executor.cancellation"
    static let title =
        "Cancelling a task group on the layer's task executor wakes its sleeping children at once with CancellationError, on the executor, and they see Task.isCancelled."
    static let source =
        "Swift standard library, Task.sleep ('if the task is canceled before the time ends, this function throws CancellationError'), TaskGroup.cancelAll; SE-0417"

    static let forbidden: [Outcome] = [.missing, .late, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let pool = engine.executors.poolExecutor
        try await withTaskExecutorPreference(pool) {
            let children = 4
            let asleep = Latch(children)
            let start = ContinuousClock.now
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<children {
                    group.addTask {
                        asleep.countDown()
                        do {
                            try await Task.sleep(for: .seconds(60))
                            return "slept the whole minute"
                        } catch is CancellationError {
                            if !Task.isCancelled { return "woke with CancellationError, and Task.isCancelled was false" }
                            return pool.isCurrent ? "ok" : "woke with CancellationError off the task executor"
                        } catch {
                            return "woke with \(error)"
                        }
                    }
                }
                _ = await eventually { asleep.remainingCount == 0 }
                try? await Task.sleep(for: .milliseconds(5))  // into their sleeps
                group.cancelAll()
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            let waited = ContinuousClock.now - start
            let wrong = outcomes.filter { $0 != "ok" }
            try expect(wrong.isEmpty, .wrongState, "\(wrong.count) of \(children) cancelled children: \(wrong.joined(separator: "; "))")
            try expect(waited < .seconds(30), .late, "cancelled children took \(waited) to end")
        }
    }
}

enum ExecutorPoolParallel: ExecutorRule {
    static let id = "executor.pool-parallel"
    static let title =
        "Tasks preferring the layer's task executor run in parallel: two of them, each holding its thread until the other arrives (3 s at most), meet."
    static let source = """
        SE-0417 Task Executor Preference (a task executor runs the jobs of every task that prefers it; the layer's is its \
        global concurrent queue, which runs jobs concurrently: dispatch_queue_create(3)); Swift's global concurrent \
        executor, the default preference, is a pool as wide as the machine (two threads here, enough for two tasks)
        """
    static let forbidden: [Outcome] = [.serialized, .missing]

    static func check<E: Engine>(_ engine: E) async throws {
        let pool = engine.executors.poolExecutor
        try await withTaskExecutorPreference(pool) {
            for round in 0..<5 {
                let arrived = Latch(2)
                let met = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            // Blocks its thread on purpose: only a second thread of the executor can open the latch.
                            arrived.countDown()
                            return arrived.wait(.seconds(3))
                        }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                try expect(
                    met == 2, .serialized,
                    "round \(round): two tasks preferring the layer's task executor never ran at the same time (\(met) of 2 met within 3 s)"
                )
            }
        }
    }
}

enum ExecutorColocated: ExecutorRule {
    static let id = "executor.colocated"
    static let title =
        "A task preferring the task executor beside a serial executor runs where that executor's actor runs: its own code on the executor's queue and isolated to it, at the start, after every suspension and after each call into the actor, whose method runs there too."
    static let source =
        "SE-0417 Task Executor Preference (the preferred executor runs the task's non-isolated code; a task executor that is also the actor's serial executor lets a call into the actor run without a hop); SE-0392 (an actor's methods run on its executor); the contract's ExecutorLayer.colocatedExecutor(for:)"
    static let needs: Set<Capability> = [.serialExecutors, .colocatedExecutors]

    static let forbidden: [Outcome] = [.missing, .wrongPlace, .wrongState]

    static func check<E: Engine>(_ engine: E) async throws {
        let executor = try actorExecutor(engine, "arena.executor.colocated")
        guard let beside = engine.executors.colocatedExecutor(for: executor) else {
            throw RuleFailure(.wrongState, "the layer made no task executor beside its serial executor, yet it claims colocated-executors")
        }
        let key = SpecificKey<String>("arena.executor.colocated.key")
        executor.setSpecific(key, "beside")
        let probe = ExecutorProbe(executor)
        try await withTaskExecutorPreference(beside) {
            for round in 0..<20 {
                var seen: [(moment: String, value: String?, isolated: Bool?, current: Bool)] = []
                func look(_ moment: String) {
                    seen.append((moment, engine.currentSpecific(key), executor.isIsolatingCurrentContext(), beside.isCurrent))
                }
                look("at the start")
                await Task.yield()
                look("after a yield")
                try? await Task.sleep(for: .microseconds(100))
                look("after a sleep")
                let inside = await probe.samples { (engine.currentSpecific(key), executor.isIsolatingCurrentContext()) }
                look("after a call into the actor")
                for (moment, value, isolated, current) in seen {
                    try expect(
                        value == "beside" && isolated == true && current, .wrongPlace,
                        "round \(round), \(moment): the task's own code read the queue's specific value \(value.map { "'\($0)'" } ?? "nil"), isolation \(isolated.map(String.init) ?? "nil"), on its executor \(current)"
                    )
                }
                for (moment, (value, isolated)) in zip(["at entry", "after a yield", "after a sleep"], inside) {
                    try expect(
                        value == "beside" && isolated == true, .wrongPlace,
                        "round \(round), in the actor's method \(moment): the queue's specific value \(value.map { "'\($0)'" } ?? "nil"), isolation \(isolated.map(String.init) ?? "nil")"
                    )
                }
            }
        }
    }
}

enum ExecutorCheckIsolatedOffQueue: MisuseRule {
    static let id = "executor.check-isolated-off-queue"
    static let title =
        "A serial executor's checkIsolated, called from a plain thread, stops the process with a message naming the executor."
    static let source =
        "SE-0424 Custom isolation checking for SerialExecutor (checkIsolated 'must crash' when the current context is not isolated to the executor; the runtime calls it where isIsolatingCurrentContext gives no answer, and a program may call it directly, as dispatchPrecondition(condition: .onQueue) is called)"
    static let objectLabel = "arena.executor.check-isolated"
    static let keywords = ["isolat"]
    static let needs: Set<Capability> = [.serialExecutors]
    static var layer: Capability { .executors }

    static func trigger<E: Engine>(_ engine: E) {
        engine.executors.makeActorExecutor(label: objectLabel)?.checkIsolated()
    }
}
