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
///
/// Helpers are called only when they can pay for themselves. An apply of more iterations than twice the pool's width
/// starts alone (`runAlone`): chunks of 1, 2, 4, … iterations, the clock read after each; once a microsecond has
/// passed, the caller calls helpers as soon as the rest is expected to take longer than calling one costs
/// (`soloNanoseconds`), and otherwise runs every iteration itself. Waking a worker costs the caller a system call and
/// the helper a wake-up of tens of microseconds (25 µs on the 2-core VM), so an apply of cheap iterations that ends
/// within that time (10,000 empty ones take 5 µs) ran slower with helpers than without. An apply of heavy iterations
/// calls them after its first chunk, as before. This is the idea of lazy task creation (Mohr, Kranz and Halstead,
/// "Lazy task creation: a technique for increasing the granularity of parallel programs", 1990): parallelism is
/// offered when the work turns out to be worth it. An apply of a few iterations (at most twice the width) is read as a
/// few large units, each meant for a thread of its own (`apply.parallel` has two iterations wait for each other), and
/// calls its helpers at once; no program can count on more (libdispatch runs every iteration on the caller when its
/// width is 1).
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

    /// An apply whose indices below `start` the caller already ran (`runAlone`).
    @usableFromInline
    init(iterations: Int, from start: Int, runtime: LockFreeRuntime) {
        self.iterations = iterations
        workers = runtime.pool.width
        minimumChunk = max(1, (iterations - start) / (workers * 64))
        cursor.atomic.pointee.store(start, ordering: .relaxed)
        completed.atomic.pointee.store(start, ordering: .relaxed)
    }

    /// Whether an apply of `iterations` starts alone: more than twice the pool's width.
    @usableFromInline
    static func startsAlone(_ iterations: Int, on runtime: LockFreeRuntime) -> Bool {
        iterations > 2 * runtime.pool.width
    }

    /// The most an apply's remaining iterations may be expected to take for the caller to run them alone: about
    /// what calling a helper costs (a futex wake-up took 25 µs on the 2-core VM).
    @usableFromInline static let soloNanoseconds: Double = 20_000

    /// The least time the caller runs before it judges the rate of its iterations (a clock read is about 20 ns).
    @usableFromInline static let judgedAfterNanoseconds: UInt64 = 1_000

    /// Runs indices from 0 on the caller, in chunks doubling from 1, for as long as the rest is expected to take
    /// less than `soloNanoseconds` at the rate so far (judged once a microsecond has passed); returns the first
    /// index not run (`iterations` when the caller ran them all). A clock read per chunk.
    @inlinable
    static func runAlone(_ iterations: Int, _ body: (Int) -> Void) -> Int {
        let began = Deadline.now().nanoseconds
        var done = 0
        var size = 1
        while done < iterations {
            let end = min(iterations, done + size)
            for index in done..<end { body(index) }
            done = end
            let elapsed = Deadline.now().nanoseconds &- began
            if elapsed >= judgedAfterNanoseconds
                && Double(elapsed) * Double(iterations - done) / Double(done) >= soloNanoseconds
            {
                break
            }
            size &*= 2
        }
        return done
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
