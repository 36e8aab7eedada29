import ArenaContract
import Synchronization

/// apply: a task group of helper tasks and the caller claim chunks of indices from an atomic cursor; the caller then
/// waits (a futex) for chunks still running in tasks. The caller always takes part, so apply finishes even when every
/// thread of Swift's pool is busy, and a nested apply runs on the thread that called it.
final class ActorApply: @unchecked Sendable {
    private let iterations: Int
    private let chunk: Int
    private let cursor = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let finished = FutexWord(0)
    /// The caller's body; tasks reach it only between a successful claim and that chunk's completion, both before the
    /// caller stops waiting and clears it.
    private var body: (@Sendable (Int) -> Void)?

    private init(iterations: Int, chunk: Int) {
        self.iterations = iterations
        self.chunk = chunk
    }

    static func run(iterations: Int, width: Int, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        let chunk = max(1, iterations / (width * 8))
        let apply = ActorApply(iterations: iterations, chunk: chunk)
        let helpers = min(width, (iterations + chunk - 1) / chunk) - 1
        withoutActuallyEscaping(body) { body in
            apply.body = body
            if helpers > 0 {
                Task.detached {
                    await withDiscardingTaskGroup { group in
                        for _ in 0..<helpers { group.addTask { apply.work() } }
                    }
                }
            }
            apply.work()
            apply.waitForOthers()
            apply.body = nil
        }
    }

    private func work() {
        while true {
            let start = cursor.add(chunk, ordering: .relaxed).oldValue
            if start >= iterations { return }
            let end = min(start + chunk, iterations)
            do {
                let body = self.body!  // gone before the chunk counts as done: the caller may return then
                for index in start..<end { body(index) }
            }
            if completed.add(end - start, ordering: .acquiringAndReleasing).newValue == iterations {
                finished.word.pointee.store(1, ordering: .releasing)
                finished.wakeAll()
            }
        }
    }

    private func waitForOthers() {
        while finished.word.pointee.load(ordering: .acquiring) == 0 && completed.load(ordering: .acquiring) != iterations {
            finished.wait(whileEqualTo: 0)
        }
    }
}
