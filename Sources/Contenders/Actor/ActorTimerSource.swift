import ArenaContract
import Synchronization

/// A timer source: a task per schedule sleeps on `ContinuousClock` until each deadline, counts the fires due
/// (missed ones included, from the schedule's start, so late wake-ups do not drift) and sends them to the source's
/// actor tagged with the schedule's generation; a new schedule starts a new generation and clears what was pending.
public final class ActorTimerSource: ActorSource, EngineTimerSource, @unchecked Sendable {
    private let generation = Atomic<UInt64>(0)
    private let lock = PthreadMutex()
    private var ticker: Task<Void, Never>?  // guarded by `lock`

    init(label: String, queue: ActorQueue) {
        super.init(label: label, queue: queue, kind: PlainSourceKind(merge: .add))
    }

    deinit { lock.withLock { ticker?.cancel() } }

    public func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        let tag = generation.add(1, ordering: .relaxed).newValue
        shared.post(.reset(generation: tag))
        let interval = repeating.flatMap { $0 > .zero ? $0 : nil }
        let shared = shared
        let task = Task.detached {
            var fired: Int64 = 0
            var next = deadline
            while !Task.isCancelled && !shared.cancelled.load(ordering: .acquiring) {
                await ActorClock.sleep(until: next)
                if Task.isCancelled { return }
                guard let interval else {
                    shared.post(.fires(1, generation: tag))
                    return
                }
                let due = Int64((Deadline.now() - deadline) / interval) + 1
                if due > fired {
                    shared.post(.fires(UInt(due - fired), generation: tag))
                    fired = due
                }
                next = deadline + interval * fired
            }
        }
        lock.withLock {
            ticker?.cancel()
            ticker = task
        }
    }

    public override func cancel() {
        super.cancel()
        lock.withLock { ticker?.cancel() }
    }
}
