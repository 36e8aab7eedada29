import ArenaContract
import Glibc
import Harness

/// I/O channels: reads and writes over pipes, sockets and files, delivered in order within the water marks;
/// barriers, close and stop, and the cleanup handler.
enum IOChannelRules: RuleFamily {
    static let concept = Concept.io
    static let rules: [any ConformanceRule.Type] = [
        IOStreamRead.self, IOWriteFillDrain.self, IOReadInOrder.self, IOLowWater.self, IOHighWater.self, IOStop.self,
        IOCloseLetsFinish.self, IORandomAccess.self, IOPathLazy.self, IOBarrier.self, IOReadWriteOneDescriptor.self,
        IOTCPEcho.self, IOReadOnce.self, IOWriteOnce.self, IOInterval.self, IOCreateWithIO.self,
    ]

    /// A stream channel over `descriptor` with its handlers on a new serial queue; the cleanup handler closes the
    /// descriptor and is recorded.
    static func channel<E: Engine>(_ engine: E, _ label: String, kind: IOChannelKind = .stream, over descriptor: Int32)
        -> (channel: E.IOChannel, queue: E.Queue, cleanup: CleanupRecord)
    {
        let queue = engine.makeQueue(label: label)
        let cleanup = CleanupRecord(closing: descriptor)
        let channel = engine.makeIOChannel(
            label: label, kind: kind, fileDescriptor: descriptor, queue: queue,
            cleanup: cleanup.handler)
        return (channel, queue, cleanup)
    }
}

/// What a channel's cleanup handler saw; it closes the descriptor it was given, as a caller's cleanup handler does.
final class CleanupRecord: @unchecked Sendable {
    let errors = Recorder<Int32>()
    let ran = Latch()
    /// Appended to by the rule's handlers and by the cleanup handler, to check what came first.
    let order = Recorder<String>()
    private let closing: Int32

    init(closing descriptor: Int32) { closing = descriptor }

    var handler: @Sendable (Int32) -> Void {
        { [self] error in
            errors.append(error)
            order.append("cleanup")
            if closing >= 0 { Glibc.close(closing) }
            ran.countDown()
        }
    }

    /// Waits (bounded) for the cleanup handler, watches a little longer, and fails unless it ran exactly once with
    /// `error`.
    func expectOnce(error expected: Int32) throws {
        try expectOpens(ran, "the channel's cleanup handler")
        Timing.pause(Timing.quietPeriod)
        try expect(
            errors.elements == [expected], .wrongValue, "cleanup handler calls with errors \(errors.elements), expected [\(expected)]")
    }
}

enum IOStreamRead: BehaviourRule {
    static let id = "io.stream-read"
    static let title =
        "A stream read on a pipe ends at exactly the length asked for, the next read goes on from there, and a read to end of file gets the rest: every byte once, in order, the last call done."
    static let source = """
        [objc.io #2] ("Reading and Writing": dispatch_io_read, the handler called "whenever data is \
        read"); dispatch_io_read(3); libdispatch tests dispatch_io_pipe.c (512 bytes read exactly, written before and \
        after the read was issued)
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        var writer: Int32? = ends.write
        defer { if let writer { Glibc.close(writer) } }
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.stream-read", over: ends.read)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(1536)
        try Descriptors.writeAll(ends.write, Array(bytes[..<1024]))
        let first = IOLog<E.Data>("the first read of 512 bytes"), second = IOLog<E.Data>("the second read of 512 bytes")
        channel.read(offset: 0, length: 512, queue: queue, first.handler())
        channel.read(offset: 0, length: 512, queue: queue, second.handler())
        try first.expectEnded()
        try second.expectEnded()
        try expect(
            first.error == 0 && second.error == 0, .wrongValue, "the reads of 512 bytes ended with errors \(first.error!), \(second.error!)"
        )
        try expect(
            first.bytes == Array(bytes[..<512]), .wrongValue, "the first read of 512 got \(first.bytes.count) bytes, not bytes 0..<512")
        try expect(
            second.bytes == Array(bytes[512..<1024]), .wrongValue,
            "the second read of 512 got \(second.bytes.count) bytes, not bytes 512..<1024")

        let rest = IOLog<E.Data>("the read to end of file")
        channel.read(offset: 0, length: Int.max, queue: queue, rest.handler())
        Timing.pause(.milliseconds(50))  // the read waits on an empty pipe; the bytes come after it was issued
        try Descriptors.writeAll(ends.write, Array(bytes[1024...]))
        Glibc.close(ends.write)
        writer = nil
        try rest.expectEnded()
        try expect(rest.error == 0, .wrongValue, "the read to end of file ended with error \(rest.error!)")
        try expect(
            rest.bytes == Array(bytes[1024...]), .wrongValue,
            "the read to end of file got \(rest.bytes.count) bytes, not bytes 1024..<1536 in order")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOWriteFillDrain: BehaviourRule {
    static let id = "io.write-fill-drain"
    static let title =
        "A write into a full pipe waits for room and completes once the reader drains it: every byte arrives, in order, and the done call carries no bytes left."
    static let source = """
        libdispatch tests dispatch_io_pipe.c (dispatch_write after the pipe was filled to its capacity, the reader \
        draining it later: error 0, no data left); dispatch_io_write(3)
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        defer { Glibc.close(ends.read) }
        // Fill the pipe to capacity: non-blocking just for this, as the test sizes its buffer.
        let flags = fcntl(ends.write, F_GETFL)
        _ = fcntl(ends.write, F_SETFL, flags | O_NONBLOCK)
        var filled = 0
        let zeros = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = zeros.withUnsafeBytes { Glibc.write(ends.write, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            filled += count
        }
        _ = fcntl(ends.write, F_SETFL, flags)

        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.write-fill-drain", over: ends.write)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(256 * 1024, seed: 3)
        let log = IOLog<E.Data>("the write of 256 KiB into a full pipe")
        channel.write(offset: 0, data: Descriptors.data(engine, bytes), queue: queue, log.handler())
        Timing.pause(.milliseconds(50))
        try expect(!log.ended.isOpen, .early, "the write into a full pipe ended before the pipe was drained (\(log.calls.last!.error))")
        let received = Descriptors.readExactly(ends.read, filled + bytes.count, until: .now() + .seconds(10))
        try log.expectEnded()
        try expect(log.error == 0, .wrongValue, "the write ended with error \(log.error!)")
        try expect(log.calls.last!.bytes.isEmpty, .wrongValue, "the write's done call has \(log.calls.last!.bytes.count) bytes left")
        try expect(received.count == filled + bytes.count, .wrongValue, "the reader got \(received.count) of \(filled + bytes.count) bytes")
        try expect(Array(received[filled...]) == bytes, .wrongValue, "the written bytes arrived changed or out of order")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOReadInOrder: BehaviourRule {
    static let id = "io.read-in-order"
    static let title =
        "320 writes of 32 bytes, 2 ms apart, into a pipe reach a stream read complete and in order, in handler calls that never overlap."
    static let source =
        "libdispatch tests dispatch_read2.c (a reader channel fed by 320 writes of 32 bytes; there 10 ms apart, here 2 ms, which still sends each write alone and keeps the rule under a second); dispatch_io_read(3)"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .late, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.read-in-order", over: ends.read)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(320 * 32, seed: 11)
        let log = IOLog<E.Data>("the read of 320 writes")
        channel.setLowWater(1)
        channel.read(offset: 0, length: Int.max, queue: queue, log.handler { _ in Timing.jitter(upTo: 200) })
        let written = Descriptors.trickle(bytes, into: ends.write, pieces: 32, every: .milliseconds(2))
        try expectOpens(written, within: .seconds(8), "320 writes 2 ms apart")
        try log.expectEnded()
        try expect(log.error == 0, .wrongValue, "the read ended with error \(log.error!)")
        try expect(log.bytes.count == bytes.count, .wrongValue, "the read got \(log.bytes.count) of \(bytes.count) bytes")
        try expect(log.bytes == bytes, .wrongValue, "the bytes arrived out of order")
        try expect(log.calls.count > 1, .late, "one handler call for 320 writes 2 ms apart: nothing was delivered as it arrived")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOLowWater: BehaviourRule {
    static let id = "io.low-water"
    static let title = "With a low water mark, no read handler call but the last carries fewer bytes: bytes trickling in are gathered."
    static let source =
        "dispatch_io_set_low_water(3) ('the I/O handler is not called with less than this amount of data, unless ... done'); [objc.io #2] (\"Reading and Writing\")"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.low-water", over: ends.read)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(300, seed: 5)
        let log = IOLog<E.Data>("the read with low water 64")
        channel.setLowWater(64)
        channel.read(offset: 0, length: Int.max, queue: queue, log.handler())
        Descriptors.trickle(bytes, into: ends.write, pieces: 10, every: .milliseconds(3))
        try log.expectEnded()
        // At end of file the rest comes however short: libdispatch delivers it, then an empty done call (measured).
        let calls = log.calls
        let atEnd = calls.count >= 2 && calls.last!.bytes.isEmpty ? 2 : 1
        let short = calls.dropLast(atEnd).map(\.bytes.count).filter { $0 < 64 }
        try expect(short.isEmpty, .early, "handler calls before end of file carried \(short) bytes, under the low water mark of 64")
        try expect(log.bytes == bytes, .wrongValue, "the read got \(log.bytes.count) of 300 bytes, or out of order")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOHighWater: BehaviourRule {
    static let id = "io.high-water"
    static let title = "With a high water mark, no read handler call carries more bytes: what is available at once is split."
    static let source =
        "dispatch_io_set_high_water(3) ('the I/O handler is not called with more than this amount of data'); [objc.io #2] (\"Reading and Writing\")"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.high-water", over: ends.read)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(4096, seed: 9)
        try Descriptors.writeAll(ends.write, bytes)
        Glibc.close(ends.write)
        let log = IOLog<E.Data>("the read with high water 100")
        channel.setHighWater(100)
        channel.read(offset: 0, length: Int.max, queue: queue, log.handler())
        try log.expectEnded()
        let long = log.calls.map(\.bytes.count).filter { $0 > 100 }
        try expect(long.isEmpty, .wrongValue, "handler calls carried \(long) bytes, over the high water mark of 100")
        try expect(log.bytes == bytes, .wrongValue, "the read got \(log.bytes.count) of 4096 bytes, or out of order")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOStop: BehaviourRule {
    static let id = "io.stop"
    static let title =
        "Closing with stop ends a read under way with ECANCELED (also after a plain close), and a read issued after it too; the cleanup handler runs once, after the read's last call."
    static let source = """
        dispatch_io_close(3) (DISPATCH_IO_STOP: 'interrupt any outstanding read and write operations ... \
        ECANCELED'); libdispatch tests dispatch_io_pipe_close.c; [objc.io #2] ("Reading and Writing")
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        defer { Glibc.close(ends.write) }
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.stop", over: ends.read)
        defer { channel.close(stop: true) }
        let log = IOLog<E.Data>("the read under way")
        let arrived = Latch()
        channel.setLowWater(1)
        channel.read(
            offset: 0, length: Int.max, queue: queue,
            log.handler { call in
                if !call.bytes.isEmpty && !call.done { arrived.countDown() }
                if call.done { cleanup.order.append("read done") }
            })
        try Descriptors.writeAll(ends.write, Descriptors.pattern(10))
        try expectOpens(arrived, "the first 10 bytes of the read")
        channel.close(stop: true)
        try log.expectEnded()
        try expect(log.error == ECANCELED, .wrongValue, "the stopped read ended with error \(log.error!), not ECANCELED (\(ECANCELED))")
        let late = IOLog<E.Data>("a read issued after stop")
        channel.read(offset: 0, length: 10, queue: queue, late.handler())
        try late.expectEnded()
        try expect(late.error == ECANCELED, .wrongValue, "a read issued after stop ended with error \(late.error!), not ECANCELED")
        try cleanup.expectOnce(error: 0)
        let order = cleanup.order.elements
        try expect(order.first == "read done", .early, "the cleanup handler ran before the stopped read's last call: \(order)")
        try stopAfterClose(engine)
    }

    /// A plain close lets a read run on; a stop after it still ends the read, with ECANCELED.
    private static func stopAfterClose<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        defer { Glibc.close(ends.write) }
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.stop.after-close", over: ends.read)
        let log = IOLog<E.Data>("a read under way at a plain close, then stopped")
        channel.setLowWater(1)
        channel.read(offset: 0, length: Int.max, queue: queue, log.handler())
        channel.close(stop: false)
        Timing.pause(Timing.quietPeriod)
        try expect(!log.ended.isOpen, .early, "a plain close ended a read under way (error \(log.error ?? 0))")
        channel.close(stop: true)
        try log.expectEnded()
        try expect(log.error == ECANCELED, .wrongValue, "a read stopped after a plain close ended with error \(log.error!), not ECANCELED")
        try cleanup.expectOnce(error: 0)
    }
}

enum IOCloseLetsFinish: BehaviourRule {
    static let id = "io.close-lets-finish"
    static let title =
        "Closing without stop lets a read under way run to its end with all its bytes; the cleanup handler runs once, after it."
    static let source = """
        dispatch_io_close(3) (without DISPATCH_IO_STOP, 'outstanding operations ... run to completion'); libdispatch \
        tests dispatch_io_pipe_close.c (close after the data arrived, then the cleanup handler)
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        // The read end stays open to the end, so the second write cannot raise SIGPIPE whatever the channel did.
        defer { Glibc.close(ends.write); Glibc.close(ends.read) }
        let queue = engine.makeQueue(label: "arena.io.close-lets-finish")
        let cleanup = CleanupRecord(closing: -1)
        let channel = engine.makeIOChannel(
            label: "arena.io.close-lets-finish", kind: .stream, fileDescriptor: ends.read,
            queue: queue, cleanup: cleanup.handler)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(200, seed: 2)
        let log = IOLog<E.Data>("the read of 200 bytes")
        let arrived = Latch()
        channel.setLowWater(1)
        channel.read(
            offset: 0, length: 200, queue: queue,
            log.handler { call in
                if !call.bytes.isEmpty && !call.done { arrived.countDown() }
                if call.done { cleanup.order.append("read done") }
            })
        try Descriptors.writeAll(ends.write, Array(bytes[..<100]))
        try expectOpens(arrived, "the first 100 bytes of the read")
        channel.close(stop: false)
        Timing.pause(.milliseconds(20))
        try Descriptors.writeAll(ends.write, Array(bytes[100...]))
        try log.expectEnded()
        try expect(log.error == 0, .wrongValue, "the read under way at close ended with error \(log.error!)")
        try expect(log.bytes == bytes, .wrongValue, "the read under way at close got \(log.bytes.count) of 200 bytes")
        try cleanup.expectOnce(error: 0)
        try expect(
            cleanup.order.elements.first == "read done", .early, "the cleanup handler ran before the read ended: \(cleanup.order.elements)")
    }
}

enum IORandomAccess: BehaviourRule {
    static let id = "io.random-access"
    static let title =
        "A random-access channel reads and writes at the offsets given, counted from the descriptor's position when it was made, and leaves that position alone."
    static let source = """
        dispatch_io_create(3) (DISPATCH_IO_RANDOM: 'offsets ... relative to the file pointer position current at \
        the time the channel was created'; the file pointer is not changed); [objc.io #2]
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let scratch = try ScratchDirectory("io-random")
        defer { scratch.remove() }
        let descriptor = open(scratch.file("file"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RuleFailure(.setup, "open failed: errno \(errno)") }
        let header = [UInt8](repeating: 0x48, count: 10)
        try Descriptors.writeAll(descriptor, header)  // the position is now 10: offsets count from there
        let queue = engine.makeQueue(label: "arena.io.random-access")
        let position = Locked<Int64>(-1)
        let cleanup = CleanupRecord(closing: -1)
        let channel = engine.makeIOChannel(
            label: "arena.io.random-access", kind: .randomAccess, fileDescriptor: descriptor,
            queue: queue
        ) { error in
            position.withLock { $0 = Int64(lseek(descriptor, 0, SEEK_CUR)) }
            cleanup.handler(error)
        }
        defer { channel.close(stop: true) }
        let far = Descriptors.pattern(50, seed: 1), near = Descriptors.pattern(20, seed: 7)
        let writeFar = IOLog<E.Data>("the write at offset 100"), writeNear = IOLog<E.Data>("the write at offset 0")
        channel.write(offset: 100, data: Descriptors.data(engine, far), queue: queue, writeFar.handler())
        channel.write(offset: 0, data: Descriptors.data(engine, near), queue: queue, writeNear.handler())
        try writeFar.expectEnded()
        try writeNear.expectEnded()
        try expect(
            writeFar.error == 0 && writeNear.error == 0, .wrongValue, "the writes ended with errors \(writeFar.error!), \(writeNear.error!)"
        )
        let readFar = IOLog<E.Data>("the read at offset 100"), readInside = IOLog<E.Data>("the read at offset 5")
        channel.read(offset: 100, length: 50, queue: queue, readFar.handler())
        channel.read(offset: 5, length: 10, queue: queue, readInside.handler())
        try readFar.expectEnded()
        try readInside.expectEnded()
        try expect(readFar.bytes == far, .wrongValue, "the read at offset 100 got \(readFar.bytes.count) bytes, not what was written there")
        try expect(
            readInside.bytes == Array(near[5..<15]), .wrongValue,
            "the read at offset 5 got \(readInside.bytes), not bytes 5..<15 of the write at 0")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
        try expect(position.snapshot == 10, .wrongValue, "the descriptor's position after the channel is \(position.snapshot), not 10")
        var file = [UInt8](repeating: 0, count: 160)
        let read = pread(descriptor, &file, 160, 0)
        Glibc.close(descriptor)
        try expect(read == 160, .wrongValue, "the file holds \(read) bytes, not 160")
        try expect(
            Array(file[..<10]) == header && Array(file[10..<30]) == near && Array(file[110..<160]) == far, .wrongValue,
            "the file's bytes are not at the offsets given plus 10 (the position at creation)")
    }
}

enum IOPathLazy: BehaviourRule {
    static let id = "io.path-lazy"
    static let title =
        "A channel made with a path opens the file when its first operation runs, not before (a file it creates appears only then); a file that cannot be opened ends the operation with the open error."
    static let source = """
        dispatch_io_create_with_path(3) ('path, oflag and mode ... passed to open(2) when the first I/O operation on \
        the channel is ready to execute'); [objc.io #2] ("GCD can postpone opening the file")
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let scratch = try ScratchDirectory("io-path")
        defer { scratch.remove() }
        let queue = engine.makeQueue(label: "arena.io.path-lazy")
        let path = scratch.file("created")
        let cleanup = CleanupRecord(closing: -1)
        let channel = engine.makeIOChannel(
            label: "arena.io.path-lazy", kind: .stream, path: path,
            flags: O_WRONLY | O_CREAT, mode: 0o600, queue: queue, cleanup: cleanup.handler)
        defer { channel.close(stop: true) }
        Timing.pause(Timing.quietPeriod)
        try expect(
            access(path, F_OK) != 0, .early,
            "the file of a path channel with O_CREAT exists before any operation: it was opened at creation")
        let bytes = Descriptors.pattern(300, seed: 4)
        let log = IOLog<E.Data>("the first write to the path")
        channel.write(offset: 0, data: Descriptors.data(engine, bytes), queue: queue, log.handler())
        try log.expectEnded()
        try expect(log.error == 0, .wrongValue, "the first write to the path ended with error \(log.error!)")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        let written = descriptor >= 0 ? Descriptors.readExactly(descriptor, 300, until: .now() + .seconds(1)) : []
        if descriptor >= 0 { Glibc.close(descriptor) }
        try expect(written == bytes, .wrongValue, "the file holds \(written.count) of the 300 bytes written through its path channel")

        let missingCleanup = CleanupRecord(closing: -1)
        let missing = engine.makeIOChannel(
            label: "arena.io.path-lazy.missing", kind: .stream, path: scratch.file("missing"),
            flags: O_RDONLY, mode: 0, queue: queue, cleanup: missingCleanup.handler)
        defer { missing.close(stop: true) }
        let failed = IOLog<E.Data>("the read of a missing file")
        missing.read(offset: 0, length: Int.max, queue: queue, failed.handler())
        try failed.expectEnded()
        try expect(
            failed.error == ENOENT, .wrongValue, "the read of a missing file ended with error \(failed.error!), not ENOENT (\(ENOENT))")
        missing.close(stop: false)
        try expectOpens(missingCleanup.ran, "the cleanup handler of the channel on a missing file")
    }
}

enum IOBarrier: BehaviourRule {
    static let id = "io.barrier"
    static let title = "A channel barrier runs after every operation issued before it ended and before any issued after it begins."
    static let source =
        "dispatch_io_barrier(3) ('executed once all I/O operations already submitted ... have completed, and before any subsequently submitted I/O operations begin')"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let scratch = try ScratchDirectory("io-barrier")
        defer { scratch.remove() }
        let descriptor = open(scratch.file("file"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RuleFailure(.setup, "open failed: errno \(errno)") }
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.barrier", kind: .randomAccess, over: descriptor)
        defer { channel.close(stop: true) }
        let chunk = 64 * 1024
        let before = (0..<3).map { _ in IOLog<E.Data>("a write before the barrier") }
        for (index, log) in before.enumerated() {
            channel.write(
                offset: Int64(index * chunk), data: Descriptors.data(engine, Descriptors.pattern(chunk, seed: index)),
                queue: queue, log.handler())
        }
        let seen = Locked<[Int]>([])
        let ran = Latch()
        channel.barrier {
            var status = stat()
            fstat(descriptor, &status)
            let first = Int(status.st_size)
            Timing.pause(.milliseconds(20))  // time for a write issued after the barrier to show, if it began
            fstat(descriptor, &status)
            seen.withLock { $0 = [first, Int(status.st_size)] }
            ran.countDown()
        }
        let after = IOLog<E.Data>("the write after the barrier")
        channel.write(
            offset: Int64(3 * chunk), data: Descriptors.data(engine, Descriptors.pattern(chunk, seed: 3)),
            queue: queue, after.handler())
        try expectOpens(ran, "the barrier")
        for log in before { try log.expectEnded() }
        try after.expectEnded()
        let sizes = seen.snapshot
        try expect(sizes[0] == 3 * chunk, .early, "the barrier saw \(sizes[0]) bytes written, not the \(3 * chunk) of the writes before it")
        try expect(sizes[1] == 3 * chunk, .overlap, "while the barrier ran, the file grew to \(sizes[1]) bytes: the write after it began")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOReadWriteOneDescriptor: BehaviourRule {
    static let id = "io.read-write-one-descriptor"
    static let title =
        "A read waiting on a socket does not hold up a write on the same channel: the peer echoes what was written, and the read gets it."
    static let source = """
        libdispatch tests dispatch_io_muxed.c (a read and a write source on one socket); dispatch_io_create(3) (a \
        channel's reads and writes of one descriptor); [objc.io #2] ("Reading and Writing")
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let (local, peer) = try Descriptors.socketPair()
        var peerOpen = true
        defer { if peerOpen { Glibc.close(peer) } }
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.read-write", over: local)
        defer { channel.close(stop: true) }
        let bytes = Descriptors.pattern(64 * 1024, seed: 8)
        let read = IOLog<E.Data>("the read of the echo"), write = IOLog<E.Data>("the write of 64 KiB")
        channel.read(offset: 0, length: Int.max, queue: queue, read.handler())
        channel.write(offset: 0, data: Descriptors.data(engine, bytes), queue: queue, write.handler())
        let echoed = Descriptors.readExactly(peer, bytes.count, until: .now() + .seconds(5))
        try expect(echoed == bytes, .wrongValue, "the peer got \(echoed.count) of \(bytes.count) bytes while a read waited on the channel")
        try Descriptors.writeAll(peer, echoed)
        Glibc.close(peer)
        peerOpen = false
        try write.expectEnded()
        try read.expectEnded()
        try expect(
            write.error == 0 && read.error == 0, .wrongValue, "the write and the read ended with errors \(write.error!), \(read.error!)")
        try expect(read.bytes == bytes, .wrongValue, "the read got \(read.bytes.count) of the \(bytes.count) echoed bytes")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)
    }
}

enum IOTCPEcho: BehaviourRule {
    static let id = "io.tcp-echo"
    static let title =
        "A loopback TCP echo server built on a read source on its listening socket and a channel per connection echoes every byte of 8 concurrent clients."
    static let source = """
        [objc.io #2] ("Reading and Writing": a server accepting on a dispatch source and reading and \
        writing each connection with dispatch I/O); libdispatch tests dispatch_io_net.c
        """
    static let needs: Set<Capability> = [.descriptorSources]

    static let clients = 8
    static let bytesPerClient = 16 * 1024

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let (listener, port) = try Descriptors.loopbackListener()
        defer { Glibc.close(listener) }
        let server = EchoServer(engine: engine, listener: listener)
        let accepting = engine.makeReadSource(label: "arena.io.tcp-echo.accept", fileDescriptor: listener, queue: server.queue)
        accepting.setEventHandler { server.acceptAll() }
        accepting.activate()
        defer { cancelAndDrain(accepting) }

        let matched = Counter(), failures = Recorder<String>()
        let finished = Threads.race(clients, until: .now() + .seconds(15)) { client in
            do {
                let socket = try Descriptors.connectLoopback(port: port, timeout: .seconds(10))
                defer { Glibc.close(socket) }
                let bytes = Descriptors.pattern(bytesPerClient, seed: client * 17)
                for piece in stride(from: 0, to: bytes.count, by: 1024) {
                    try Descriptors.writeAll(socket, Array(bytes[piece..<(piece + 1024)]))
                }
                let echoed = Descriptors.readExactly(socket, bytes.count, until: .now() + .seconds(10))
                if echoed == bytes {
                    matched.add()
                } else {
                    failures.append("client \(client) got \(echoed.count) of \(bytes.count) bytes back, or changed")
                }
            } catch {
                failures.append("client \(client): \(error)")
            }
        }
        try expect(finished, .missing, "the \(clients) clients did not finish within 15 s")
        try expect(
            matched.value == clients, .wrongValue,
            "\(matched.value) of \(clients) clients got their bytes back: \(failures.elements.prefix(3))")
        try expectOpens(server.cleanups, within: .seconds(5), "the cleanup of every connection's channel after its client left")
        try expect(
            server.accepted.value == clients, .wrongValue, "the server accepted \(server.accepted.value) connections, not \(clients)")
    }

    /// The seed's echo server: each accepted connection gets a stream channel; every run of bytes read is written
    /// back on the same channel; end of file closes the channel, whose cleanup closes the connection.
    final class EchoServer<E: Engine>: @unchecked Sendable {
        let engine: E
        let listener: Int32
        let queue: E.Queue
        let accepted = Counter()
        let cleanups = Latch(IOTCPEcho.clients)
        private let channels = Locked<[E.IOChannel]>([])

        init(engine: E, listener: Int32) {
            (self.engine, self.listener) = (engine, listener)
            queue = engine.makeQueue(label: "arena.io.tcp-echo.server")
        }

        /// Accepts every connection waiting (the listener is non-blocking), at most `clients` in all.
        func acceptAll() {
            while accepted.value < IOTCPEcho.clients {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                accepted.add()
                serve(connection)
            }
        }

        private func serve(_ connection: Int32) {
            let cleanups = cleanups
            let connectionQueue = engine.makeQueue(label: "arena.io.tcp-echo.connection")
            let channel = engine.makeIOChannel(
                label: "arena.io.tcp-echo.connection", kind: .stream, fileDescriptor: connection,
                queue: connectionQueue
            ) { _ in
                Glibc.close(connection)
                cleanups.countDown()
            }
            channels.withLock { $0.append(channel) }
            channel.setLowWater(1)  // echo what came, however little: the default may wait for more
            channel.read(offset: 0, length: Int.max, queue: connectionQueue) { done, data, _ in
                if let data, data.count > 0 {
                    channel.write(offset: 0, data: data, queue: connectionQueue) { _, _, _ in }
                }
                if done { channel.close(stop: false) }
            }
        }
    }
}
