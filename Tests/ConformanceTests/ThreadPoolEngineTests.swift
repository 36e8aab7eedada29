import Contenders
import Glibc
import Synchronization
import Testing

/// What the catalog cannot see of the mutex engine: its threads.
extension ArenaTests {
    @Suite
    struct MutexEngineTests {
        final class Tally: Sendable {
            let done = Atomic<Int>(0)
            let peakThreads = Atomic<Int>(0)
        }

        @Test("shutdown runs the queued work, then stops and joins every thread it started")
        func shutdownJoins() {
            let engine = MutexEngine()
            let tally = Tally()
            let queue = engine.makeQueue(label: "test.shutdown", kind: .concurrent)
            for _ in 0..<100 { queue.async { tally.done.add(1, ordering: .relaxed) } }
            queue.asyncAfter(deadline: .now() + .milliseconds(1)) { tally.done.add(1, ordering: .relaxed) }
            _ = queue.sync { tally.done.load(ordering: .relaxed) }
            let group = engine.makeGroup(label: "test.shutdown")
            group.async(on: queue) {}
            #expect(group.wait(until: .now() + .seconds(5)) == .success)
            pause(milliseconds: 20)
            #expect(engine.workerThreads >= 1)
            engine.shutdown()
            #expect(tally.done.load(ordering: .relaxed) == 101)
            #expect(engine.workerThreads == 0)
        }

        @Test("blocks that block where the engine cannot see get more threads, never more than 128")
        func poolGrowsBounded() {
            let engine = MutexEngine()
            defer { engine.shutdown() }
            let tally = Tally()
            let group = engine.makeGroup(label: "test.bounded")
            // 400 blocks sleeping 10 ms each: 4 s of sleep. With only one thread per CPU this takes seconds; the
            // starvation watch adds threads, up to the bound.
            for _ in 0..<400 {
                group.async(on: engine.globalQueue) {
                    _ = tally.peakThreads.max(engine.workerThreads, ordering: .relaxed)
                    pause(milliseconds: 10)
                    tally.done.add(1, ordering: .relaxed)
                }
            }
            #expect(group.wait(until: .now() + .seconds(30)) == .success)
            #expect(tally.done.load(ordering: .relaxed) == 400)
            let peak = tally.peakThreads.load(ordering: .relaxed)
            #expect(peak > sysconf(Int32(_SC_NPROCESSORS_ONLN)), "the pool never grew past its width (peak \(peak))")
            #expect(peak <= 128, "the pool grew to \(peak) threads")
        }
    }
}

/// Sleeps the calling thread.
func pause(milliseconds: Int) {
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
