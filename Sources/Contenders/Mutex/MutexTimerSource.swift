import ArenaContract

/// A timer source: the timer thread counts fires into the pending data. Each schedule starts a new generation, so
/// entries of an earlier schedule fire into nothing; fires are counted from the schedule's start, so a late wake-up
/// makes one call with the missed fires and no drift.
public final class MutexTimerSource: MutexSource, EngineTimerSource, @unchecked Sendable {
    private let timers: TimerThread
    // Guarded by `lock`:
    private var generation: UInt64 = 0
    private var start = Deadline.distantFuture
    private var interval: Duration?
    private var leeway: Duration = .zero
    /// Fires counted so far in this generation.
    private var fired: Int64 = 0

    init(label: String, queue: MutexQueue, timers: TimerThread) {
        self.timers = timers
        super.init(label: label, queue: queue)
    }

    public func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        let generation = lock.withLock {
            self.generation &+= 1
            start = deadline
            interval = repeating.flatMap { $0 > .zero ? $0 : nil }
            self.leeway = leeway
            fired = 0
            pending = 0
            return self.generation
        }
        timers.scheduleRepeating(deadline: deadline, leeway: leeway) { [weak self] in self?.fire(generation) }
    }

    /// Counts the fires due by now into the pending data; returns the next deadline while the timer repeats.
    private func fire(_ generation: UInt64) -> (deadline: Deadline, leeway: Duration)? {
        lock.lock()
        guard generation == self.generation, !cancelled else {
            lock.unlock()
            return nil
        }
        guard let interval else {
            mergeAndUnlock { $0 &+= 1 }
            return nil
        }
        let due = Int64((Deadline.now() - start) / interval) + 1
        let new = UInt(max(0, due - fired))
        fired = max(fired, due)
        let next = (start + interval * fired, leeway)
        mergeAndUnlock { $0 &+= new }  // under the same lock as the generation check: a reschedule cannot slip in
        return next
    }
}
