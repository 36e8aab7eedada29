import ArenaContract
import Harness

/// Time helpers for checks. Timing bounds in rules are generous: the machines are loaded 2-core boxes.
public enum Timing {
    /// How long a check watches a suspended or inactive queue for blocks that should not start. Long enough for an
    /// engine that ignores suspension to run a queued block on a loaded machine; short enough to keep the rule quick.
    public static let quietPeriod: Duration = .milliseconds(40)

    /// Sleeps the calling thread.
    public static func pause(_ duration: Duration) { Threads.sleep(duration) }

    /// Busy-waits without sleeping, as a block doing work would.
    public static func spin(_ duration: Duration) { Threads.spin(duration) }

    /// Spins for a random 0..<`microseconds` µs: where races hide, vary the interleaving.
    public static func jitter(upTo microseconds: Int = 20) {
        spin(.microseconds(Int.random(in: 0..<Swift.max(microseconds, 1))))
    }

    /// Blocks the calling thread for 1 ms on every `every`-th call (by `index`). Inside a region that must be
    /// exclusive this is what exposes an engine that overlaps blocks: while a worker sleeps, a pool that is allowed
    /// to run another block of the same queue does so, whereas tiny blocks are often drained by one worker anyway.
    public static func linger(_ index: Int, every: Int) {
        if index % every == every - 1 { pause(.milliseconds(1)) }
    }

    /// Waits until every thread of `threads` (kernel ids, `ThreadStates.currentID()`) is asleep in the kernel at two
    /// looks 2 ms apart, or `timeout` passed; returns whether they were. A check that must act only once threads are
    /// waiting (a signal that must find its waiters blocked) waits for this instead of pausing, which a loaded machine
    /// can outlast. Two /proc reads per thread per look.
    public static func asleep(_ threads: [Int32], within timeout: Duration = .seconds(5)) -> Bool {
        let end = Deadline.now() + timeout
        var looksAsleep = 0
        while looksAsleep < 2 {
            if Deadline.now() >= end { return false }
            looksAsleep = threads.allSatisfy { !ThreadStates.isRunnable($0) } ? looksAsleep + 1 : 0
            pause(.milliseconds(2))
        }
        return true
    }

    /// Spins (never sleeping) until `condition` holds or `timeout` passed; returns whether it held. For the two sides of
    /// a race that must meet within microseconds, which a sleep and a wake-up would pull apart.
    @discardableResult
    public static func spinUntil(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
        let end = Deadline.now() + timeout
        while !condition() {
            if Deadline.now() >= end { return condition() }
        }
        return true
    }

    /// Polls `condition` every millisecond until it holds or `timeout` passed; returns whether it held.
    public static func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
        let end = Deadline.now() + timeout
        while !condition() {
            if Deadline.now() >= end { return condition() }
            pause(.milliseconds(1))
        }
        return true
    }
}
