import ArenaContract
import Glibc
import Harness

/// Dispatch I/O's last two calls: the interval of a channel's handler calls (`dispatch_io_set_interval`,
/// `EngineIOChannel.setInterval`) and a channel made from another (`dispatch_io_create_with_io`,
/// `EngineIOChannel.makeChannel`). Listed in `IOChannelRules`, after the channels.

enum IOInterval: BehaviourRule {
    static let id = "io.interval"
    static let title =
        "With a strict interval, a read whose low water mark is never reached still gets its bytes in calls before its end, at most about one per interval (bound: twice the ticks elapsed, plus 4, for a loaded machine); every byte once, in order. Without strict, the interval delivers nothing under the low water mark: one call, at the end."
    static let source = """
        io.h, dispatch_io_set_interval ('If the amount of data ready to be delivered to an I/O handler at the \
        interval is inferior to the channel low water mark, the handler will only be enqueued if the \
        DISPATCH_IO_STRICT_INTERVAL flag is set') and DISPATCH_IO_STRICT_INTERVAL ('Enqueue I/O handlers at a \
        channel's interval setting even if the amount of data ready to be delivered is inferior to the low water \
        mark (or zero)'); libdispatch io.c (_dispatch_operation_timer); measured on Linux, 48 KiB trickled 1 KiB per \
        10 ms, low water 1 MiB, interval 40 ms: strict, 11 calls of 4096 bytes 40 ms apart, then the done call; \
        not strict, one done call with all 48 KiB
        """
    static let needs: Set<Capability> = [.descriptorSources]
    static let forbidden: [Outcome] = [.missing, .extra, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let interval = Duration.milliseconds(40)
        // Strict: the bytes come at the ticks, far below the low water mark.
        let bytes = Descriptors.pattern(48 * 1024, seed: 11)
        let ends = try Descriptors.pipe()
        let (channel, queue, cleanup) = IOChannelRules.channel(engine, "arena.io.interval", over: ends.read)
        defer { channel.close(stop: true) }
        channel.setLowWater(1 << 20)
        channel.setInterval(interval, strict: true)
        let log = IOLog<E.Data>("the read of 48 KiB with a strict interval of 40 ms")
        let started = ContinuousClock.now
        channel.read(offset: 0, length: bytes.count, queue: queue, log.handler())
        Descriptors.trickle(bytes, into: ends.write, pieces: 1024, every: .milliseconds(10))
        try log.expectEnded()
        let elapsed = started.duration(to: .now)
        let before = log.calls.filter { !$0.done }
        let carrying = before.filter { !$0.bytes.isEmpty }
        try expect(
            carrying.count >= 2, .missing,
            "the read got \(carrying.count) calls with bytes before its end in \(elapsed) (ticks every 40 ms; 2 at least expected)")
        let bound = Int(elapsed / interval) * 2 + 4
        try expect(
            before.count <= bound, .extra,
            "the read got \(before.count) calls before its end in \(elapsed): more than \(bound), twice the ticks of 40 ms and 4")
        try expect(
            log.error == 0 && log.bytes == bytes, .wrongValue,
            "the read ended with error \(log.error!) and \(log.bytes.count) of \(bytes.count) bytes, or out of order")
        channel.close(stop: false)
        try cleanup.expectOnce(error: 0)

        // Not strict: below the low water mark, the ticks deliver nothing.
        let quiet = Descriptors.pattern(16 * 1024, seed: 12)
        let loose = try Descriptors.pipe()
        let other = IOChannelRules.channel(engine, "arena.io.interval.loose", over: loose.read)
        defer { other.channel.close(stop: true) }
        other.channel.setLowWater(1 << 20)
        other.channel.setInterval(interval, strict: false)
        let one = IOLog<E.Data>("the read of 16 KiB with an interval of 40 ms, not strict")
        other.channel.read(offset: 0, length: quiet.count, queue: other.queue, one.handler())
        Descriptors.trickle(quiet, into: loose.write, pieces: 1024, every: .milliseconds(10))
        try one.expectEnded()
        let early = one.calls.filter { !$0.done && !$0.bytes.isEmpty }.map(\.bytes.count)
        try expect(
            early.isEmpty, .early, "without strict, calls before the end carried \(early) bytes, under the low water mark of 1 MiB")
        try expect(
            one.error == 0 && one.bytes == quiet, .wrongValue,
            "the read without strict ended with error \(one.error!) and \(one.bytes.count) of \(quiet.count) bytes, or out of order")
        other.channel.close(stop: false)
        try other.cleanup.expectOnce(error: 0)
    }
}

enum IOCreateWithIO: BehaviourRule {
    static let id = "io.create-with-io"
    static let title =
        "A channel made from another shares its descriptor: a barrier of the second waits for a read of the first under way, a read of the second goes on where the first's ended, a write of the second lands after one of the first; closing the first leaves the descriptor to the second, and both cleanup handlers run, once each, only after the second was closed too, the descriptor open and given back blocking. Made from a closed channel, a channel's read and cleanup handler end with ECANCELED."
    static let source = """
        io.h, dispatch_io_create_with_io ('The new channel inherits the file descriptor or path name associated with \
        the existing channel, but not its channel type or policies ... control by the system over that file \
        descriptor is extended until the new channel is also closed ... At that time the specified cleanup handler \
        will be enqueued and control over the file descriptor relinquished'); libdispatch io.c (the channels share \
        one fd entry: its barrier queue and group, its streams, and its close queue, where every cleanup handler \
        waits); measured on Linux: the second's barrier ran after the first's read; the first's cleanup handler ran \
        after the second's close; made from a closed channel, cleanup and read got 125 (ECANCELED). Operations of \
        the two are ordered as they reach the shared line, so each here is issued 50 ms after the one before it
        """
    static let needs: Set<Capability> = [.descriptorSources]
    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        defer {
            Glibc.close(ends.write)
            Glibc.close(ends.read)
        }
        let queue = engine.makeQueue(label: "arena.io.create-with-io")
        let firstCleanup = CleanupRecord(closing: -1), secondCleanup = CleanupRecord(closing: -1)
        let first = engine.makeIOChannel(
            label: "arena.io.create-with-io", kind: .stream, fileDescriptor: ends.read, queue: queue,
            cleanup: firstCleanup.handler)
        let second = first.makeChannel(
            label: "arena.io.create-with-io.second", kind: .stream, queue: queue, cleanup: secondCleanup.handler)
        defer {
            first.close(stop: true)
            second.close(stop: true)
        }
        let bytes = Descriptors.pattern(3000, seed: 13)

        // A barrier of the second waits for the first's read, which waits for bytes; the second's read comes after.
        let firstRead = IOLog<E.Data>("the first channel's read of 1000 bytes")
        let secondRead = IOLog<E.Data>("the second channel's read of 1000 bytes")
        let barrierRan = Latch()
        first.read(offset: 0, length: 1000, queue: queue, firstRead.handler())
        Timing.pause(.milliseconds(50))
        second.barrier { barrierRan.countDown() }
        Timing.pause(.milliseconds(50))
        second.read(offset: 0, length: 1000, queue: queue, secondRead.handler())
        Timing.pause(.milliseconds(50))
        try expect(
            !barrierRan.isOpen, .early, "the second channel's barrier ran while the first channel's read waited for bytes")
        try Descriptors.writeAll(ends.write, Array(bytes[..<2000]))
        try firstRead.expectEnded()
        try secondRead.expectEnded()
        try expectOpens(barrierRan, as: .missing, "the second channel's barrier")
        try expect(
            firstRead.error == 0 && firstRead.bytes == Array(bytes[..<1000]), .wrongValue,
            "the first channel's read ended with error \(firstRead.error!) and \(firstRead.bytes.count) bytes, not bytes 0..<1000")
        try expect(
            secondRead.error == 0 && secondRead.bytes == Array(bytes[1000..<2000]), .wrongValue,
            "the second channel's read ended with error \(secondRead.error!) and \(secondRead.bytes.count) bytes, not bytes 1000..<2000"
        )

        // Writes: the second's waits for the first's, which fills the pipe.
        try checkWrites(engine)

        // The first closed, the second still reads; no cleanup handler runs before the second is closed too.
        first.close(stop: false)
        let lastRead = IOLog<E.Data>("the second channel's read after the first was closed")
        second.read(offset: 0, length: 1000, queue: queue, lastRead.handler())
        Timing.pause(.milliseconds(20))
        try Descriptors.writeAll(ends.write, Array(bytes[2000...]))
        try lastRead.expectEnded()
        try expect(
            lastRead.error == 0 && lastRead.bytes == Array(bytes[2000...]), .wrongValue,
            "after the first channel was closed, the second's read ended with error \(lastRead.error!) and \(lastRead.bytes.count) bytes, not bytes 2000..<3000"
        )
        Timing.pause(Timing.quietPeriod)
        try expect(
            !firstCleanup.ran.isOpen && !secondCleanup.ran.isOpen, .early,
            "a cleanup handler ran while the second channel still held the descriptor (first: \(firstCleanup.ran.isOpen), second: \(secondCleanup.ran.isOpen))"
        )
        second.close(stop: false)
        try firstCleanup.expectOnce(error: 0)
        try secondCleanup.expectOnce(error: 0)
        try expect(fcntl(ends.read, F_GETFD) != -1, .wrongValue, "the descriptor was closed by the channels")
        try expect(
            fcntl(ends.read, F_GETFL) & O_NONBLOCK == 0, .wrongValue,
            "the descriptor was given back non-blocking (it was blocking when the first channel was made)")

        // Made from a closed channel: nothing to share.
        let lateCleanup = CleanupRecord(closing: -1)
        let late = first.makeChannel(
            label: "arena.io.create-with-io.late", kind: .stream, queue: queue, cleanup: lateCleanup.handler)
        let lateRead = IOLog<E.Data>("a read of a channel made from a closed one")
        late.read(offset: 0, length: 10, queue: queue, lateRead.handler())
        try lateRead.expectEnded()
        try expect(
            lateRead.error == ECANCELED && lateRead.bytes.isEmpty, .wrongValue,
            "a read of a channel made from a closed one ended with error \(lateRead.error!) and \(lateRead.bytes.count) bytes, not ECANCELED"
        )
        late.close(stop: false)
        try lateCleanup.expectOnce(error: ECANCELED)
    }

    /// A write of 96 KiB through a first channel on a pipe's write end, which the pipe cannot hold, then one of
    /// 8 KiB through a channel made from it: the reader gets the first's bytes, then the second's.
    private static func checkWrites<E: Engine>(_ engine: E) throws {
        let ends = try Descriptors.pipe()
        defer { Glibc.close(ends.read) }
        let queue = engine.makeQueue(label: "arena.io.create-with-io.writes")
        let cleanup = CleanupRecord(closing: ends.write), secondCleanup = CleanupRecord(closing: -1)
        let first = engine.makeIOChannel(
            label: "arena.io.create-with-io.writer", kind: .stream, fileDescriptor: ends.write, queue: queue,
            cleanup: cleanup.handler)
        let second = first.makeChannel(
            label: "arena.io.create-with-io.writer.second", kind: .stream, queue: queue, cleanup: secondCleanup.handler)
        defer {
            first.close(stop: true)
            second.close(stop: true)
        }
        let big = Descriptors.pattern(96 * 1024, seed: 14), small = Descriptors.pattern(8 * 1024, seed: 15)
        let firstWrite = IOLog<E.Data>("the first channel's write of 96 KiB")
        let secondWrite = IOLog<E.Data>("the second channel's write of 8 KiB")
        first.write(offset: 0, data: Descriptors.data(engine, big), queue: queue, firstWrite.handler())
        Timing.pause(.milliseconds(50))
        second.write(offset: 0, data: Descriptors.data(engine, small), queue: queue, secondWrite.handler())
        Timing.pause(.milliseconds(50))
        let received = Descriptors.readExactly(ends.read, big.count + small.count, until: .now() + .seconds(5))
        try firstWrite.expectEnded()
        try secondWrite.expectEnded()
        try expect(
            firstWrite.error == 0 && secondWrite.error == 0, .wrongValue,
            "the writes ended with errors \(firstWrite.error!), \(secondWrite.error!)")
        try expect(
            received == big + small, .wrongValue,
            "the reader got \(received.count) bytes \(received.count == big.count + small.count ? "interleaved or reordered" : ""), not the first channel's 96 KiB then the second's 8 KiB"
        )
        first.close(stop: false)
        second.close(stop: false)
        try cleanup.expectOnce(error: 0)
        try secondCleanup.expectOnce(error: 0)
    }
}
