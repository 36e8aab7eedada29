import Contenders
import Glibc
import Harness

/// Descriptors for the channel rules: blocking pipes, socket pairs, temporary files and loopback sockets, all
/// close-on-exec. Every blocking call a check makes on them has a deadline (`SO_RCVTIMEO`, or a poll).
public enum Descriptors {
    /// A new pipe, both ends blocking.
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw RuleFailure("pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// A connected pair of Unix stream sockets, both blocking.
    public static func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw RuleFailure("socketpair failed: errno \(errno)")
        }
        return (ends[0], ends[1])
    }

    /// A new, empty directory under /tmp; the caller removes it with `removeTree`.
    public static func temporaryDirectory(_ name: String) throws -> String {
        var template = Array("/tmp/arena-\(name)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw RuleFailure("mkdtemp failed: errno \(errno)")
        }
        return String(cString: made)
    }

    /// Removes the files directly inside `directory`, then the directory.
    public static func removeTree(_ directory: String) {
        if let listing = opendir(directory) {
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink("\(directory)/\(name)") }
            }
            closedir(listing)
        }
        rmdir(directory)
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
            guard count > 0 else { throw RuleFailure("write failed after \(offset) of \(bytes.count) bytes: errno \(errno)") }
            offset += count
        }
    }

    /// Reads exactly `count` bytes from a descriptor, waiting at most until `deadline`; fewer when it ends first.
    public static func readExactly(_ descriptor: Int32, _ count: Int, until deadline: Deadline) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let left = deadline - .now()
            guard left > .zero else { break }
            var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, Int32(min(left.milliseconds, 1000))) >= 0 || errno == EINTR else { break }
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
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw RuleFailure("socket failed: errno \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, backlog) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw RuleFailure("bind or listen on 127.0.0.1 failed: errno \(errno)")
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose reads give up after `timeout`.
    public static func connectLoopback(port: UInt16, timeout: Duration) throws -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw RuleFailure("socket failed: errno \(errno)") }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(client)
            throw RuleFailure("connect to 127.0.0.1:\(port) failed: errno \(errno)")
        }
        return client
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

extension Duration {
    /// Whole milliseconds (rounded down).
    var milliseconds: Int { Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000) }
}
