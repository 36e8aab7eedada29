import ArenaContract
import Glibc

/// The actor engine: Grand Central Dispatch built from Swift actors and structured concurrency. It answers what the
/// GCD contract costs, and what breaks, when it is built from actors and tasks instead of threads and locks.
///
/// Every queue is an actor (`ActorQueueCore`) draining a FIFO mailbox consumed by one task (`ActorMailbox`); a
/// concurrent queue runs its blocks on runner tasks (handed over by the actor, or by the producer while the actor is
/// parked with nothing queued) and its barriers inside the actor once the running count is zero; a queue with a
/// target hands its blocks to the target as forwarded jobs. A work item flagged barrier is posted as a barrier (so
/// also from asyncAfter and group notify, which submit it as `async` does). Every
/// source is an actor holding its pending data with one handler call in flight; the first after activation is the
/// registration handler's, so deliveries wait for it. Blocks, timers (`ContinuousClock` sleeps) and asyncAfter run on
/// Swift's global concurrent executor. Synchronous callers (`sync`, the blocking waits) park their thread on a futex
/// while the actors do the work. A released queue's mailbox is finished; its drain task ends once every block ran
/// (forwarded ones awaited), and only then submits the finalizer to the target: that is when the queue is gone.
///
/// The main queue is a serial queue like the others whose drain task prefers a task executor (SE-0417,
/// `ActorMainExecutor`) that hands every job to the `dispatchMain()` thread through a `MainLoop`: the loop, its actor
/// (a default actor follows its task's preference) and so every block, sync hand-off and forwarded job of the main
/// queue run on that thread, as `@MainActor` code runs on the main thread. The preference is the task's, not a custom
/// `unownedExecutor` on the actor, because every queue's core is one actor type and the other queues keep the
/// runtime's default actor; the task starts with `dispatchMain()`, so until then the mailbox keeps what is posted.
///
/// ## The Swift-concurrency facts that shaped it, and the rules they touch
/// - **Actor jobs are not FIFO.** A `Task { await actor.run(block) }` per submission does not start in submission
///   order (Swift forums; swiftlang/swift PR #62213). So each queue's order comes from a mailbox with one consumer:
///   `serial.fifo`, `barrier.on-serial`, `concurrent.start-order`, `sync.after-earlier` rely on it.
/// - **`AsyncStream`'s lock is invisible to ThreadSanitizer on Linux**: with it as the mailbox, TSan reported every
///   hand-off (the sync waiter written by the caller, read by the actor) as a race. The mailbox is therefore a
///   `Deque` under a pthread mutex with a continuation for its one consumer (`ActorMailbox`).
/// - **The cooperative pool is as wide as the machine and never grows.** Measured here: 8 tasks that block for 200 ms
///   each take 800 ms on 2 cores, at most 2 at a time. A block that blocks its thread takes a worker away from every
///   task in the process, and two such blocks wedge it all (measured with the capability claimed:
///   `sync.on-other-queue-from-block` finished 0 of 320 chains, `sync.reentrant-concurrent` 0 of 64 blocks). So the
///   engine declares `blocking-in-blocks` missing and those two rules are `unsupported`. Blocking callers outside the
///   pool (the catalog's threads, `main`) are fine: they wait on a futex while the pool runs the block. apply from a
///   block works (`apply.nested`, `apply.from-serial`): its caller takes part, so it never waits for a thread.
/// - **A synchronous API cannot suspend.** `sync`, `wait(until:)` and `once` block the calling thread; async forms
///   (`ActorGroup.wait()`, `ActorSemaphore.wait()`, `ActorWorkItem.wait()`) suspend instead, with continuations.
/// - **A block runs without suspension points**, so during a block the thread is its task: the queue chain a block
///   runs in is a thread-local (`ActorThreadContext`), which also covers inline syncs on the global queue, run
///   outside the engine's tasks. Specific values are looked up along that chain: `specific.own-queue`,
///   `specific.inherited`, and the sync-onto-own-queue diagnostics rely on it.
/// - **Clocks differ.** Deadlines are CLOCK_MONOTONIC and `ContinuousClock` counts differently, so sleeps are for
///   the remaining duration and repeat until the deadline has passed: `after.not-early`, `timer.not-early`.
/// - **Cancellation must be immediate for a synchronous caller**, but actor messages are processed later: a source's
///   cancelled flag is an atomic checked by the delivery itself (`source.cancel`, `timer.cancel`).
///
/// Locks (pthread mutexes, never on the cooperative pool's path for long): a queue's mailbox and control state
/// (target, suspension, specific values, context and finalizer; a concurrent queue's running count is an atomic, with
/// the waiting barrier registered under the lock), the runners' FIFO, the semaphore's waiter queue, the wait lists of
/// groups, work items and once, and the neutral plumbing (reactor, signal hub, the pidfd and inotify watches).
public struct ActorEngine: Engine {
    public typealias Queue = ActorQueue
    public typealias Group = ActorGroup
    public typealias Semaphore = ActorSemaphore
    public typealias Once = ActorOnce
    public typealias UserDataSource = ActorUserDataSource
    public typealias TimerSource = ActorTimerSource
    public typealias DescriptorSource = ActorDescriptorSource
    public typealias SignalSource = ActorSignalSource
    public typealias ProcessSource = ActorProcessSource
    public typealias FileSource = ActorFileSource
    public typealias Data = RegionData
    public typealias IOChannel = SourceIOChannel<ActorEngine>

    let runtime: ActorRuntime

    /// A new engine. Its blocks run on Swift's global concurrent executor, shared by every engine instance.
    public init() { runtime = ActorRuntime() }

    public var name: String { "actor" }

    public var summary: String {
        "GCD from Swift actors and tasks: FIFO mailboxes drained by actors on Swift's cooperative pool."
    }

    public var limits: [Capability: String] {
        [
            .blockingInBlocks: """
            blocks run on Swift's cooperative pool, which is as wide as the machine and never grows (measured: 8 tasks \
            blocking 200 ms each take 800 ms on 2 cores, 2 at a time); a block that blocks (sync onto another queue, a \
            wait) takes a thread from every task in the process, and two such blocks wedge it
            """,
            .priorityScheduling: """
            a design choice, not a platform limit: every block's task is created without a priority, so Swift's \
            executor runs them in the order enqueued whatever their class, which only labels them (currentQoS); \
            measured by the rule with the capability claimed, 3 runs, at half done (100 of 200): background 40 every \
            time, utility 20-40, default 0-20, user-initiated 0, user-interactive 0-40
            """,
            .globalExecutor: """
            its queues are drained by tasks on Swift's global executor, the one it would replace: each job it is \
            handed becomes a block whose drain is a task whose job it is handed again (measured with the limit \
            lifted: global-executor.every-job-once and global-executor.sleep each crashed their child with signal \
            11, nothing on stderr, within 0.05 s)
            """,
        ]
    }

    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: ActorQueue?) -> ActorQueue {
        ActorQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target, global: runtime.global)
    }

    public var globalQueue: ActorQueue { runtime.global }

    public func globalQueue(qos: QoSClass) -> ActorQueue { runtime.globals[qos.rank] }

    /// Bookkeeping: the class of the innermost queue the thread runs (through its targets) and of the item it performs.
    public var currentQoS: QoSClass {
        PerformedItemClass.effective(queue: ActorThreadContext.current.innermost?.inheritedQoS)
    }

    /// A serial queue like any other, whose drain task runs on the main executor (`ActorMainExecutor`).
    public var mainQueue: ActorQueue { runtime.main }

    /// Starts the main queue's drain task and runs it, with every block of the queue, on the calling thread for good.
    public func dispatchMain() -> Never { runtime.runMainLoop() }

    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        ActorThreadContext.current.innermost?.inheritedSpecific(key)
    }

    public func makeGroup(label: String) -> ActorGroup { ActorGroup(label: label) }

    public func makeSemaphore(value: Int) -> ActorSemaphore? { value < 0 ? nil : ActorSemaphore(value: value) }

    public func makeOnce(label: String) -> ActorOnce { ActorOnce(label: label) }

    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) {
        ActorApply.run(iterations: iterations, width: ActorEngine.poolWidth, body)
    }

    /// The cooperative pool's width: the active CPUs.
    static let poolWidth = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    public func makeWorkItem(
        label: String, qos: QoSClass?, flags: WorkItemFlags,
        _ block: @escaping @Sendable () -> Void
    ) -> ActorWorkItem {
        ActorWorkItem(label: label, qos: qos, flags: flags, block: block)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: ActorQueue) -> ActorUserDataSource {
        ActorUserDataSource(label: label, merge: merge, queue: queue)
    }

    public func makeTimerSource(label: String, queue: ActorQueue) -> ActorTimerSource {
        ActorTimerSource(label: label, queue: queue)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: ActorQueue) -> ActorDescriptorSource {
        ActorDescriptorSource(
            label: label, descriptor: fileDescriptor, writable: false, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: ActorQueue) -> ActorDescriptorSource {
        ActorDescriptorSource(
            label: label, descriptor: fileDescriptor, writable: true, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeSignalSource(label: String, signal: Int32, queue: ActorQueue) -> ActorSignalSource {
        ActorSignalSource(label: label, signal: signal, queue: queue)
    }

    /// A pidfd watched by the reactor thread (beyond the reference: libdispatch on Linux has no process sources).
    public func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: ActorQueue
    ) -> ActorProcessSource {
        ActorProcessSource(label: label, processID: processID, events: events, queue: queue, reactor: runtime.reactor)
    }

    /// An inotify watch read by the reactor thread (beyond the reference: libdispatch on Linux has no file sources).
    public func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: ActorQueue
    ) -> ActorFileSource {
        ActorFileSource(
            label: label, fileDescriptor: fileDescriptor, events: events, queue: queue,
            reactor: runtime.reactor)
    }
}
