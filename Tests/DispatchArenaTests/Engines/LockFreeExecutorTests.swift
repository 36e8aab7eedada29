import Harness
import Testing

@testable import ArenaContract
@testable import Contenders

/// The lock-free engine's queues carry Swift jobs natively (`LockFreeQueue.async(job:runner:)`): what the executor
/// rules cannot see, since a job wrapped in a block behaves the same and only costs more.
extension ArenaTests {
    @Suite(.enabled(if: TestEngines.catalogEngines.contains("lockfree"), "lockfree is not in ARENA_ENGINES"))
    struct LockFreeExecutorTests {
        actor Counter {
            let executor: EngineSerialExecutor<LockFreeEngine>
            nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
            var count = 0

            init(_ executor: EngineSerialExecutor<LockFreeEngine>) { self.executor = executor }

            func bump() { count += 1 }
        }

        @Test("an actor's job waits in the serial executor's queue as the job itself, in a job node with no closure")
        func serialJobIsNative() async throws {
            let engine = LockFreeEngine()
            defer { engine.shutdown() }
            let executor = EngineSerialExecutor(engine: engine, label: "test.native-job")
            let queue = executor.queue
            // Suspended, the queue has no drainer: this test is the MPSC's only consumer until it resumes the queue.
            queue.suspend()
            let counter = Counter(executor)
            let call = Task.detached { await counter.bump() }
            let deadline = Deadline.now() + .seconds(5)
            var popped: LockFreeJob?
            while popped == nil && Deadline.now() < deadline {
                if case .job(let job) = queue.jobs.pop() {
                    popped = job
                } else {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            guard let job = popped else {
                queue.resume()
                Issue.record("the actor's job never reached its executor's queue within 5 s")
                return
            }
            var carried = "another kind of job"
            if case .block(let body) = job.work {
                switch body {
                case .swift(let swiftJob): carried = swiftJob.runner === executor ? "native" : "native, another runner"
                case .block: carried = "a closure around the job"
                }
            }
            // Back where it was (its slot is still reserved in the state word), then the queue runs it.
            queue.jobs.push(job)
            queue.resume()
            await call.value
            #expect(carried == "native")
            #expect(await counter.count == 1)
        }
    }
}
