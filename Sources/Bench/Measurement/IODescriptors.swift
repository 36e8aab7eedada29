import Contenders
import Glibc

/// Descriptors for the I/O workloads (`io-throughput`, `tcp-echo`): pipes and TCP sockets on 127.0.0.1 only (port 0:
/// the kernel picks), all close-on-exec, and the plain blocking loops their clients and the floor run. Every blocking
/// socket call is bounded by the trial's deadline (`SO_RCVTIMEO`, `SO_SNDTIMEO`), and writes to sockets never raise
/// SIGPIPE (`MSG_NOSIGNAL`). Conformance has helpers like these; Bench does not depend on it, so it keeps its own.
@usableFromInline enum IODescriptors {
    /// A new pipe, both ends blocking.
    @usableFromInline static func pipe() throws(WorkloadError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw WorkloadError("pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks, non-blocking (accepts come from a read source
    /// or a bounded poll); returns it with its port.
    @usableFromInline static func loopbackListener(backlog: Int32)
        throws(WorkloadError) -> (socket: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                                  | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw WorkloadError("socket failed: errno \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, backlog) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(listener)
            throw WorkloadError("bind or listen on 127.0.0.1 failed: errno \(error)")
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose sends and receives give up at `deadline`; with
    /// `noDelay`, small writes leave at once (`TCP_NODELAY`).
    @usableFromInline static func connectLoopback(port: UInt16, until deadline: Deadline,
                                                  noDelay: Bool) throws(WorkloadError) -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw WorkloadError("socket failed: errno \(errno)") }
        setTimeouts(client, until: deadline)
        if noDelay { setNoDelay(client) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let error = errno
            close(client)
            throw WorkloadError("connect to 127.0.0.1:\(port) failed: errno \(error)", timedOut: error == EAGAIN)
        }
        return client
    }

    /// A connected pair of loopback TCP sockets, both blocking with the deadline's timeouts: the listener is made,
    /// connected to, accepted from (a poll bounded by `deadline`) and closed again.
    @usableFromInline static func tcpPair(until deadline: Deadline)
        throws(WorkloadError) -> (client: Int32, server: Int32) {
        let (listener, port) = try loopbackListener(backlog: 1)
        defer { close(listener) }
        let client = try connectLoopback(port: port, until: deadline, noDelay: false)
        while true {
            let server = accept(listener, nil, nil)
            if server >= 0 {
                _ = fcntl(server, F_SETFD, FD_CLOEXEC)
                setTimeouts(server, until: deadline)
                return (client, server)
            }
            let error = errno
            let left = deadline - .now()
            guard error == EAGAIN || error == EWOULDBLOCK || error == EINTR, left > .zero else {
                close(client)
                throw WorkloadError("accept on 127.0.0.1:\(port) failed: errno \(error)", timedOut: left <= .zero)
            }
            var probe = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            _ = poll(&probe, 1, Int32(clamping: min(left.nanosecondsClamped / 1_000_000 + 1, 1000)))
        }
    }

    /// Bounds the socket's blocking sends and receives by `deadline` (at least 1 ms from now).
    @usableFromInline static func setTimeouts(_ socket: Int32, until deadline: Deadline) {
        let left = max(Int64(1_000_000), (deadline - .now()).nanosecondsClamped)
        var limit = timeval(tv_sec: Int(left / 1_000_000_000), tv_usec: Int(left % 1_000_000_000 / 1000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Turns off Nagle's algorithm: a small write leaves at once instead of waiting for the previous one's ack.
    @usableFromInline static func setNoDelay(_ socket: Int32) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all `count` bytes at `bytes` to a blocking descriptor (`send` with `MSG_NOSIGNAL` on a socket);
    /// returns 0, or the errno that stopped it (EAGAIN: a socket's deadline passed).
    @usableFromInline static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int,
                                           socket: Bool) -> Int32 {
        var offset = 0
        while offset < count {
            let sent = socket ? send(descriptor, bytes + offset, count - offset, Int32(MSG_NOSIGNAL))
                              : write(descriptor, bytes + offset, count - offset)
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return sent < 0 ? errno : EPIPE
            }
        }
        return 0
    }

    /// Reads exactly `count` bytes into `buffer` from a blocking socket; returns how many arrived before end of
    /// file, an error, or the socket's deadline (then `error` is its errno, 0 at end of file).
    @usableFromInline static func readExactly(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer,
                                              _ count: Int) -> (count: Int, error: Int32) {
        var offset = 0
        while offset < count {
            let got = recv(descriptor, buffer + offset, count - offset, 0)
            if got > 0 {
                offset += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                return (offset, got < 0 ? errno : 0)
            }
        }
        return (offset, 0)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
