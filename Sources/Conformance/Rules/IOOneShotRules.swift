import ArenaContract
import Glibc
import Harness

/// Dispatch I/O's convenience calls, `dispatch_read` and `dispatch_write` (`Engine.read`, `Engine.write`): one
/// operation on a descriptor the caller keeps, one handler call. Listed in `IOChannelRules`, after the channels.

/// The calls a one-shot handler got: the bytes and the error of each.
private final class OneShotLog: Sendable {
    let calls = Recorder<(bytes: [UInt8], error: Int32, unwritten: Int)>()
    let called = Latch()

    func record(_ bytes: [UInt8], _ error: Int32, unwritten: Int = 0) {
        calls.append((bytes, error, unwritten))
        called.countDown()
    }

    /// Waits for the call, then a quiet period for a second one.
    func expectOnce(_ what: String) throws {
        try expectOpens(called, "\(what): the handler call")
        Timing.pause(Timing.quietPeriod)
        try expect(calls.count == 1, .extra, "\(what): the handler ran \(calls.count) times, not once")
    }
}

/// Whether `descriptor` is still open (the engine gave it back rather than closing it).
private func isOpen(_ descriptor: Int32) -> Bool { fcntl(descriptor, F_GETFD) != -1 }

enum IOReadOnce: BehaviourRule {
    static let id = "io.read-once"
    static let title =
        "read(fileDescriptor:length:) calls its handler once, on its queue, with the bytes the descriptor had (a first run of those written, up to the length) and 0 (no bytes at an immediate end of file), or with an error for a bad descriptor; the descriptor stays open, and bytes past the length stay in it."
    static let source =
        "io.h, dispatch_read ('The specified handler is enqueued with the data read from the file descriptor when the operation has completed or an error occurs … An invocation of the handler with an error code of zero and an empty data object indicates that EOF was reached'); libdispatch tests dispatch_io.c (test_io_read_write: dispatch_read of a whole file)"
    static let needs: Set<Capability> = [.descriptorSources]
    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.io.read-once")
        let key = SpecificKey<Int>("arena.io.one-shot")
        queue.setSpecific(key, 1)
        for round in 0..<4 {
            // Trickled: a first run of the bytes, in one call. libdispatch delivers what the pipe holds at its read
            // (io.h: 'only as much data as is currently available … up to the specified length'; measured: 4096 of
            // 24576 trickled bytes); the default layer reads on to the length. Either is a prefix.
            let (readEnd, writeEnd) = try Descriptors.pipe()
            defer { Glibc.close(readEnd) }
            let bytes = Descriptors.pattern(24 * 1024 + round, seed: round)
            let log = OneShotLog()
            let offQueue = Counter()
            engine.read(fileDescriptor: readEnd, length: bytes.count, queue: queue) { data, error in
                if engine.currentSpecific(key) != 1 { offQueue.add() }
                log.record(data.bytes, error)
            }
            Descriptors.trickle(bytes, into: writeEnd, pieces: 4096, every: .milliseconds(1))
            try log.expectOnce("round \(round)")
            try expect(offQueue.value == 0, .wrongPlace, "round \(round): the handler ran off its queue")
            let call = log.calls.elements[0]
            try expect(call.error == 0, .wrongValue, "round \(round): the read ended with error \(call.error)")
            try expect(
                !call.bytes.isEmpty && call.bytes == Array(bytes.prefix(call.bytes.count)), .wrongValue,
                "round \(round): the handler got \(call.bytes.count) bytes \(call.bytes == Array(bytes.prefix(call.bytes.count)) ? "(a prefix)" : "that differ"), not a first run of the \(bytes.count) written"
            )
            try expect(isOpen(readEnd), .wrongValue, "round \(round): the descriptor was closed by the read")
        }
        // A length: that many, and the rest stays in the descriptor.
        let (readEnd, writeEnd) = try Descriptors.pipe()
        defer {
            Glibc.close(readEnd)
            Glibc.close(writeEnd)
        }
        let bytes = Descriptors.pattern(8192, seed: 7)
        try Descriptors.writeAll(writeEnd, bytes)
        let log = OneShotLog()
        engine.read(fileDescriptor: readEnd, length: 3000, queue: queue) { data, error in log.record(data.bytes, error) }
        try log.expectOnce("a read of 3000 of 8192 bytes")
        let call = log.calls.elements[0]
        try expect(
            call.bytes == Array(bytes[..<3000]) && call.error == 0, .wrongValue,
            "a read of 3000 bytes got \(call.bytes.count) bytes and error \(call.error)")
        let rest = Descriptors.readExactly(readEnd, bytes.count - 3000, until: .now() + .seconds(2))
        try expect(
            rest == Array(bytes[3000...]), .wrongValue, "after a read of 3000 bytes, \(rest.count) of the other 5192 were left in the pipe")
        // At the end of file: no bytes, no error.
        let (emptyRead, emptyWrite) = try Descriptors.pipe()
        defer { Glibc.close(emptyRead) }
        Glibc.close(emptyWrite)
        let eof = OneShotLog()
        engine.read(fileDescriptor: emptyRead, length: Int.max, queue: queue) { data, error in eof.record(data.bytes, error) }
        try eof.expectOnce("a read at the end of file")
        let end = eof.calls.elements[0]
        try expect(
            end.bytes.isEmpty && end.error == 0, .wrongValue,
            "a read at the end of file got \(end.bytes.count) bytes and error \(end.error)")
        // A bad descriptor: an error.
        let bad = OneShotLog()
        engine.read(fileDescriptor: -1, length: 16, queue: queue) { data, error in bad.record(data.bytes, error) }
        try bad.expectOnce("a read of descriptor -1")
        try expect(bad.calls.elements[0].error != 0, .wrongValue, "a read of descriptor -1 ended without an error")
    }
}

enum IOWriteOnce: BehaviourRule {
    static let id = "io.write-once"
    static let title =
        "write(fileDescriptor:data:) calls its handler once, on its queue, with no bytes left and 0 once every byte was written, in order, through a pipe fuller than its capacity; with an error for a bad descriptor; the descriptor stays open."
    static let source =
        "io.h, dispatch_write ('The specified handler is enqueued when the operation has completed or an error occurs … the handler will be enqueued with the appropriate error code along with the data that could not be successfully written … An invocation of the handler with an error code of zero indicates that the data was fully written'); libdispatch tests dispatch_io.c (test_io_read_write)"
    static let needs: Set<Capability> = [.descriptorSources]
    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue, .early, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.io.write-once")
        let key = SpecificKey<Int>("arena.io.one-shot")
        queue.setSpecific(key, 1)
        for round in 0..<3 {
            let (readEnd, writeEnd) = try Descriptors.pipe()
            defer {
                Glibc.close(readEnd)
                Glibc.close(writeEnd)
            }
            let bytes = Descriptors.pattern(256 * 1024 + round, seed: round)
            let log = OneShotLog()
            let offQueue = Counter()
            engine.write(fileDescriptor: writeEnd, data: Descriptors.data(engine, bytes), queue: queue) { unwritten, error in
                if engine.currentSpecific(key) != 1 { offQueue.add() }
                log.record([], error, unwritten: unwritten?.count ?? 0)
            }
            // The pipe holds 64 KiB: the write cannot complete before the reader took most of it.
            Timing.pause(round == 0 ? Timing.quietPeriod : .milliseconds(2))
            try expect(!log.called.isOpen, .early, "round \(round): the handler ran before the reader drained the pipe")
            let received = Descriptors.readExactly(readEnd, bytes.count, until: .now() + .seconds(5))
            try log.expectOnce("round \(round)")
            try expect(offQueue.value == 0, .wrongPlace, "round \(round): the handler ran off its queue")
            let call = log.calls.elements[0]
            try expect(
                call.error == 0 && call.unwritten == 0, .wrongValue,
                "round \(round): the write ended with error \(call.error) and \(call.unwritten) bytes unwritten")
            try expect(
                received == bytes, .wrongValue,
                "round \(round): the reader got \(received.count) bytes \(received == Array(bytes.prefix(received.count)) ? "(a prefix)" : "that differ"), not the \(bytes.count) written"
            )
            try expect(isOpen(writeEnd), .wrongValue, "round \(round): the descriptor was closed by the write")
        }
        let bad = OneShotLog()
        engine.write(fileDescriptor: -1, data: Descriptors.data(engine, Descriptors.pattern(100)), queue: queue) { unwritten, error in
            bad.record([], error, unwritten: unwritten?.count ?? 0)
        }
        try bad.expectOnce("a write to descriptor -1")
        let call = bad.calls.elements[0]
        // libdispatch gives no bytes back here (measured: error 9, no data): the write never began.
        try expect(call.error != 0, .wrongValue, "a write of 100 bytes to descriptor -1 ended without an error")
    }
}
