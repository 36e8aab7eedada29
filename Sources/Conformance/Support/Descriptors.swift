import ArenaContract
import Glibc
import Harness

/// Descriptors for the channel rules: blocking pipes, socket pairs and loopback sockets, all
/// close-on-exec. Every blocking call a check makes on them has a deadline (`SO_RCVTIMEO`, or a poll).
public enum Descriptors {
    /// A new pipe, both ends blocking.
    public static func pipe() throws -> (read: Int32, write: Int32) {
        do { return try Endpoints.pipe() } catch { throw RuleFailure(.setup, error.description) }
    }

    /// A connected pair of Unix stream sockets, both blocking.
    public static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw RuleFailure(.setup, "socketpair failed: errno \(errno)")
        }
        return (ends[0], ends[1])
    }

    /// Writes all of `bytes` to a blocking descriptor. A socket whose peer is gone fails with EPIPE rather than
    /// raising SIGPIPE (`MSG_NOSIGNAL`); a pipe's rules keep its read end open until they are done.
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { buffer in
                let sent = send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                return sent < 0 && errno == ENOTSOCK ? Glibc.write(descriptor, buffer.baseAddress, buffer.count) : sent
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw RuleFailure(.setup, "write failed after \(offset) of \(bytes.count) bytes: errno \(errno)") }
            offset += count
        }
    }

    /// Writes `bytes` to `descriptor` from a plain thread, `pieces` bytes at a time, pausing `every` after each, then
    /// closes the descriptor; the latch opens once it did.
    @discardableResult
    public static func trickle(_ bytes: [UInt8], into descriptor: Int32, pieces: Int, every pause: Duration) -> Latch {
        let done = Latch()
        Threads.detach {
            for start in stride(from: 0, to: bytes.count, by: pieces) {
                _ = try? writeAll(descriptor, Array(bytes[start..<min(start + pieces, bytes.count)]))
                Timing.pause(pause)
            }
            Glibc.close(descriptor)
            done.countDown()
        }
        return done
    }

    /// Reads exactly `count` bytes from a descriptor, waiting at most until `deadline`; fewer when it ends first.
    public static func readExactly(_ descriptor: Int32, _ count: Int, until deadline: Deadline) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let left = deadline - .now()
            guard left > .zero else { break }
            var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, Int32(min(left.nanosecondsClamped / 1_000_000, 1000))) >= 0 || errno == EINTR else { break }
            guard probe.revents != 0 else { continue }
            let read = bytes[offset...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            offset += read
        }
        return Array(bytes[..<offset])
    }

    /// `count` bytes of a pattern that tells its offsets apart (a byte repeats only every 251), starting at `seed`.
    public static func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 + seed) % 251) }
    }

    /// The engine's buffer holding a copy of `bytes`.
    public static func data<E: Engine>(_ engine: E, _ bytes: [UInt8]) -> E.Data {
        bytes.withUnsafeBytes { engine.makeData(copying: $0) }
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks (loopback only), non-blocking; returns it with
    /// its port.
    public static func loopbackListener(backlog: Int32 = 64) throws -> (socket: Int32, port: UInt16) {
        do { return try Endpoints.listener(backlog: backlog) } catch { throw RuleFailure(.setup, error.description) }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose reads and writes give up after `timeout`.
    public static func connectLoopback(port: UInt16, timeout: Duration) throws -> Int32 {
        do { return try Endpoints.connect(port: port, until: .now() + timeout) } catch { throw RuleFailure(.setup, error.description) }
    }
}
