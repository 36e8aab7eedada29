import ArenaContract
import Glibc
import Harness

/// `io-throughput`: copies N MiB from a writer to a reader through I/O channels of one engine, over a pipe or a
/// loopback TCP connection (127.0.0.1 only), at a read size from 4 KiB to 1 MiB; beside it, in the same process, a
/// plain blocking `write`/`read` loop on two plain threads over the same transport and read size, the floor.
///
/// The writing end is a stream channel given N writes of one 1 MiB buffer of the engine's (`makeData`, made before
/// the clock), then closed without stop; its cleanup handler closes the descriptor, which is the reader's end of file.
/// The reading end is a stream channel with both water marks at the read size, reading to end of file (and closed
/// without stop at once, so its cleanup follows its read), so every handler call but the last carries exactly the read
/// size: the channel's counterpart of a `read(2)` of that size, which the floor's reader makes. (The size of the
/// channel's own system calls is the channel's business: the home engines read 64 KiB at a time and split or gather,
/// libdispatch chooses its own.) The clock runs from the first read and write issued to the read's last handler call.
///
/// The headline is MB/s (10^6 bytes per second) over the repetitions. The floor is the runner's baseline, the median
/// of three copies after the warm-up, at the warm-up's size: its time per MiB is `baseline_ns_per_op` (its MB/s is
/// 1.048576e9 / baseline_ns_per_op) and `speedup` is the channel's MB/s over the floor's. The answer checked, for the
/// channels and the floor alike: every byte arrived once, in order, equal to the pattern at its offset (checked as it
/// arrives), exactly N MiB before end of file; for the channels also no handler call but the last carried other than
/// the read size, every write ended once without an error, and both cleanup handlers ran (each closing its
/// descriptor) before the trial returned.
public struct IOThroughputWorkload: Workload {
    public let name = "io-throughput"
    public let summary =
        "N MiB copied through a pipe or loopback TCP by two I/O channels at each read size (the "
        + "water marks), beside a blocking read/write loop on two threads (baseline_ns_per_op, speedup); MB/s"
    public let headline = Headline.counter(name: "mb_per_s", unit: "MB/s", lowerIsBetter: false)
    public let figure = PlotFigure.bundled("io-throughput.gp")

    /// Bytes of one operation and of one write: one period of the pattern.
    @usableFromInline static let chunk = 1 << 20

    /// What carries the bytes.
    public enum Transport: String, ParameterChoice {
        /// A pipe.
        case pipe
        /// A loopback TCP connection (127.0.0.1).
        case tcp
        public static let parameterName = "transport"
    }

    public init() {}

    /// transport × read_size (bytes).
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.choice(Transport.self), .integer("read_size", Self.readSizes(settings))]
    }

    /// Both transports at 4 KiB, 64 KiB and 1 MiB reads (quick), or every power of four between (full).
    public func points(_ settings: BenchSettings) -> [Point] {
        Transport.allCases.flatMap { transport in
            Self.readSizes(settings).map { size in
                Point(workload: name, parameters: [Parameter(transport), Parameter("read_size", size)])
            }
        }
    }

    /// The read sizes under `settings`, in bytes.
    static func readSizes(_ settings: BenchSettings) -> [Int] {
        settings.quick ? [4 << 10, 64 << 10, 1 << 20] : [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
    }

    /// 8 MiB: 4 to 80 ms at 100 MB/s to 2 GB/s.
    public func initialOperations(_ point: Point) -> Int { 8 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let readSize = point.integer("read_size")
        let ends = try Self.connect(point, until: context.deadline)
        // A second descriptor on the reading side, closed once the writer's channel let go of its end: a write never
        // meets a peer gone (SIGPIPE on a pipe), even in a trial that fails.
        let keeper = fcntl(ends.read, F_DUPFD_CLOEXEC, 0)
        let pattern = StreamPattern.mebibyte
        let copy = ChannelCopy(pattern: pattern, readSize: readSize, writes: operations)
        let writerQueue = engine.makeQueue(label: "io-throughput.writer")
        let readerQueue = engine.makeQueue(label: "io-throughput.reader")
        let writer = engine.makeIOChannel(
            label: "io-throughput.writer", kind: .stream, fileDescriptor: ends.write,
            queue: writerQueue
        ) { error in
            Glibc.close(ends.write)
            copy.cleanedUp(error)
        }
        let reader = engine.makeIOChannel(
            label: "io-throughput.reader", kind: .stream, fileDescriptor: ends.read,
            queue: readerQueue
        ) { error in
            Glibc.close(ends.read)
            copy.cleanedUp(error)
        }
        reader.setHighWater(readSize)
        reader.setLowWater(readSize)
        let buffer = engine.makeData(copying: pattern.bytes)

        let watch = Stopwatch()
        reader.read(offset: 0, length: Int.max, queue: readerQueue) { done, data, error in
            copy.received(done: done, data: data, error: error)
        }
        for _ in 0..<operations {
            writer.write(offset: 0, data: buffer, queue: writerQueue) { done, _, error in
                if done { copy.wrote(error: error) }
            }
        }
        // Closed without stop, both channels run their operations to the end, then run their cleanup handlers.
        writer.close(stop: false)
        reader.close(stop: false)
        let arrived = copy.readEnded.wait(until: context.deadline)
        let elapsed = watch.read()

        let tidy =
            arrived && copy.writesEnded.wait(until: context.deadline)
            && copy.cleanups.wait(until: context.deadline)
        if !tidy {
            writer.close(stop: true)
            reader.close(stop: true)
            // The descriptors are the channels' until their cleanup: the keeper stays open unless both ran.
            if copy.cleanups.wait(until: .now() + .seconds(1)) { Glibc.close(keeper) }
            throw WorkloadError(
                arrived
                    ? "timed out waiting for the writes to end and both cleanup handlers"
                    : "timed out waiting for the read of \(operations) MiB to reach end of file",
                timedOut: true)
        }
        Glibc.close(keeper)
        try copy.verify(bytes: operations * Self.chunk)
        let bytes = operations * Self.chunk
        return Trial(
            operations: operations, items: bytes, elapsed: elapsed,
            counters: ["mb_per_s": Double(bytes) * 1e3 / Double(max(elapsed.wallNanoseconds, 1))])
    }

    /// The floor: the same copy by a plain blocking loop, `write(2)` (`send`) of the 1 MiB pattern on one plain
    /// thread and `read(2)` of the read size on another, checked byte by byte as the channels' is. One copy is a
    /// single sample on a noisy machine, and the runner asks for the floor once per point: it copies `floorRuns`
    /// times and gives the median.
    public func baseline(_ point: Point, operations: Int, context: TrialContext) throws(WorkloadError) -> Double? {
        var runs: [Double] = []
        for _ in 0..<Self.floorRuns { runs.append(try plainCopy(point, operations: operations, context: context)) }
        return runs.sorted()[runs.count / 2]
    }

    /// Copies of the floor per point, of which the baseline is the median.
    static let floorRuns = 3

    /// One copy of the floor: its wall nanoseconds per MiB.
    func plainCopy(_ point: Point, operations: Int, context: TrialContext) throws(WorkloadError) -> Double {
        let readSize = point.integer("read_size")
        let ends = try Self.connect(point, until: context.deadline)
        let keeper = fcntl(ends.read, F_DUPFD_CLOEXEC, 0)
        let copy = PlainCopy(pattern: StreamPattern.mebibyte)
        let deadline = context.deadline
        // Each thread closes its own end when done: the writer's close is the reader's end of file.
        let elapsed = try Crew.run(2, until: deadline) { index in
            if index == 0 {
                copy.write(ends.write, operations: operations, socket: ends.socket, until: deadline)
            } else {
                copy.read(ends.read, readSize: readSize)
            }
        }
        Glibc.close(keeper)
        try copy.verify(bytes: operations * Self.chunk)
        return Double(elapsed.wallNanoseconds) / Double(operations)
    }

    /// The two ends of the point's transport: a pipe, or a loopback TCP connection (the writer connects, the reader
    /// was accepted).
    @usableFromInline static func connect(_ point: Point, until deadline: Deadline)
        throws(WorkloadError) -> (read: Int32, write: Int32, socket: Bool)
    {
        switch point.choice(Transport.self) {
        case .tcp:
            let (client, server) = try IODescriptors.tcpPair(until: deadline)
            return (server, client, true)
        case .pipe:
            let (read, write) = try IODescriptors.pipe()
            return (read, write, false)
        }
    }
}

/// What the channels of one `io-throughput` trial did. The read's handler calls run one at a time, in order, and are
/// the only ones to touch the check and the read fields; the trial reads them after `readEnded` opened, which the last
/// call counts down. Write completions and cleanups come from other queues, so they go through locks and latches.
@usableFromInline final class ChannelCopy: @unchecked Sendable {
    @usableFromInline let readSize: Int
    @usableFromInline var check: StreamPattern.Check
    @usableFromInline var calls = 0
    @usableFromInline var readError: Int32 = 0
    /// The first handler call, other than the last, that did not carry the read size: its index and byte count.
    @usableFromInline var wrongSize: (call: Int, bytes: Int)?
    @usableFromInline let readEnded = Latch()
    @usableFromInline let writesEnded: Latch
    /// Writes that ended, and the first error one ended with.
    @usableFromInline let writes = Locked<(ended: Int, error: Int32)>((0, 0))
    /// Both channels' cleanup handlers, and the errors they were called with.
    @usableFromInline let cleanups = Latch(2)
    @usableFromInline let cleanupErrors = Locked<[Int32]>([])

    @inlinable init(pattern: StreamPattern, readSize: Int, writes: Int) {
        check = StreamPattern.Check(pattern)
        self.readSize = readSize
        writesEnded = Latch(writes)
    }

    /// One call of the read's handler.
    @inlinable func received<D: EngineData>(done: Bool, data: D?, error: Int32) {
        if let data {
            if wrongSize == nil && (done ? data.count > readSize : data.count != readSize) {
                wrongSize = (calls, data.count)
            }
            data.forEachRegion { region, _ in
                check.check(region)
                return true
            }
        }
        calls += 1
        if done {
            readError = error
            readEnded.countDown()
        }
    }

    /// One write's last handler call.
    @inlinable func wrote(error: Int32) {
        writes.withLock { state in
            state.ended += 1
            if state.error == 0 { state.error = error }
        }
        writesEnded.countDown()
    }

    /// A channel's cleanup handler, after it closed its descriptor.
    @inlinable func cleanedUp(_ error: Int32) {
        cleanupErrors.withLock { $0.append(error) }
        cleanups.countDown()
    }

    /// Throws unless the copy was whole and right: `bytes` in order, the read size kept, no error anywhere.
    @inlinable func verify(bytes: Int) throws(WorkloadError) {
        if let failure = check.failure { throw WorkloadError(failure) }
        try WorkloadError.check("the bytes read before end of file", check.offset, expected: bytes)
        try WorkloadError.check("the read's error", readError, expected: 0)
        if let wrongSize {
            throw WorkloadError(
                "read handler call \(wrongSize.call) carried \(wrongSize.bytes) bytes, "
                    + "not the read size \(readSize) (both water marks)")
        }
        let writes = writes.snapshot
        try WorkloadError.check("the writes ended", writes.ended, expected: bytes / IOThroughputWorkload.chunk)
        try WorkloadError.check("the first write error", writes.error, expected: 0)
        try WorkloadError.check("the cleanup handlers' errors", cleanupErrors.snapshot, expected: [0, 0])
    }
}

/// The floor's two threads: a writer of whole pattern periods and a reader checking each `read(2)` as it returns.
/// Each thread writes only its own fields; the trial reads them after both threads finished (the crew's latch orders
/// it).
@usableFromInline final class PlainCopy: @unchecked Sendable {
    @usableFromInline var check: StreamPattern.Check
    @usableFromInline var readError: Int32 = 0
    @usableFromInline var writeError: Int32 = 0
    @usableFromInline var written = 0

    @usableFromInline init(pattern: StreamPattern) { check = StreamPattern.Check(pattern) }

    /// Writes `operations` periods of the pattern to `descriptor`, then closes it; stops early at an error or at
    /// `deadline` (between writes), so the reader still sees an end of file.
    @usableFromInline func write(_ descriptor: Int32, operations: Int, socket: Bool, until deadline: Deadline) {
        let pattern = check.pattern.bytes
        for _ in 0..<operations {
            if Deadline.now() >= deadline {
                writeError = ETIMEDOUT
                break
            }
            writeError = IODescriptors.writeAll(descriptor, pattern.baseAddress!, pattern.count, socket: socket)
            if writeError != 0 { break }
            written += pattern.count
        }
        Glibc.close(descriptor)
    }

    /// Reads `descriptor` `readSize` bytes at a time until end of file (or an error), checking each read, then
    /// closes it.
    @usableFromInline func read(_ descriptor: Int32, readSize: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, readSize)
            if count > 0 {
                check.check(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                if count < 0 { readError = errno }
                break
            }
        }
        Glibc.close(descriptor)
    }

    /// Throws unless `bytes` arrived in order, and neither side met an error.
    @usableFromInline func verify(bytes: Int) throws(WorkloadError) {
        try WorkloadError.check("the floor's write error", writeError, expected: 0)
        try WorkloadError.check("the floor's read error", readError, expected: 0)
        if let failure = check.failure { throw WorkloadError("the floor's copy: " + failure) }
        try WorkloadError.check("the bytes the floor read before end of file", check.offset, expected: bytes)
    }
}
