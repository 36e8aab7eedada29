import Synchronization

/// apply: the caller and up to `width - 1` pool workers claim chunks of indices from an atomic cursor (fetch-add)
/// until none are left; the caller then waits (futex) for chunks still running elsewhere. Chunks are adaptive: the
/// first claims are large (a quarter of an even share each), later ones shrink to balance uneven iterations. The
/// caller always takes part, so apply finishes when every worker is busy, and a nested apply runs on its caller.
final class LockFreeApply: @unchecked Sendable {
    private let iterations: Int
    private let minimumChunk: Int
    private let workers: Int
    private let cursor = PaddedAtomic<Int>(0)
    private let completed = PaddedAtomic<Int>(0)
    private let finished = FutexWord(0)
    /// The caller's body; helpers reach it only between a successful claim and that chunk's completion, both before
    /// the caller stops waiting and clears it.
    private var body: (@Sendable (Int) -> Void)?

    private init(iterations: Int, workers: Int) {
        self.iterations = iterations
        self.workers = workers
        minimumChunk = max(1, iterations / (workers * 64))
    }

    static func run(iterations: Int, on pool: LockFreeWorkerPool, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        let apply = LockFreeApply(iterations: iterations, workers: pool.width)
        let helpers = min(pool.width, iterations) - 1
        withoutActuallyEscaping(body) { body in
            apply.body = body
            for _ in 0..<helpers { pool.push(LockFreeJob(.task { apply.work() })) }
            apply.work()
            apply.waitForOthers()
            apply.body = nil
        }
    }

    /// The next chunk: a quarter of an even share of what is left, never below the minimum.
    @inline(__always)
    private func chunkSize(from start: Int) -> Int {
        max(minimumChunk, (iterations - start) / (workers * 4))
    }

    private func work() {
        var start = cursor.atomic.pointee.load(ordering: .relaxed)
        while start < iterations {
            let size = chunkSize(from: start)
            let (won, seen) = cursor.atomic.pointee.compareExchange(expected: start, desired: start + size, ordering: .relaxed)
            guard won else {
                start = seen
                continue
            }
            let end = min(start + size, iterations)
            do {
                // The local copy of the borrowed body must be gone before the chunk counts as done: the caller may
                // return (ending the borrow) the moment the last chunk completes.
                let body = self.body!
                for index in start..<end { body(index) }
            }
            if completed.atomic.pointee.add(end - start, ordering: .acquiringAndReleasing).newValue == iterations {
                finished.word.pointee.store(1, ordering: .releasing)
                finished.wakeAll()
            }
            start = cursor.atomic.pointee.load(ordering: .relaxed)
        }
    }

    private func waitForOthers() {
        if completed.atomic.pointee.load(ordering: .acquiring) == iterations { return }
        LockFreeThreadContext.blocking {
            while finished.word.pointee.load(ordering: .acquiring) == 0 { finished.wait(whileEqualTo: 0) }
        }
    }
}
