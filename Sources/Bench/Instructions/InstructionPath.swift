import ArenaContract
import Harness

/// A single-threaded path of an engine whose cost `arena instructions` counts, in instructions per operation, under
/// valgrind's callgrind.
///
/// `run` sets the path up, does `warmUp` operations and then `operations` more, checks the answer, and tears down.
/// A count is the difference between two runs that differ only in `operations` (see `InstructionCount`), so
/// everything but the extra operations (process start, setup, warm-up, teardown, a final wake-up) cancels. Each
/// path is chosen so that the same operation takes the same instructions in every run: nothing in it waits for
/// another thread between two operations, since valgrind runs one thread at a time and who runs next at a hand-off
/// is the kernel's choice.
public enum InstructionPath: String, CaseIterable, Sendable, Codable {
    /// `sync` of an empty block onto a serial queue nobody else uses, from a plain thread.
    case sync
    /// `async` of an empty block onto a serial queue that is suspended, so the blocks pile up, and then its run when
    /// the queue is resumed and drained by a worker: one operation is one block submitted and run. The suspension
    /// keeps the worker from racing the submitter, so no operation pays for a wake-up; the batch's one wake-up and
    /// the final hand-off are the same in both runs and cancel.
    case asyncDrain = "async-drain"
    /// One iteration of an `apply` whose body is one opaque call (`opaque`): the per-iteration cost (index hand-out,
    /// the call). The per-apply cost (starting helpers, the final wait) is the same in both runs and cancels.
    case apply
    /// `enter` then `leave` on a group with no waiter and no notification, empty before each pair, so every `leave`
    /// takes the path to empty.
    case groupEnterLeave = "group-enter-leave"
    /// `merge(1)` on an active add source whose handler queue is suspended: every merge coalesces into the pending
    /// data and no handler call is counted in the operations (the one call after the queue resumes is in both runs
    /// and cancels).
    case sourceMerge = "source-merge"
    /// A Swift job on the engine's serial executor (`EngineSerialExecutor`, an actor's executor over a serial queue):
    /// one operation is one task made from inside the actor, its first job enqueued on the executor, then run by a
    /// worker draining the queue. The tasks are made inside a `sync` onto the queue, which holds it, so the jobs pile up
    /// as in `async-drain` and no operation pays for a wake-up. The Swift runtime's part (making the task, running and
    /// freeing it) is in the count, the same on every engine.
    case executorJob = "executor-job"

    /// Warm-up operations, the same in every run, before the counted ones: lazily made state (thread-local records,
    /// caches, the first growth of buffers) is in place before the extra operations start.
    public static let warmUp = 100

    /// What one operation is, for the table.
    public var operation: String {
        switch self {
        case .sync: "one sync of an empty block (serial queue, one caller)"
        case .asyncDrain: "one async of an empty block and its run (suspended serial queue, then drained)"
        case .apply: "one apply iteration (body: one opaque call)"
        case .groupEnterLeave: "one group enter and leave"
        case .sourceMerge: "one merge into an add source (handler queue suspended: coalesced)"
        case .executorJob: "one task's job on a serial executor (enqueued while the queue is held, then drained)"
        }
    }

    /// The larger operation count of the pair `arena instructions` runs by default (the smaller is half of it). The
    /// difference between the two runs must dwarf what still varies in a run's fixed part (about 3,000 instructions
    /// with the run pinned, a pool's workers spinning before they park), so the cheap paths take many operations:
    /// at least 0.8 million instructions of difference, 0.4% at worst. `apply` takes more: its pool's workers may
    /// spin for work beside the caller, which once in about ten runs added 280,000 instructions to one of 400,000
    /// iterations (mutex: 33.4 instead of 32.0 per iteration), so it runs 2 million. Callgrind runs 30 to 50 million
    /// instructions a second here, so the slowest run (`actor`'s `sync`, 3,000 instructions each) lasts about 2 s.
    public var defaultOperations: Int {
        switch self {
        case .sync: 20_000
        case .asyncDrain: 10_000
        case .apply: 2_000_000
        case .groupEnterLeave: 40_000
        case .sourceMerge: 40_000
        case .executorJob: 10_000
        }
    }

    /// Runs the path: setup, `warmUp` operations, then `operations` more, a check of the answer and teardown.
    /// Throws when the engine computed wrongly or a wait passed `deadline`. Inlinable, so a caller that knows `E`
    /// (a `Contender`) compiles it for the engine's type: the count then measures the engine, not witness tables.
    @inlinable
    public func run<E: Engine>(
        warmUp: Int = InstructionPath.warmUp, operations: Int, on engine: E,
        until deadline: Deadline
    ) throws(WorkloadError) {
        switch self {
        case .sync: try Self.sync(warmUp, operations, on: engine)
        case .asyncDrain: try Self.asyncDrain(warmUp, operations, on: engine, until: deadline)
        case .apply: Self.apply(warmUp, operations, on: engine)
        case .groupEnterLeave: try Self.groupEnterLeave(warmUp, operations, on: engine)
        case .sourceMerge: try Self.sourceMerge(warmUp, operations, on: engine, until: deadline)
        case .executorJob: try Self.executorJob(warmUp, operations, on: engine, until: deadline)
        }
    }

    @inlinable
    static func sync<E: Engine>(_ warmUp: Int, _ operations: Int, on engine: E) throws(WorkloadError) {
        let queue = engine.makeQueue(label: "instructions.sync", kind: .serial)
        // Written only inside `sync`, which returns after the block ran: a plain local suffices.
        var ran = 0
        for _ in 0..<warmUp { queue.sync { ran &+= 1 } }
        for _ in 0..<operations { queue.sync { ran &+= 1 } }
        try WorkloadError.check("blocks run by sync", ran, expected: warmUp + operations)
    }

    @inlinable
    static func asyncDrain<E: Engine>(
        _ warmUp: Int, _ operations: Int, on engine: E,
        until deadline: Deadline
    ) throws(WorkloadError) {
        let queue = engine.makeQueue(label: "instructions.async-drain", kind: .serial)
        let ran = SharedCounter()
        // One closure, made once: the count holds no allocation of the path's own per block.
        let block: @Sendable () -> Void = { ran.value &+= 1 }
        for batch in [warmUp, operations] {
            queue.suspend()
            for _ in 0..<batch { queue.async(block) }
            let drained = Latch()
            queue.async { drained.countDown() }
            queue.resume()
            if !drained.wait(until: deadline) {
                throw WorkloadError("timed out waiting for the queue to drain \(batch) blocks", timedOut: true)
            }
        }
        // The latch orders the last block's write before this read.
        try WorkloadError.check("blocks run", ran.value, expected: warmUp + operations)
    }

    @inlinable
    static func apply<E: Engine>(_ warmUp: Int, _ operations: Int, on engine: E) {
        // No check of the indices: counting them would add the check's instructions to every iteration, and the
        // catalog's apply rules check that every index runs once. The body is one call the compiler must keep: an
        // engine that inlines the body into its caller's loop (lockfree) would otherwise delete the caller's share
        // of the iterations, and the count would depend on how the iterations split between caller and helpers.
        engine.apply(iterations: warmUp) { InstructionPath.opaque($0) }
        engine.apply(iterations: operations) { InstructionPath.opaque($0) }
    }

    /// A body the optimizer cannot remove (never inlined, and it may trap), costing a call and a comparison.
    @inline(never) @usableFromInline
    static func opaque(_ index: Int) {
        if index < 0 { fatalError("apply passed a negative index \(index)") }
    }

    @inlinable
    static func groupEnterLeave<E: Engine>(_ warmUp: Int, _ operations: Int, on engine: E) throws(WorkloadError) {
        let group = engine.makeGroup(label: "instructions.group")
        for _ in 0..<warmUp {
            group.enter()
            group.leave()
        }
        for _ in 0..<operations {
            group.enter()
            group.leave()
        }
        try WorkloadError.check("the group after balanced pairs", group.wait(until: .now()), expected: .success)
    }

    @inlinable
    static func sourceMerge<E: Engine>(
        _ warmUp: Int, _ operations: Int, on engine: E,
        until deadline: Deadline
    ) throws(WorkloadError) {
        let queue = engine.makeQueue(label: "instructions.source-merge", kind: .serial)
        let source = engine.makeUserDataSource(label: "instructions.source-merge", merge: .add, queue: queue)
        let tally = MergeSum(expected: warmUp + operations)
        let cancelled = Latch()
        // Weak: the source keeps its handler, so a strong capture would keep the source alive forever.
        source.setEventHandler { [weak source] in
            if let source { tally.deliver(source.data) }
        }
        source.setCancelHandler { cancelled.countDown() }
        queue.suspend()
        source.activate()
        for _ in 0..<warmUp { source.merge(1) }
        for _ in 0..<operations { source.merge(1) }
        queue.resume()
        let arrived = tally.arrived.wait(until: deadline)
        source.cancel()
        if !arrived { throw WorkloadError("timed out waiting for the handler to see every merge", timedOut: true) }
        if !cancelled.wait(until: deadline) { throw WorkloadError("timed out waiting for the cancel handler", timedOut: true) }
        // The cancel handler runs after the last event handler call, and the latch orders this read after it.
        try WorkloadError.check("the data summed over handler calls", tally.sum, expected: warmUp + operations)
    }
}

extension InstructionPath {
    @inlinable
    static func executorJob<E: Engine>(
        _ warmUp: Int, _ operations: Int, on engine: E,
        until deadline: Deadline
    ) throws(WorkloadError) {
        let counter = JobCounter(executor: EngineSerialExecutor(engine: engine, label: "instructions.executor-job"))
        for batch in [warmUp, operations] {
            let ran = Latch()
            // Inside the queue's block the caller holds the queue and is on the actor's executor, so the tasks it
            // makes enqueue their first jobs behind it; the queue runs them once the block returns.
            counter.executor.queue.sync { counter.assumeIsolated { $0.spawn(batch, then: ran) } }
            if !ran.wait(until: deadline) {
                throw WorkloadError("timed out waiting for \(batch) jobs on the executor", timedOut: true)
            }
        }
        let total = counter.executor.queue.sync { counter.assumeIsolated { $0.ran } }
        try WorkloadError.check("jobs run on the executor", total, expected: warmUp + operations)
    }
}

/// An actor on an engine's serial executor that makes tasks isolated to itself and counts the ones that ran: each
/// task's first job goes straight to the executor (a task's closure carries its isolation, SE-0431).
@usableFromInline actor JobCounter<E: Engine> {
    @usableFromInline nonisolated let executor: EngineSerialExecutor<E>
    @usableFromInline var ran = 0
    @usableFromInline var target = 0
    @usableFromInline var finished: Latch?

    @inlinable init(executor: EngineSerialExecutor<E>) { self.executor = executor }

    @inlinable nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Makes `count` tasks on this actor; `latch` opens when the last of them ran.
    @inlinable func spawn(_ count: Int, then latch: Latch) {
        target = ran + count
        finished = latch
        for _ in 0..<count { Task { self.count() } }
    }

    @inlinable func count() {
        ran += 1
        if ran == target { finished?.countDown() }
    }
}

/// The data a source's handler saw, summed; opens `arrived` once the sum reaches `expected`. Only the handler
/// writes it, and handler calls of one source never overlap.
@usableFromInline final class MergeSum: @unchecked Sendable {
    @usableFromInline let expected: Int
    @usableFromInline let arrived = Latch()
    @usableFromInline var sum = 0

    @inlinable init(expected: Int) { self.expected = expected }

    @inlinable func deliver(_ data: UInt) {
        let before = sum
        sum &+= Int(data)
        if before < expected && sum >= expected { arrived.countDown() }
    }
}
