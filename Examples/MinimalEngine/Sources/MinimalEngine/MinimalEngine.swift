import ArenaContract
import Glibc

/// The minimal engine: the smallest honest GCD, written to be read top-down.
///
/// How it is built: one pthread mutex and one condition variable for the whole engine (`Monitor`). Every object keeps
/// its state under that lock, every wait (sync, group, semaphore, work item, once, apply) is a timed wait on that
/// condition, and every change broadcasts. A queue is a FIFO of jobs; worker threads (`Runtime`) start the head job of
/// any queue whose whole target chain lets it in, and a sync caller starts its own job and runs it on its own thread.
/// Timers are a list the idle workers sleep on; a source is a serial queue of its own. The engine holds a queue until
/// its last job ran, so a queue's deinit is the moment it is gone: that is where its finalizer goes to its target. The
/// main queue is a serial queue whose jobs, and those of queues targeting it, only the thread in `dispatchMain()`
/// starts; a sync onto it hands the block to that thread. One lock for everything is slow under contention, and simple.
///
/// Reading order: this file, `Monitor`, `Runtime`, `MinimalQueue` (the heart), then `MinimalGroup`,
/// `MinimalSemaphore`, `MinimalOnce`, `MinimalWorkItem`, `MinimalApply`, `MinimalSource`, `MinimalTimerSource`.
public struct MinimalEngine: Engine {
    /// The buffer the home engines share: data schedules nothing but its deallocator, so it is neutral plumbing, and
    /// `makeData` comes with it (`Engine where Data == RegionData`).
    public typealias Data = RegionData
    public typealias IOChannel = SourceIOChannel<MinimalEngine>

    private let runtime = Runtime()

    /// A new engine; its worker threads start with the first work and live as long as the process.
    public init() {}
    /// The registry name, `minimal`; free.
    public var name: String { "minimal" }
    /// How the engine is built, in one sentence; free.
    public var summary: String { "GCD in a few hundred lines: one mutex and one condition variable for everything." }

    /// The capabilities left out, with their reasons: descriptor, signal, process and file sources.
    public var limits: [Capability: String] {
        let why = "left out to keep the tutorial engine a few hundred lines; the mutex engine shows them"
        return [
            .descriptorSources: "\(why) (an epoll reactor thread)", .signalSources: "\(why) (a signalfd hub)",
            .processSources: "\(why) (a pidfd on the reactor)", .fileSources: "\(why) (inotify on the reactor)",
            .workItemQoS: "\(why) (the class of the item each thread performs)",
            .priorityScheduling:
                "a design choice, as in the home engines: queues take turns in the order they got work, whatever their class",
        ]
    }

    /// A new queue: one allocation, no thread.
    public func makeQueue(
        label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool,
        target: MinimalQueue?
    ) -> MinimalQueue {
        MinimalQueue(label: label, kind: kind, qos: qos, startsInactive: startsInactive, target: target, runtime: runtime)
    }

    /// The global concurrent queue; free.
    public var globalQueue: MinimalQueue { runtime.global }
    /// The global queue of a class: a concurrent queue of that class targeting the global queue (so, unlike the global
    /// queue itself, it honours barriers and suspension); free.
    public func globalQueue(qos: QoSClass) -> MinimalQueue { runtime.globals[qos.rank] }
    /// The class of the innermost queue the calling thread runs a job of, or of the nearest queue above it with one; a
    /// label only, since every class shares one pool. One lock round.
    public var currentQoS: QoSClass {
        runtime.locked { runtime.entered[pthread_self()]?.last?.inheritedQoS } ?? .default
    }
    /// The main queue, a serial queue run by the thread in `dispatchMain()`; free.
    public var mainQueue: MinimalQueue { runtime.main }
    /// Makes the calling thread the one that runs the main queue's jobs, for good.
    public func dispatchMain() -> Never { runtime.runMain() }

    /// The value for `key` seen from the caller's job: one lock round and a walk up the queue's chain.
    public func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        runtime.locked { runtime.entered[pthread_self()]?.last?.inheritedSpecific(key) }
    }

    /// A new, empty group: one allocation.
    public func makeGroup(label: String) -> MinimalGroup { MinimalGroup(label: label, runtime: runtime) }
    /// A semaphore starting at `value` (nil when negative): one allocation.
    public func makeSemaphore(value: Int) -> MinimalSemaphore? { value < 0 ? nil : MinimalSemaphore(value, runtime) }
    /// A new once token: one allocation.
    public func makeOnce(label: String) -> MinimalOnce { MinimalOnce(label: label, runtime: runtime) }

    /// Runs `body` for every index on the caller and up to `width - 1` helpers: a lock round per chunk of indices.
    public func apply(iterations: Int, _ body: @Sendable (Int) -> Void) { MinimalApply.run(iterations, runtime, body) }

    /// A new work item: one allocation.
    /// A work item; its class is ignored (see `limits`).
    public func makeWorkItem(label: String, qos: QoSClass?, flags: WorkItemFlags, _ block: @escaping @Sendable () -> Void)
        -> MinimalWorkItem
    {
        MinimalWorkItem(label: label, flags: flags, runtime: runtime, block: block)
    }

    /// A new, inactive user-data source: two allocations (the source and its queue).
    public func makeUserDataSource(label: String, merge: DataMerge, queue: MinimalQueue) -> MinimalSource {
        MinimalSource(label: label, merge: merge, queue: queue)
    }

    /// A new, inactive, unscheduled timer source: two allocations (the source and its queue).
    public func makeTimerSource(label: String, queue: MinimalQueue) -> MinimalTimerSource {
        MinimalTimerSource(label: label, queue: queue)
    }

    /// Stops the process: this engine lacks descriptor sources (see `limits`).
    public func makeReadSource(label: String, fileDescriptor: Int32, queue: MinimalQueue) -> MinimalSource {
        misuse("read source '\(label)' needs descriptor-sources, which the minimal engine lacks")
    }

    /// Stops the process: this engine lacks descriptor sources (see `limits`).
    public func makeWriteSource(label: String, fileDescriptor: Int32, queue: MinimalQueue) -> MinimalSource {
        misuse("write source '\(label)' needs descriptor-sources, which the minimal engine lacks")
    }

    /// Stops the process: this engine lacks signal sources (see `limits`).
    public func makeSignalSource(label: String, signal: Int32, queue: MinimalQueue) -> MinimalSource {
        misuse("signal source '\(label)' needs signal-sources, which the minimal engine lacks")
    }

    /// Stops the process: this engine lacks process sources (see `limits`).
    public func makeProcessSource(
        label: String, processID: Int32, events: ProcessEvents,
        queue: MinimalQueue
    ) -> MinimalSource {
        misuse("process source '\(label)' needs process-sources, which the minimal engine lacks")
    }

    /// Stops the process: this engine lacks file sources (see `limits`).
    public func makeFileSource(
        label: String, fileDescriptor: Int32, events: FileEvents,
        queue: MinimalQueue
    ) -> MinimalSource {
        misuse("file source '\(label)' needs file-sources, which the minimal engine lacks")
    }
}
