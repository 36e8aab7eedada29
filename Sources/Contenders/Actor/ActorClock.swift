import ArenaContract

/// Sleeping until a `Deadline` with `ContinuousClock` (what asyncAfter and timers use). The clocks differ (the
/// deadline is CLOCK_MONOTONIC), so the sleep is for the remaining duration, repeated until the deadline has passed on
/// the deadline's own clock: a wake-up a few microseconds early never runs anything early.
enum ActorClock {
    static func sleep(until deadline: Deadline) async {
        while true {
            let remaining = deadline - Deadline.now()
            if remaining <= .zero { return }
            do {
                try await Task.sleep(for: remaining, tolerance: nil, clock: ContinuousClock())
            } catch {
                return  // cancelled
            }
        }
    }
}
