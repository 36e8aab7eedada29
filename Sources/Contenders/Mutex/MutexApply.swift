import ArenaContract
import Synchronization

/// apply: the caller and up to `width - 1` pool workers claim chunks of indices from an atomic cursor until none
/// are left; the caller then waits for the chunks others still run. The caller always takes part, so apply
/// finishes even when every worker is busy, and a nested apply runs on the thread that called it.
final class MutexApply: @unchecked Sendable {
    private let iterations: Int
    private let chunk: Int
    private let cursor = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let lock = PthreadMutex()
    private let allDone = PthreadCondition()
    /// The caller's body, reachable by helpers only between a successful claim and its completion, both of which
    /// happen before the caller stops waiting and clears it.
    private var body: (@Sendable (Int) -> Void)?

    private init(iterations: Int, chunk: Int) {
        self.iterations = iterations
        self.chunk = chunk
    }

    static func run(iterations: Int, on pool: MutexWorkerPool, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        // Eight chunks per worker balance uneven iterations; small counts get chunks of one.
        let chunk = max(1, iterations / (pool.width * 8))
        let apply = MutexApply(iterations: iterations, chunk: chunk)
        let helpers = min(pool.width, (iterations + chunk - 1) / chunk) - 1
        withoutActuallyEscaping(body) { body in
            apply.body = body
            for _ in 0..<helpers { pool.push(.task { apply.work() }) }
            apply.work()
            apply.waitForOthers()
            apply.body = nil
        }
    }

    /// Claims and runs chunks until none are left.
    private func work() {
        while true {
            let start = cursor.add(chunk, ordering: .relaxed).oldValue
            if start >= iterations { return }
            let end = min(start + chunk, iterations)
            do {
                // The local copy of the borrowed body must be gone before the chunk counts as done: the caller
                // may return (ending the borrow) the moment the last chunk completes.
                let body = self.body!
                for index in start..<end { body(index) }
            }
            if completed.add(end - start, ordering: .acquiringAndReleasing).newValue == iterations {
                lock.withLock { allDone.broadcast() }
            }
        }
    }

    private func waitForOthers() {
        if completed.load(ordering: .acquiring) == iterations { return }
        MutexThreadContext.blocking {
            lock.withLock {
                while completed.load(ordering: .acquiring) != iterations { allDone.wait(lock) }
            }
        }
    }
}
