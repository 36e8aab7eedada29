import ArenaContract
import Synchronization

/// apply: the caller and up to `width - 1` pool workers claim chunks of indices from an atomic cursor until none are
/// left; the caller then waits (looking, then on a futex) for chunks still running elsewhere. Chunks are adaptive: the first claims are
/// large (a quarter of an even share each), later ones shrink to balance uneven iterations. The caller always takes
/// part, so apply finishes when every worker is busy, and a nested apply runs on its caller.
///
/// The caller's loop is inlinable (`LockFreeEngine.apply`): where apply is called with a closure the compiler can
/// see, the caller runs its chunks with the body inlined, as a plain loop would (vectorised, when the body allows).
/// The helpers run the same body through the borrowed closure.
@usableFromInline
final class LockFreeApply: @unchecked Sendable {
    @usableFromInline let iterations: Int
    @usableFromInline let minimumChunk: Int
    @usableFromInline let workers: Int
    @usableFromInline let cursor = PaddedAtomic<Int>(0)
    @usableFromInline let completed = PaddedAtomic<Int>(0)
    private let finished = LockFreeCompletion(yieldsHalfway: false)
    /// The caller's body, borrowed for the helpers; they reach it only between a successful claim and that chunk's
    /// completion, both before the caller stops waiting and clears it.
    private var body: (@Sendable (Int) -> Void)?

    @usableFromInline
    init(iterations: Int, runtime: LockFreeRuntime) {
        self.iterations = iterations
        workers = runtime.pool.width
        minimumChunk = max(1, iterations / (workers * 64))
    }

    /// Lends `body` to the helpers and calls them: `width - 1` jobs on the pool (fewer for fewer iterations).
    @usableFromInline
    func callHelpers(_ body: @escaping @Sendable (Int) -> Void, on runtime: LockFreeRuntime) {
        self.body = body
        let helpers = min(workers, iterations) - 1
        for _ in 0..<helpers { runtime.pool.push(LockFreeJob(.task { self.help() })) }
    }

    /// The next chunk, or nil when every index is claimed: a quarter of an even share of what is left, never below
    /// the minimum. One CAS on the cursor (more when another thread claims at the same time).
    @inlinable @inline(__always)
    func claim() -> Range<Int>? {
        var start = cursor.atomic.pointee.load(ordering: .relaxed)
        while start < iterations {
            let size = max(minimumChunk, (iterations - start) / (workers * 4))
            let (won, seen) = cursor.atomic.pointee.compareExchange(expected: start, desired: start + size, ordering: .relaxed)
            if won { return start..<min(start + size, iterations) }
            start = seen
        }
        return nil
    }

    /// The caller ran `chunk`: counted (the caller waits for the rest itself, so it wakes nobody).
    @inlinable @inline(__always)
    func callerRan(_ chunk: Range<Int>) {
        completed.atomic.pointee.add(chunk.count, ordering: .acquiringAndReleasing)
    }

    /// A helper's part: chunks until none are left; the one completing the last chunk wakes the caller.
    private func help() {
        while let chunk = claim() {
            do {
                // The local copy of the borrowed body must be gone before the chunk counts as done: the caller may
                // return (ending the borrow) the moment the last chunk completes.
                let body = self.body!
                for index in chunk { body(index) }
            }
            if completed.atomic.pointee.add(chunk.count, ordering: .acquiringAndReleasing).newValue == iterations {
                finished.finish()
            }
        }
    }

    /// Waits until every chunk claimed elsewhere completed, then takes the borrowed body back. When the caller
    /// completed the last chunk itself nobody finishes `finished`, so it looks at the count first; otherwise the
    /// helper completing the last chunk finishes it (`LockFreeCompletion`: the caller looks before it sleeps, as a
    /// small apply's helper chunks end within microseconds).
    @usableFromInline
    func waitForHelpers() {
        if completed.atomic.pointee.load(ordering: .acquiring) != iterations { finished.wait() }
        body = nil
    }
}
