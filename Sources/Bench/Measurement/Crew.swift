import ArenaContract
import Harness

/// A crew of plain threads that start their work together, for workloads where several callers contend.
///
/// The threads are created and parked before the clock starts; a gate then releases them at once (the start barrier
/// of Google Benchmark and JMH), and the clock stops when the last one finished. Creating the crew costs about 50 µs
/// a thread, outside the timed region.
public enum Crew {
    /// Runs `body(index)` on `count` threads released together, then `finish` on the caller (work the threads
    /// left behind, such as draining a queue), and returns the time from the release until `finish` returned. Throws
    /// a timed-out error if the threads are not all done by `deadline`.
    public static func run(
        _ count: Int, until deadline: Deadline, finish: () -> Void = {},
        _ body: @escaping @Sendable (Int) -> Void
    ) throws(WorkloadError) -> Stopwatch.Reading {
        let ready = Latch(count)
        let gate = Latch()
        let done = Latch(count)
        for index in 0..<count {
            Threads.detach {
                ready.countDown()
                gate.wait(until: .distantFuture)
                body(index)
                done.countDown()
            }
        }
        guard ready.wait(until: deadline) else {
            gate.countDown()
            throw WorkloadError("timed out starting \(count) threads", timedOut: true)
        }
        let watch = Stopwatch()
        gate.countDown()
        guard done.wait(until: deadline) else {
            throw WorkloadError("timed out: \(done.remainingCount) of \(count) threads never finished", timedOut: true)
        }
        finish()
        return watch.read()
    }
}
