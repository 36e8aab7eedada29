import ArenaContract
import Glibc

/// Pipes and TCP sockets on 127.0.0.1 for the I/O rules and workloads: loopback only (port 0: the kernel picks), all
/// close-on-exec, every blocking socket call bounded by a deadline (`SO_RCVTIMEO`, `SO_SNDTIMEO`). Each call is a
/// handful of system calls; none blocks past its deadline.
public enum Endpoints {
    /// A new pipe, both ends blocking.
    public static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw SystemCallError("pipe", errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks, non-blocking (accepts come from a read source
    /// or a bounded poll); returns it with its port.
    public static func listener(backlog: Int32) throws(SystemCallError) -> (socket: Int32, port: UInt16) {
        let listener = socket(
            AF_INET,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw SystemCallError("socket", errno) }
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
            throw SystemCallError("bind or listen on 127.0.0.1", error)
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose sends and receives give up at `deadline`; with
    /// `noDelay`, small writes leave at once (`TCP_NODELAY`).
    public static func connect(port: UInt16, until deadline: Deadline, noDelay: Bool = false) throws(SystemCallError) -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw SystemCallError("socket", errno) }
        setTimeouts(client, until: deadline)
        if noDelay { setNoDelay(client) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let error = errno
            close(client)
            throw SystemCallError("connect to 127.0.0.1:\(port)", error)
        }
        return client
    }

    /// Bounds the socket's blocking sends and receives by `deadline` (at least 1 ms from now).
    public static func setTimeouts(_ socket: Int32, until deadline: Deadline) {
        let left = max(Int64(1_000_000), (deadline - .now()).nanosecondsClamped)
        var limit = timeval(tv_sec: Int(left / 1_000_000_000), tv_usec: Int(left % 1_000_000_000 / 1000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Turns off Nagle's algorithm: a small write leaves at once instead of waiting for the previous one's ack.
    public static func setNoDelay(_ socket: Int32) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
