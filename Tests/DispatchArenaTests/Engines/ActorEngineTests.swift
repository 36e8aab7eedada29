import ArenaContract
import Harness
import Synchronization
import Testing

@testable import Contenders

/// What the catalog cannot see of the actor engine: its async-friendly waits, which suspend a task instead of
/// blocking a thread. The protocol only has the blocking forms.
extension ArenaTests {
    @Suite(.enabled(if: TestEngines.catalogEngines.contains("actor"), "actor is not in ARENA_ENGINES"))
    struct ActorEngineTests {
        final class Tally: Sendable {
            let counter = Atomic<Int>(0)
            let flag = Atomic<Bool>(false)
            var count: Int { counter.load(ordering: .relaxed) }
            var flagged: Bool { flag.load(ordering: .acquiring) }
        }

        /// The mailbox's wake-up relies on TSan's ignore annotations (`ActorMailbox.wake`); a lookup that silently found
        /// nothing (a symbol the executable does not export) would leave the runtime's own accesses reported again.
        @Test("under ThreadSanitizer the annotations the mailbox's wake-up needs are found, and without it none is")
        func sanitizerAnnotations() {
            #expect(ThreadSanitizerAnnotations.ignoresAccesses == ThreadSanitizerAnnotations.isActive)
        }

        @Test("an async group wait returns only once every block has finished")
        func groupWait() async {
            let engine = ActorEngine()
            let tally = Tally()
            let queue = engine.makeQueue(label: "test.group", kind: .concurrent)
            let group = engine.makeGroup(label: "test.group")
            // Blocks that come later (sleeping tasks, not busy threads), so a wait that returns early sees them missing.
            for index in 0..<64 {
                group.enter()
                queue.asyncAfter(deadline: .now() + .milliseconds(10 + index)) {
                    tally.counter.add(1, ordering: .relaxed)
                    group.leave()
                }
            }
            let finished = await finishes(withinSeconds: 20) { await group.wait() }
            #expect(finished, "the async wait never returned")
            #expect(tally.count == 64)
        }

        @Test("async semaphore waits take units, suspend when there is none, and keep the count right")
        func semaphoreWait() async {
            let engine = ActorEngine()
            let tally = Tally()
            let semaphore = engine.makeSemaphore(value: 1)!
            #expect(await finishes(withinSeconds: 20) { await semaphore.wait() }, "a wait with a unit available suspended")
            let waiter = Task {
                await semaphore.wait()
                tally.flag.store(true, ordering: .releasing)
            }
            Threads.sleep(.milliseconds(20))
            #expect(!tally.flagged, "a wait with no unit available returned")
            semaphore.signal()
            #expect(await finishes(withinSeconds: 20) { await waiter.value }, "the signal never woke the waiter")
            #expect(tally.flagged)
            // Both units are taken: a blocking wait must time out.
            #expect(semaphore.wait(until: .now() + .milliseconds(10)) == .timedOut)
        }

        @Test("an async work-item wait returns after the block ran, and after a cancelled item was skipped")
        func workItemWait() async {
            let engine = ActorEngine()
            let tally = Tally()
            let queue = engine.makeQueue(label: "test.item", kind: .serial)
            let item = engine.makeWorkItem(label: "test.item") { tally.counter.add(1, ordering: .relaxed) }
            queue.asyncAfter(deadline: .now() + .milliseconds(10), item)
            #expect(await finishes(withinSeconds: 20) { await item.wait() }, "the async wait never returned")
            #expect(tally.count == 1)

            let cancelled = engine.makeWorkItem(label: "test.cancelled") { tally.counter.add(1, ordering: .relaxed) }
            cancelled.cancel()
            queue.async(cancelled)
            #expect(await finishes(withinSeconds: 20) { await cancelled.wait() }, "the wait on a skipped item never returned")
            #expect(tally.count == 1, "a cancelled item ran")
        }
    }
}

/// Runs `body` under a watchdog: true if it finished within the bound, false if the watchdog fired first (the stuck
/// task is abandoned, so a broken wait fails the test instead of hanging it).
private func finishes(withinSeconds seconds: Int, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    final class Once: Sendable {
        let decided = Atomic<Bool>(false)
    }
    let once = Once()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        Task.detached {
            await body()
            if !once.decided.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: true) }
        }
        Task.detached {
            try? await Task.sleep(for: .seconds(seconds))
            if !once.decided.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: false) }
        }
    }
}
