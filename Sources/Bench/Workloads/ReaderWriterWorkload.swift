import ArenaContract
import Harness

/// `rw-barrier`: the reader-writer pattern on one concurrent queue. T threads each run a fixed mix of reads (`sync`,
/// which may run beside other reads) and writes (`barrierAsync`, which runs alone), at 50, 90 or 99 % reads.
///
/// The mix is deterministic: a thread writes on every k-th operation (k = 2, 10, 100) and reads otherwise, so every
/// trial issues the same writes. The threads start together; the headline is operations per second over all threads,
/// and the timed region ends when the last barrier has run. The answer checked: a write changes two fields in one
/// barrier, so a reader that sees them differ saw a barrier overlap a read (a torn read); a read also sees at least
/// the writes its own thread submitted before it (submission order); and at the end both fields equal the writes
/// issued.
public struct ReaderWriterWorkload: Workload {
    public let name = "rw-barrier"
    public let summary = "T threads on one concurrent queue: sync reads and barrierAsync writes, at 50, 90 and 99 % reads"
    public let headline = Headline.throughput(unit: "ops/s")
    public let figure = PlotFigure.bundled("rw-barrier.gp")

    /// The read shares measured, in percent; each leaves a whole write period (100 / (100 - reads) operations).
    @usableFromInline static let readPercents = [50, 90, 99]

    public init() {}

    /// reads (percent) × threads.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.integer("reads", Self.readPercents), .integer("threads", settings.threads)]
    }

    public func points(_ settings: BenchSettings) -> [Point] {
        Self.readPercents.flatMap { reads in
            settings.threads.map { threads in
                Point(workload: name, parameters: [Parameter("reads", reads), Parameter("threads", threads)], threads: threads)
            }
        }
    }

    /// Not scaled by the thread count: every operation goes through the one queue, so wall time per operation stays
    /// about flat as threads are added (1 to 10 µs on libdispatch, tens of µs where a sync parks its thread).
    public func initialOperations(_ point: Point) -> Int { 1_000 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let threads = point.threads
        let period = 100 / (100 - point.integer("reads"))
        // A whole number of write periods per thread, so the writes issued are exactly perThread / period each.
        let wanted = max(1, (operations + threads - 1) / threads)
        let perThread = (wanted + period - 1) / period * period
        let queue = engine.makeQueue(label: "rw-barrier", kind: .concurrent)
        let state = PairedFields()
        let violations = Locked(0)
        let drained = Latch()
        var drainedInTime = false
        // The drain is a barrier after every thread's last operation: the timed region includes the last writes, and
        // the latch (rather than a barrierSync) lets the wait end at the deadline.
        let elapsed = try Crew.run(
            threads, until: context.deadline,
            finish: {
                queue.barrierAsync { drained.countDown() }
                drainedInTime = drained.wait(until: context.deadline)
            }
        ) { _ in
            var written = 0
            var bad = 0
            for step in 1...perThread {
                if step % period == 0 {
                    queue.barrierAsync {
                        state.first &+= 1
                        state.second &+= 1
                    }
                    written += 1
                } else {
                    let (first, second) = queue.sync { (state.first, state.second) }
                    // Torn (a barrier ran beside this read), or older than this thread's own earlier barriers.
                    if first != second || first < written { bad += 1 }
                }
            }
            // One lock per thread, after its loop: the bookkeeping stays out of the contended path.
            if bad > 0 { violations.withLock { $0 += bad } }
        }
        try WorkloadError.check(drainedInTime ? .success : .timedOut, waitingFor: "the last barrier to run")
        // The drain latch orders these reads after every barrier, so they need no queue.
        let writes = perThread / period * threads
        try WorkloadError.check("reads that were torn or missed the reader's own earlier writes", violations.snapshot, expected: 0)
        try WorkloadError.check("the first field (writes seen)", state.first, expected: writes)
        try WorkloadError.check("the second field (writes seen)", state.second, expected: writes)
        return Trial(operations: perThread * threads, elapsed: elapsed)
    }
}

/// Two fields that every write changes together inside one barrier. Barriers are the only writers and run alone, so
/// a correct engine never lets a reader see them differ; a broken one lets a read land between the two stores.
@usableFromInline final class PairedFields: @unchecked Sendable {
    @usableFromInline var first = 0
    @usableFromInline var second = 0

    @inlinable init() {}
}
