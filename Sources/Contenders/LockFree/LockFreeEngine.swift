import ArenaContract

/// The lock-free engine: Grand Central Dispatch built the way libdispatch builds its fast paths. Submitting work,
/// taking work, signalling and merging are atomic operations; a thread enters the kernel only to sleep when there
/// is nothing to do, or to wake a sleeper.
///
/// ## Algorithms, and where they come from
/// - Queues (`LockFreeQueue`): Dmitry Vyukov's intrusive MPSC queue (1024cores.net) per queue, and a 64-bit state
///   word (jobs reserved, scheduled, inactive, suspend count) that elects exactly one drainer; libdispatch's design of
///   a queue that schedules itself on its target when it goes from idle to non-empty. Concurrent queues: a width word
///   (running, barrier running/waiting, pending barriers) makes barriers run alone; a block submitted with nothing
///   waiting takes a running slot and goes straight to the target, otherwise a dispatcher fans blocks out in order.
/// - Jobs (`LockFreeJobSpares`): reused through per-thread lists and a shared stack of batches that only pushes and
///   takes everything at once (a Treiber stack without ABA), so a warm `async` and its run allocate nothing. A Swift
///   job of the executor layer rides in a node as a block would (`LockFreeSwiftJob`, through `async(job:runner:)`),
///   so an actor's or a task's job allocates nothing either.
/// - sync: run on the caller's thread when one CAS per link takes the queue and its target chain (as libdispatch's
///   `dispatch_sync` fast path); otherwise park a waiter in the FIFO and sleep on a futex.
/// - Pool (`LockFreeWorkerPool`): Tokio's scheduler (Carl Lerche, 2019): per-worker FIFO run queues with steal-half,
///   a global injection queue (Vyukov's bounded MPMC queue), brief spinning with a searching count, then parking on a
///   futex (Ulrich Drepper, "Futexes Are Tricky"). Blocked workers are compensated as libdispatch does on Linux, and
///   a watch adds threads for blocking work it cannot see, doubling the grant while the starvation lasts.
/// - Groups, work items, once: atomic counters and state words with futex waits; notification lists are Treiber
///   stacks popped whole. Semaphores: libdispatch's value-and-wakeups algorithm with a futex.
/// - apply: an atomic cursor handing out shrinking chunks; the caller takes part.
/// - Sources: pending data merged by atomic add/or/exchange, one arming CAS per batch on a flags word.
///
/// ## Memory ordering, in short
/// Every hand-off of a job publishes it with a release (MPSC exchange and link, MPMC sequence store, run-queue tail
/// store) and takes it with an acquire, so a job's fields are visible to whoever runs it. The two "no lost wake-up"
/// handshakes are Dekker-style, each side writing then fencing sequentially consistently before reading the other's
/// word: a push (job, then `parked`/`searching`) against a parking worker (`parked`, then the queues), and a merge
/// (pending data, then flags) against a delivery (flags, then pending data). A drainer gives up `scheduled` only by a
/// CAS that also sees no job reserved, and producers reserve before they link.
///
/// ## Reclamation
/// Jobs are reference counted and travel as +1 `Unmanaged` references: a push hands the reference to the container,
/// a pop takes it back, so a job is freed only when nothing holds it. Vyukov's MPSC needs no more: a producer touches
/// the node it replaced only to link it, and the consumer frees a node only after seeing that link. The MPMC ring and
/// the run queues hold no memory of their own to reclaim. A finished job is kept for reuse only when its reference is
/// the last (`isKnownUniquelyReferenced`); its work is dropped first, as freeing it would. A scheduled queue holds one retain on itself (taken with
/// the `scheduled` bit, released with it), so its unowned doorbell job never outlives it.
///
/// ## Locks, all off the hot paths
/// - `PoolGrowth` (a pthread mutex): starting, retiring and joining threads, and the starvation watch's 10 ms look.
/// - `LockFreeQueueAttachments` (a pthread mutex per queue): queue-specific values, the context and the finalizer.
/// - Neutral plumbing shared with the mutex engine: `EngineServices` (starting the timer thread and the reactor on
///   first use), `TimerThread` (its heap: asyncAfter and timers),
///   `EpollReactor` (its registration table: descriptor, process and file sources), `ExitWatch` and `FileWatch` (a
///   lock each around a pidfd or an inotify instance), `SignalHub` (its listener table: signal sources).
/// No queue, pool, group, semaphore, once, apply, work item or user-data source operation takes a lock.
public struct LockFreeEngine: Engine {
    public typealias Queue = LockFreeQueue
    public typealias Group = LockFreeGroup
    public typealias Semaphore = LockFreeSemaphore
    public typealias Once = LockFreeOnce
    public typealias UserDataSource = LockFreeUserDataSource
    public typealias TimerSource = LockFreeTimerSource
    public typealias DescriptorSource = LockFreeDescriptorSource
    public typealias SignalSource = LockFreeSignalSource
    public typealias ProcessSource = LockFreeProcessSource
    public typealias FileSource = LockFreeFileSource
    public typealias Data = RegionData
    public typealias IOChannel = SourceIOChannel<LockFreeEngine>

    @usableFromInline let runtime: LockFreeRuntime

    /// A new engine with a worker pool of its own.
    public init() { runtime = LockFreeRuntime() }

    public var name: String { "lockfree" }

    public var summary: String {
        "GCD from atomics: Vyukov MPSC queues, a work-stealing pool parking on futexes, no locks on hot paths."
    }

    public var limits: [Capability: String] {
        [
            .priorityScheduling: """
            a design choice, not a platform limit: the run queues and the injection queue are FIFO, so jobs run in the order pushed whatever their class, which only \
            labels them (currentQoS); measured by the rule with the capability claimed, 3 runs, each at half done (100 of \
            200): background 40, utility 40, default 10, user-initiated 10, user-interactive 0
            """
        ]
    }

    public func makeQueue(label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: LockFreeQueue?) -> LockFreeQueue {
        LockFreeQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target, runtime: runtime)
    }

    public var globalQueue: LockFreeQueue { runtime.global }

    public func globalQueue(qos: QoSClass) -> LockFreeQueue { runtime.globals[qos.rank] }

    /// Bookkeeping: the class of the innermost queue the thread runs (through its targets) and of the item it performs.
    public var currentQoS: QoSClass {
        PerformedItemClass.effective(queue: LockFreeThreadContext.current.innermost?.inheritedQoS)
    }

    /// A serial queue like any other, whose doorbell rings on the main loop instead of the pool.
    public var mainQueue: LockFreeQueue { runtime.main }

    /// Runs the main queue's turns on the calling thread for good.
    public func dispatchMain() -> Never { runtime.mainLoop.run() }

    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        guard let queue = LockFreeThreadContext.borrowed._withUnsafeGuaranteedRef({ $0.innermostUnmanaged }) else {
            return nil
        }
        return LockFreeQueue.inheritedSpecific(key, from: queue)
    }

    public func makeGroup(label: String) -> LockFreeGroup { LockFreeGroup(label: label) }

    public func makeSemaphore(value: Int) -> LockFreeSemaphore? { value < 0 ? nil : LockFreeSemaphore(value: value) }

    public func makeOnce(label: String) -> LockFreeOnce { LockFreeOnce(label: label) }

    /// Inlinable, so the caller's chunks run with `body` inlined where the closure is known (see `LockFreeApply`).
    /// An apply of many iterations starts alone (`LockFreeApply.runAlone`) and calls helpers only if it has not
    /// finished by the time one could have joined.
    @inlinable
    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        var start = 0
        if LockFreeApply.startsAlone(iterations, on: runtime) {
            start = LockFreeApply.runAlone(iterations, body)
            if start == iterations { return }
        }
        let apply = LockFreeApply(iterations: iterations, from: start, runtime: runtime)
        withoutActuallyEscaping(body) { lent in
            apply.callHelpers(lent, on: runtime)
            while let chunk = apply.claim() {
                for index in chunk { body(index) }
                apply.callerRan(chunk)
            }
            apply.waitForHelpers()
        }
    }

    public func makeWorkItem(
        label: String, qos: QoSClass?, flags: WorkItemFlags,
        _ block: @escaping @Sendable () -> Void
    ) -> LockFreeWorkItem {
        LockFreeWorkItem(label: label, qos: qos, flags: flags, block: block)
    }

    public func makeUserDataSource(label: String, merge: DataMerge, queue: LockFreeQueue) -> LockFreeUserDataSource {
        LockFreeUserDataSource(label: label, merge: merge, queue: queue)
    }

    public func makeTimerSource(label: String, queue: LockFreeQueue) -> LockFreeTimerSource {
        LockFreeTimerSource(label: label, queue: queue, timers: runtime.timers)
    }

    public func makeReadSource(label: String, fileDescriptor: Int32, queue: LockFreeQueue) -> LockFreeDescriptorSource {
        LockFreeDescriptorSource(
            label: label, descriptor: fileDescriptor, direction: .read, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: LockFreeQueue) -> LockFreeDescriptorSource {
        LockFreeDescriptorSource(
            label: label, descriptor: fileDescriptor, direction: .write, queue: queue,
            reactor: runtime.reactor)
    }

    public func makeSignalSource(label: String, signal: Int32, queue: LockFreeQueue) -> LockFreeSignalSource {
        LockFreeSignalSource(label: label, signal: signal, queue: queue)
    }

    /// A pidfd watched by the reactor thread (beyond the reference: libdispatch on Linux has no process sources).
    public func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: LockFreeQueue
    ) -> LockFreeProcessSource {
        LockFreeProcessSource(
            label: label, processID: processID, events: events, queue: queue,
            reactor: runtime.reactor)
    }

    /// An inotify watch read by the reactor thread (beyond the reference: libdispatch on Linux has no file sources).
    public func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: LockFreeQueue
    ) -> LockFreeFileSource {
        LockFreeFileSource(
            label: label, fileDescriptor: fileDescriptor, events: events, queue: queue,
            reactor: runtime.reactor)
    }

    /// Stops and joins every thread this engine started, after the queued work ran.
    public func shutdown() { runtime.shutdown() }

    /// Threads the worker pool runs now.
    public var workerThreads: Int { runtime.pool.liveThreads }
}

extension LockFreeEngine: ThreadPoolEngine {}
