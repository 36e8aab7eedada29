import ArenaContract
import Glibc
import Harness

/// `tcp-echo`: the seed's echo server on one engine, and C clients (1 to 64) making round trips to it over loopback
/// TCP (127.0.0.1, a port the kernel picks).
///
/// The server is a read source on a non-blocking listening socket whose handler accepts every connection waiting,
/// and a stream channel per connection (its own serial queue, low water 1, so a run of bytes is echoed however short)
/// whose read handler writes each run of bytes back on the same channel, and closes the channel at end of file; its
/// cleanup handler closes the connection. The clients are plain threads with blocking sockets (`TCP_NODELAY`, sends
/// with `MSG_NOSIGNAL`, both directions bounded by the trial's deadline through `SO_RCVTIMEO` and `SO_SNDTIMEO`);
/// each sends a 64-byte message, reads the 64 echoed bytes and checks every one, then the next. Bounded in count and
/// time: a trial makes a fixed number of round trips (its operations, split evenly over the clients) and every wait
/// ends at the trial's deadline.
///
/// Each trial connects its clients and waits until the server accepted them all before the clock starts, so the clock
/// covers round trips only, from the release of the clients (together) until the last one finished. The connections
/// live for that trial: afterwards the clients half-close, each channel meets end of file, closes after its last echo
/// and closes its descriptor, and only then are the clients' sockets closed and the listener's source cancelled; a
/// trial returns after every cleanup handler ran. The headline is round trips per second over all clients; each round
/// trip is also timed on its own, for the latency percentiles (p50, p99). The answer checked: every echoed byte equals
/// the byte sent (a message depends on its client and round), every round trip completed, the server accepted exactly
/// C connections, and no server read or write ended with an error.
public struct TCPEchoWorkload: Workload {
    public let name = "tcp-echo"
    public let summary =
        "C blocking clients make 64-byte round trips to a loopback TCP echo server on one engine "
        + "(a read source accepting, a channel per connection); round trips/s, latency percentiles"
    public let headline = Headline.throughput(unit: "round trips/s")
    public let figure = PlotFigure.bundled("tcp-echo.gp")

    /// Bytes per message.
    @usableFromInline static let messageSize = 64

    public init() {}

    /// clients: 1, 8 and 64 (quick), or 1, 4, 16 and 64 (full).
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.integer("clients", Self.clientCounts(settings))]
    }

    /// Clients 1, 8 and 64 (quick), or 1, 4, 16 and 64 (full).
    public func points(_ settings: BenchSettings) -> [Point] {
        Self.clientCounts(settings).map { Point(workload: name, parameters: [Parameter("clients", $0)], threads: $0) }
    }

    /// The client counts under `settings`.
    static func clientCounts(_ settings: BenchSettings) -> [Int] { settings.quick ? [1, 8, 64] : [1, 4, 16, 64] }

    /// 20 round trips per client: a round trip costs some tens of µs alone and a few hundred µs among 64 clients,
    /// so the first trial lasts about 1 to 10 ms.
    public func initialOperations(_ point: Point) -> Int { 20 * point.threads }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let clientCount = point.threads
        let perClient = max(1, (operations + clientCount - 1) / clientCount)
        let deadline = context.deadline
        let (listener, port) = try IODescriptors.loopbackListener(backlog: 128)
        let server = ChannelEchoServer(engine: engine, listener: listener, connections: clientCount)
        let accepting = engine.makeReadSource(label: "tcp-echo.accept", fileDescriptor: listener, queue: server.queue)
        let cancelled = Latch()
        accepting.setEventHandler { server.acceptAll() }
        accepting.setCancelHandler { cancelled.countDown() }
        accepting.activate()
        let clients = EchoClients(count: clientCount, roundTrips: perClient)

        var failure: WorkloadError?
        var elapsed = Stopwatch.Reading(wallNanoseconds: 0, cpuNanoseconds: 0)
        var released = false
        do throws(WorkloadError) {
            for _ in 0..<clientCount {
                clients.sockets.append(try IODescriptors.connectLoopback(port: port, until: deadline, noDelay: true))
            }
            try WorkloadError.check(
                server.accepted.wait(until: deadline) ? .success : .timedOut,
                waitingFor: "the server to accept \(clientCount) connections")
            released = true
            elapsed = try Crew.run(clientCount, until: deadline) { index in clients.run(index) }
        } catch {
            failure = error
        }

        // The end, in an order that leaves no descriptor to a late write: the clients stop (one still blocked is woken
        // by a shutdown) and half-close, so every connection's read meets end of file and its channel closes after its
        // last echo; the listener's source is cancelled before the listener is closed; the clients' sockets are closed
        // only once every cleanup handler ran. A part that does not end in time is leaked rather than freed under a
        // late handler, and the trial fails.
        let grace = Deadline.now() + .seconds(1)
        var clientsEnded = !released || clients.ended.wait(until: deadline)
        if !clientsEnded {
            clients.shutdown(SHUT_RDWR)
            clientsEnded = clients.ended.wait(until: .now() + .seconds(1))
        }
        clients.shutdown(SHUT_WR)
        accepting.cancel()
        let listenerFree = cancelled.wait(until: Swift.max(deadline, grace))
        if listenerFree { Glibc.close(listener) }
        let connectionsClosed = server.waitClosed(until: Swift.max(deadline, grace))
        if clientsEnded && connectionsClosed {
            clients.closeAll()
            server.release()
        }
        // A client's own words first: a client stuck on a short echo runs into the deadline, and says what it got.
        if let error = clients.firstError { throw WorkloadError(error, timedOut: failure?.timedOut ?? false) }
        if let failure { throw failure }
        try WorkloadError.check(clientsEnded ? .success : .timedOut, waitingFor: "\(clientCount) clients to finish")
        try WorkloadError.check(
            listenerFree ? .success : .timedOut,
            waitingFor: "the accepting source's cancel handler")
        try WorkloadError.check(
            connectionsClosed ? .success : .timedOut,
            waitingFor: "every connection's channel to close and run its cleanup handler")
        if let error = server.firstError { throw WorkloadError(error) }
        try WorkloadError.check("the connections the server accepted", server.acceptedCount, expected: clientCount)
        let latencies = clients.mergedLatencies()
        try WorkloadError.check("the round trips timed", Int(latencies.count), expected: perClient * clientCount)
        return Trial(operations: perClient * clientCount, elapsed: elapsed, latencies: latencies)
    }
}

/// The seed's echo server on one engine: each connection accepted gets a stream channel on a serial queue of its own;
/// every run of bytes read is written back on the same channel; end of file closes the channel, whose cleanup handler
/// closes the connection. The bookkeeping (counts, channels, the first error) is under `state`'s lock.
@usableFromInline final class ChannelEchoServer<E: Engine>: @unchecked Sendable {
    @usableFromInline let engine: E
    @usableFromInline let listener: Int32
    /// The connections the trial makes; one more is an error (and is closed at once).
    @usableFromInline let connections: Int
    /// Where the accepting source's handler runs.
    @usableFromInline let queue: E.Queue
    /// Opens once `connections` were accepted.
    @usableFromInline let accepted: Latch
    @usableFromInline let state = Condition()
    // Under `state.lock`:
    @usableFromInline var acceptedSoFar = 0
    @usableFromInline var open = 0
    @usableFromInline var error: String?
    /// The channels, kept until `release()`: each one's handlers hold it, and it holds them, until its cleanup ran.
    @usableFromInline var channels: [E.IOChannel] = []

    @inlinable init(engine: E, listener: Int32, connections: Int) {
        (self.engine, self.listener, self.connections) = (engine, listener, connections)
        queue = engine.makeQueue(label: "tcp-echo.server")
        accepted = Latch(connections)
    }

    /// The accepting source's handler: accepts every connection waiting (the listener is non-blocking).
    @inlinable func acceptAll() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }  // none waiting (EAGAIN), or an error the clients' waits will show
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let count = state.lock.withLock { () -> Int in
                acceptedSoFar += 1
                return acceptedSoFar
            }
            guard count <= connections else {
                Glibc.close(connection)
                fail("the server accepted connection \(count) of \(connections)")
                continue
            }
            Endpoints.setNoDelay(connection)
            serve(connection)
            accepted.countDown()
        }
    }

    /// Echoes `connection` through a channel of its own until end of file.
    @inlinable func serve(_ connection: Int32) {
        let connectionQueue = engine.makeQueue(label: "tcp-echo.connection")
        let channel = engine.makeIOChannel(
            label: "tcp-echo.connection", kind: .stream, fileDescriptor: connection,
            queue: connectionQueue
        ) { [self] error in
            Glibc.close(connection)
            if error != 0 { fail("a connection's cleanup handler got error \(error)") }
            state.update { open -= 1 }
        }
        state.update {
            channels.append(channel)
            open += 1
        }
        channel.setLowWater(1)  // echo what came, however little: libdispatch's default waits for more
        channel.read(offset: 0, length: Int.max, queue: connectionQueue) { [self] done, data, error in
            if let data, data.count > 0 {
                channel.write(offset: 0, data: data, queue: connectionQueue) { [self] done, _, error in
                    if done && error != 0 { fail("an echo write ended with error \(error)") }
                }
            }
            if done {
                if error != 0 { fail("a connection's read ended with error \(error)") }
                channel.close(stop: false)
            }
        }
    }

    /// Keeps the first thing that went wrong.
    @inlinable func fail(_ message: String) {
        state.lock.withLock { if error == nil { error = message } }
    }

    /// Whether every accepted connection's cleanup handler ran by `deadline`.
    @inlinable func waitClosed(until deadline: Deadline) -> Bool {
        state.wait(until: deadline) { open == 0 }
    }

    /// Connections accepted, surplus ones included.
    @inlinable var acceptedCount: Int { state.lock.withLock { acceptedSoFar } }

    /// What went wrong first on the server, if anything.
    @inlinable var firstError: String? { state.lock.withLock { error } }

    /// Drops the channels, once every cleanup handler ran.
    @inlinable func release() {
        state.lock.withLock { channels.removeAll() }
    }
}

/// The clients of one `tcp-echo` trial: a blocking socket, a latency recorder and a slot for an error each. The trial
/// fills `sockets` before it releases the clients; client `i` then touches slot `i` only, and the trial reads the
/// slots after `ended` opened.
@usableFromInline final class EchoClients: @unchecked Sendable {
    @usableFromInline var sockets: [Int32] = []
    @usableFromInline let roundTrips: Int
    /// One recorder per client, made before the clock (each is about 230 KiB).
    @usableFromInline let recorders: UnsafeMutableBufferPointer<LatencyRecorder>
    @usableFromInline let errors: Locked<[String]>
    /// Opens once every client returned.
    @usableFromInline let ended: Latch

    @usableFromInline init(count: Int, roundTrips: Int) {
        self.roundTrips = roundTrips
        recorders = .allocate(capacity: count)
        // One by one: a value repeated would share one histogram, copied by each client's first record, on the clock.
        for index in 0..<count { (recorders.baseAddress! + index).initialize(to: LatencyRecorder()) }
        errors = Locked([])
        ended = Latch(count)
    }

    deinit {
        recorders.deinitialize()
        recorders.deallocate()
    }

    /// Client `index`'s round trips: send a message, read its echo, check every byte, record the time; stops at the
    /// first failure (a short echo, a changed byte, an error or the deadline).
    @usableFromInline func run(_ index: Int) {
        defer { ended.countDown() }
        let socket = sockets[index]
        let size = TCPEchoWorkload.messageSize
        let message = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        let echo = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer {
            message.deallocate()
            echo.deallocate()
        }
        for round in 0..<roundTrips {
            for offset in 0..<size { message[offset] = UInt8(truncatingIfNeeded: offset &+ round &* 31 &+ index &* 97) }
            let start = Deadline.now().nanoseconds
            let sent = IODescriptors.writeAll(socket, message.baseAddress!, size, socket: true)
            guard sent == 0 else { return fail("client \(index) round \(round): send failed: errno \(sent)") }
            let (count, error) = IODescriptors.readExactly(socket, into: echo.baseAddress!, size)
            guard count == size else {
                return fail("client \(index) round \(round): \(count) of \(size) bytes came back (errno \(error))")
            }
            let end = Deadline.now().nanoseconds
            if memcmp(message.baseAddress!, echo.baseAddress!, size) != 0 {
                let at = (0..<size).first { message[$0] != echo[$0] } ?? 0
                return fail("client \(index) round \(round): byte \(at) came back as \(echo[at]), not \(message[at])")
            }
            recorders[index].record(nanoseconds: end &- start)
        }
    }

    @usableFromInline func fail(_ message: String) { errors.withLock { $0.append(message) } }

    /// The first client error, with how many clients failed.
    @usableFromInline var firstError: String? {
        let errors = errors.snapshot
        guard let first = errors.first else { return nil }
        return errors.count == 1 ? first : "\(first) (and \(errors.count - 1) more clients failed)"
    }

    /// Shuts every socket down in `how` (`SHUT_WR`: half-close; `SHUT_RDWR`: also wakes a client blocked in it).
    @usableFromInline func shutdown(_ how: Int) {
        for socket in sockets { _ = Glibc.shutdown(socket, Int32(how)) }
    }

    /// Closes every socket.
    @usableFromInline func closeAll() {
        for socket in sockets { Glibc.close(socket) }
        sockets.removeAll()
    }

    /// Every client's latencies in one recorder.
    @usableFromInline func mergedLatencies() -> LatencyRecorder {
        var merged = LatencyRecorder()
        for recorder in recorders { merged.merge(recorder) }
        return merged
    }
}
