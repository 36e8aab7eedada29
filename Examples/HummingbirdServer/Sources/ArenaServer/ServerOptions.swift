import ArgumentParser
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line. ArgumentParser reports what it cannot parse (exit 64); `validated()` checks the values, each
/// failure one line on stderr (exit 64).
struct ServerOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "arena-server",
        abstract: "A Hummingbird 2 server on loopback for load tests of Swift Concurrency's global executor.",
        discussion: """
            Prints `listening HOST:PORT` on stdout once it listens, and stops by itself after --seconds (or on SIGTERM or \
            SIGINT). Endpoints: GET /plain (a fixed body), GET /work[?seed=N] (a task group of 4 children, an actor, a \
            1 ms sleep; the body is `sum=S bumps=4`), GET /where (the threads that run a handler, the code after a \
            sleep, a child task). Exit codes: 0 stopped, 64 bad command line, 69 port in use, \
            70 --nio-takeover failed, 1 other failure.
            """
    )

    @Option(help: "The address to listen on: a loopback address only (127.0.0.0/8, ::1, localhost).")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one. The bound port is printed on stdout.")
    var port = 0

    @Option(help: "Stop by itself after this many seconds (1...86400).")
    var seconds = 60

    @Flag(
        help: """
            Install NIO's event loops as Swift Concurrency's global executor first thing \
            (NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor); exit 70 if that fails.
            """
    )
    var nioTakeover = false

    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical); logs go to stderr.")
    var logLevel = "warning"

    /// The values checked: a bad one is one line on stderr and exit 64.
    func validated() -> ServerSettings {
        guard let host = Self.loopbackHost(self.host) else {
            fail("arena-server: --host \(self.host): not a loopback address (use 127.0.0.1, another 127.x.y.z, ::1 or localhost)", code: ServerExit.usage)
        }
        guard (0...65535).contains(self.port) else {
            fail("arena-server: --port \(self.port): out of range (0...65535)", code: ServerExit.usage)
        }
        guard (1...86400).contains(self.seconds) else {
            fail("arena-server: --seconds \(self.seconds): out of range (1...86400)", code: ServerExit.usage)
        }
        guard let level = Logger.Level(rawValue: self.logLevel.lowercased()) else {
            fail("arena-server: --log-level \(self.logLevel): unknown level", code: ServerExit.usage)
        }
        return ServerSettings(host: host, port: self.port, seconds: self.seconds, nioTakeover: self.nioTakeover, logLevel: level)
    }

    /// The address to bind for `text` when it is a loopback address, or nil. Only numeric addresses pass (and
    /// `localhost`, bound as 127.0.0.1), so no name lookup can lead anywhere else.
    static func loopbackHost(_ text: String) -> String? {
        if text == "localhost" { return "127.0.0.1" }
        var address = text
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            // s_addr is in network order: the first octet is the lowest byte in memory.
            let firstOctet = withUnsafeBytes(of: &v4) { $0[0] }
            return firstOctet == 127 ? address : nil
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return bytes == Array(repeating: 0, count: 15) + [1] ? address : nil
        }
        return nil
    }
}

/// What the server runs with, checked.
struct ServerSettings: Sendable {
    var host: String
    var port: Int
    var seconds: Int
    var nioTakeover: Bool
    var logLevel: Logger.Level
}
