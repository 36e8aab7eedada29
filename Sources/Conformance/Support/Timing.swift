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

    /// Spins until `condition` holds or `timeout` passed; returns whether it held. For the two sides of a race that must
    /// meet within microseconds, which a sleep and a wake-up would pull apart.
    ///
    /// It spins for `spinsBeforeNapping` (the two sides of a meeting on an idle machine meet well within it), then
    /// naps `nap` between looks. A spinner that never sleeps holds its CPU while the thread it waits for may be
    /// waiting for one: beside a neighbour's load (a build, another process spinning), each meeting then cost the
    /// scheduler's time slices, and a rule of 400 meetings grew from 0.15 s to 3.5 s with four spinning processes
    /// beside it; yielding (`sched_yield`) instead gives the CPU to the neighbour, as costly. A napping thread
    /// wakes ahead of a neighbour that kept running (the scheduler favours sleepers), and leaves its CPU to the
    /// thread it waits for meanwhile. The race is as tight as before where both sides run: a side that is off its CPU
    /// when the other arrives cannot meet it within microseconds, napping or not.
    @discardableResult
    public static func spinUntil(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
        let start = Deadline.now()
        let end = start + timeout
        let napFrom = start + spinsBeforeNapping
        while !condition() {
            let now = Deadline.now()
            if now >= end { return condition() }
            if now >= napFrom { pause(nap) }
        }
        return true
    }

    /// How long `spinUntil` spins before it naps between looks.
    public static let spinsBeforeNapping: Duration = .microseconds(200)
    /// `spinUntil`'s nap between looks, once it has spun `spinsBeforeNapping`.
    public static let nap: Duration = .microseconds(20)

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
