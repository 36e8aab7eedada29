import ArenaContract

/// A timer source: a timer entry calls `fire`, which adds the fires due since the schedule's start to the pending data
/// and arms the next one. Counting from the start, not from the last fire, keeps a repeating timer from drifting;
/// every schedule starts a new generation, so entries armed by an earlier one do nothing.
public final class MinimalTimerSource: MinimalSource, EngineTimerSource, @unchecked Sendable {
    // Guarded by the engine's lock:
    private var generation = 0
    private var start = Deadline.distantFuture
    private var period: UInt64?  // nanoseconds; nil fires once
    private var fired: UInt64 = 0  // fires counted in this generation

    init(label: String, queue: MinimalQueue) { super.init(label: label, merge: .add, queue: queue) }

    /// Replaces the schedule and clears pending fires: one lock round and a timer entry. Leeway goes unused: each fire
    /// is due at its time.
    public func schedule(deadline: Deadline, repeating: Duration?, leeway: Duration) {
        runtime.changing {
            (generation, start, fired, pending) = (generation + 1, deadline, 0, 0)
            period = repeating.flatMap { $0 > .zero ? UInt64($0.nanosecondsClamped) : nil }
            arm(generation)
        }
    }

    /// With the lock held: asks for a call to `fire` at the next due time.
    private func arm(_ generation: Int) {
        let next = start + .nanoseconds(Int64(clamping: (period ?? 0) &* fired))
        runtime.after(next) { [weak self] in self?.fire(generation) }
    }

    /// With the lock held: adds the fires due by now and re-arms while the timer repeats.
    private func fire(_ generation: Int) {
        guard generation == self.generation && !cancelled else { return }
        let due = period.map { (Deadline.now().nanoseconds - start.nanoseconds) / $0 + 1 } ?? 1
        merge { $0 &+= UInt(due - fired) }
        fired = due
        if period != nil { arm(generation) }
    }
}
