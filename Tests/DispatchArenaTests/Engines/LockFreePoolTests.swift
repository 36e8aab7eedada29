import Foundation
import Harness
import Synchronization
import Testing

@testable import ArenaContract
@testable import Contenders

/// The lock-free pool's stealing, seen from a program: what no catalog rule singles out.
extension ArenaTests {
    @Suite(
        .enabled(if: TestEngines.catalogEngines.contains("lockfree"), "lockfree is not in ARENA_ENGINES"),
        .enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2, "needs two workers, so two CPUs"))
    struct LockFreePoolTests {
        /// A spinning thief passes over a victim whose queue holds one job, for the first rounds of its spin only: the
        /// owner usually runs that job next. Here the owner never does (it waits for the job, on an atomic the engine
        /// cannot see), so the job runs only if a thief takes it once the sparing rounds are over.
        @Test("a worker's only queued job is stolen while its owner runs on")
        func sparedJobIsStolen() {
            let engine = LockFreeEngine()
            defer { engine.shutdown() }
            let queue = engine.globalQueue(qos: .default)
            // Two blocks meet, so two workers run; one ends and its worker spins as the other pushes the job.
            let met = Atomic<Int>(0), ended = Atomic<Bool>(false), inner = Atomic<Bool>(false)
            let outer = Atomic<Int>(0)  // 1: the job ran; 2: its owner gave up waiting
            queue.async {
                met.add(1, ordering: .acquiringAndReleasing)
                let deadline = Deadline.now() + .seconds(10)
                while met.load(ordering: .acquiring) < 2 && Deadline.now() < deadline { sched_yield() }
                ended.store(true, ordering: .releasing)
            }
            queue.async {
                met.add(1, ordering: .acquiringAndReleasing)
                let deadline = Deadline.now() + .seconds(10)
                while !ended.load(ordering: .acquiring) && Deadline.now() < deadline { sched_yield() }
                Threads.spin(.microseconds(5))  // the other worker's first look is over: it spins
                queue.async { inner.store(true, ordering: .releasing) }  // this worker's own queue: one job
                while !inner.load(ordering: .acquiring) && Deadline.now() < deadline { sched_yield() }
                outer.store(inner.load(ordering: .acquiring) ? 1 : 2, ordering: .releasing)
            }
            let deadline = Deadline.now() + .seconds(15)
            while outer.load(ordering: .acquiring) == 0 && Deadline.now() < deadline { usleep(1000) }
            #expect(
                outer.load(ordering: .acquiring) == 1,
                "the job behind its owner's running block never ran (2: the block gave up after 10 s; 0: no answer in 15 s)")
        }
    }
}
