import ArenaContract
import Glibc
import Harness

/// Descriptors for the I/O workloads (`io-throughput`, `tcp-echo`): pipes and TCP sockets on 127.0.0.1 only (port 0:
/// the kernel picks), all close-on-exec, and the plain blocking loops their clients and the floor run. Every blocking
/// socket call is bounded by the trial's deadline (`SO_RCVTIMEO`, `SO_SNDTIMEO`), and writes to sockets never raise
/// SIGPIPE (`MSG_NOSIGNAL`). Pipes and sockets come from Harness's `Endpoints`, which the I/O rules use too;
/// this adds the workloads' error type and their loops.
@usableFromInline enum IODescriptors {
    /// A new pipe, both ends blocking.
    @usableFromInline static func pipe() throws(WorkloadError) -> (read: Int32, write: Int32) {
        do { return try Endpoints.pipe() } catch { throw WorkloadError(error.description) }
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks, non-blocking; returns it with its port.
    @usableFromInline static func loopbackListener(backlog: Int32) throws(WorkloadError) -> (socket: Int32, port: UInt16) {
        do { return try Endpoints.listener(backlog: backlog) } catch { throw WorkloadError(error.description) }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose sends and receives give up at `deadline`.
    @usableFromInline static func connectLoopback(
        port: UInt16, until deadline: Deadline,
        noDelay: Bool
    ) throws(WorkloadError) -> Int32 {
        do { return try Endpoints.connect(port: port, until: deadline, noDelay: noDelay) } catch {
            throw WorkloadError(error.description, timedOut: error.number == EAGAIN)
        }
    }

    /// A connected pair of loopback TCP sockets, both blocking with the deadline's timeouts: the listener is made,
    /// connected to, accepted from (a poll bounded by `deadline`) and closed again.
    @usableFromInline static func tcpPair(until deadline: Deadline)
        throws(WorkloadError) -> (client: Int32, server: Int32)
    {
        let (listener, port) = try loopbackListener(backlog: 1)
        defer { close(listener) }
        let client = try connectLoopback(port: port, until: deadline, noDelay: false)
        while true {
            let server = accept(listener, nil, nil)
            if server >= 0 {
                _ = fcntl(server, F_SETFD, FD_CLOEXEC)
                Endpoints.setTimeouts(server, until: deadline)
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

    /// Writes all `count` bytes at `bytes` to a blocking descriptor (`send` with `MSG_NOSIGNAL` on a socket);
    /// returns 0, or the errno that stopped it (EAGAIN: a socket's deadline passed).
    @usableFromInline static func writeAll(
        _ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int,
        socket: Bool
    ) -> Int32 {
        var offset = 0
        while offset < count {
            let sent =
                socket
                ? send(descriptor, bytes + offset, count - offset, Int32(MSG_NOSIGNAL))
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
    @usableFromInline static func readExactly(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer,
        _ count: Int
    ) -> (count: Int, error: Int32) {
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
}
