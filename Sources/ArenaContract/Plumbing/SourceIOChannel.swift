import DequeModule
import Glibc
import Synchronization

/// The home engines' I/O channel, built as libdispatch builds its own: from the engine's serial queues and its read
/// and write sources, with no thread of its own. Engine-neutral, because everything it schedules goes through the
/// engine it is generic over (`E`): a channel rule checks the engine's sources and queues under real descriptors.
///
/// All of a channel's state lives on one serial queue of the engine (`channelQueue`), where every system call is
/// made; calls from other threads are blocks submitted to it, so they take effect in the order a thread made them.
/// A stream descriptor that is not a regular file is switched to non-blocking while the channel holds it: a read or
/// write that would block arms the engine's read or write source (made on first need, then suspended while nothing
/// waits), and the source's handler, on the same queue, continues the operation. Regular files never wait.
///
/// Operations of one direction run one at a time, in the order issued; a read and a write run side by side. Each
/// operation delivers through a serial queue of its own that targets the caller's queue (as libdispatch does), so
/// its handler calls run in order. Cost: per operation one queue and one block per handler call; per wait one
/// source event; every byte read is copied once, from a per-channel scratch buffer into a buffer of the engine.
public final class SourceIOChannel<E: Engine>: EngineIOChannel, @unchecked Sendable {
    public typealias Queue = E.Queue
    public typealias Data = E.Data

    public let label: String
    private let engine: E
    private let kind: IOChannelKind
    private let channelQueue: E.Queue
    private let cleanupQueue: E.Queue
    private let cleanup: @Sendable (Int32) -> Void
    /// Set by `close(stop: true)` at once, so a step already queued ends instead of reading on.
    private let stopping = Atomic<Bool>(false)

    // Everything below is touched on `channelQueue` only (and in deinit, when nothing else holds the channel).
    private var descriptor: Int32
    private let path: (path: String, flags: Int32, mode: UInt32)?
    /// The error that ended the channel (open failed, or fstat of the descriptor failed); reaches `cleanup`.
    private var failure: Int32 = 0
    private var prepared = false
    private var isRegularFile = false
    private var isSocket = false
    /// The descriptor's flags before the channel made it non-blocking; restored at teardown.
    private var originalFlags: Int32?
    /// Where offset 0 of a random-access channel lies: the descriptor's position when the channel was made.
    private var baseOffset: Int64 = 0
    private var lowWater = 1
    private var highWater = Int.max
    private var pending: Deque<Entry> = []
    private var reading: Operation?
    private var writing: Operation?
    /// Operations whose final handler call has not returned yet; cleanup waits for them.
    private var undelivered = 0
    private var closed = false
    /// Whether `close(stop: true)` ended everything issued (possibly after a plain close).
    private var stopped = false
    private var tornDown = false
    private var readSource: E.DescriptorSource?
    private var writeSource: E.DescriptorSource?
    private var readSourceWaiting = false
    private var writeSourceWaiting = false
    private var scratch: UnsafeMutableRawBufferPointer?

    /// Bytes one read system call asks for: a pipe's default capacity; a step reads until the descriptor is empty.
    private static var scratchSize: Int { 64 * 1024 }
    /// Bytes one step moves before it yields the channel's queue to other blocks (close, barriers, the other side).
    private static var stepBudget: Int { 1 << 20 }

    private enum Entry {
        case operation(Operation)
        case barrier(@Sendable () -> Void)
    }

    /// One read or write, with the parameters it was issued with.
    private final class Operation: @unchecked Sendable {  // touched on the channel's queue only
        let isRead: Bool
        let offset: Int64
        /// Bytes still to read (reads).
        var remaining: Int
        /// Bytes read and not yet delivered (reads); bytes not yet written (writes).
        var data: E.Data
        let lowWater: Int
        let highWater: Int
        let delivery: E.Queue
        let handler: IOHandler<E.Data>
        /// Bytes moved so far (the next random-access offset is `offset + moved`).
        var moved: Int64 = 0
        /// The channel, held until the operation ends, as libdispatch's operations hold theirs: a caller may
        /// release the channel with operations under way, and they still end (the channel releases the operation
        /// when it ends it, which breaks the cycle).
        var channel: AnyObject?

        init(
            isRead: Bool, offset: Int64, remaining: Int, data: E.Data, lowWater: Int, highWater: Int,
            delivery: E.Queue, handler: @escaping IOHandler<E.Data>
        ) {
            (self.isRead, self.offset, self.remaining, self.data) = (isRead, offset, remaining, data)
            (self.lowWater, self.highWater, self.delivery, self.handler) = (lowWater, highWater, delivery, handler)
        }
    }

    /// A channel over `fileDescriptor`, which the caller hands over until `cleanup`.
    public init(
        engine: E, label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: E.Queue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.label, self.kind, self.cleanupQueue, self.cleanup) = (engine, label, kind, queue, cleanup)
        descriptor = fileDescriptor
        path = nil
        channelQueue = engine.makeQueue(label: "\(label).channel")
        if kind == .randomAccess { baseOffset = max(0, Int64(lseek(fileDescriptor, 0, SEEK_CUR))) }
    }

    /// A channel over the file at the absolute `path`, opened when its first operation is ready to run; a relative
    /// path is misuse, as libdispatch refuses it.
    public init(
        engine: E, label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: E.Queue, cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.label, self.kind, self.cleanupQueue, self.cleanup) = (engine, label, kind, queue, cleanup)
        if !path.hasPrefix("/") { misuse("I/O channel '\(label)': path '\(path)' is not absolute") }
        descriptor = -1
        self.path = (path, flags, mode)
        channelQueue = engine.makeQueue(label: "\(label).channel")
    }

    /// Released without close: the channel gives the descriptor back as close would (nothing is pending, or an
    /// operation would still hold the channel).
    deinit {
        if !tornDown { tearDown() }
    }

    // MARK: Issuing

    public func read(offset: Int64, length: Int, queue: E.Queue, _ handler: @escaping IOHandler<E.Data>) {
        issue(isRead: true, offset: offset, length: length, data: nil, queue: queue, handler)
    }

    public func write(offset: Int64, data: E.Data, queue: E.Queue, _ handler: @escaping IOHandler<E.Data>) {
        issue(isRead: false, offset: offset, length: data.count, data: data, queue: queue, handler)
    }

    private func issue(
        isRead: Bool, offset: Int64, length: Int, data: E.Data?, queue: E.Queue,
        _ handler: @escaping IOHandler<E.Data>
    ) {
        channelQueue.async { [self] in
            let delivery = engine.makeQueue(
                label: "\(label).\(isRead ? "read" : "write")", kind: .serial,
                startsInactive: false, target: queue)
            let bytes = data ?? engine.makeData(copying: UnsafeRawBufferPointer(start: nil, count: 0))  // a read's: none yet
            let operation = Operation(
                isRead: isRead, offset: offset, remaining: max(0, length), data: bytes,
                lowWater: lowWater, highWater: highWater, delivery: delivery, handler: handler)
            operation.channel = self
            undelivered += 1
            if closed || stopping.load(ordering: .relaxed) {
                finish(operation, error: ECANCELED)
            } else {
                pending.append(.operation(operation))
                advance()
            }
        }
    }

    public func setLowWater(_ bytes: Int) {
        channelQueue.async { [self] in
            lowWater = max(1, bytes)
            highWater = max(highWater, lowWater)
        }
    }

    public func setHighWater(_ bytes: Int) {
        channelQueue.async { [self] in
            highWater = max(1, bytes)
            lowWater = min(lowWater, highWater)
        }
    }

    public func barrier(_ block: @escaping @Sendable () -> Void) {
        channelQueue.async { [self] in
            pending.append(.barrier(block))
            advance()
        }
    }

    public func close(stop: Bool) {
        if stop { stopping.store(true, ordering: .relaxed) }
        channelQueue.async { [self] in
            // A stop after a plain close still stops what runs; any other repeat does nothing.
            let stopsNow = stop && !stopped
            guard !closed || stopsNow else { return }
            closed = true
            if stopsNow {
                stopped = true
                // Everything issued ends now; barriers still run, in order, as nothing holds the descriptor.
                let waiting = pending
                pending.removeAll()
                for operation in [reading, writing].compactMap({ $0 }) { finish(operation, error: ECANCELED) }
                for entry in waiting {
                    switch entry {
                    case .operation(let operation): finish(operation, error: ECANCELED)
                    case .barrier(let block): block()
                    }
                }
            }
            cleanUpIfDone()
        }
    }

    // MARK: Scheduling (on the channel's queue)

    /// Starts what may start: the first read and the first write issued before the first barrier, when none of
    /// their direction runs; the barrier at the head once nothing runs.
    private func advance() {
        while !stopping.load(ordering: .relaxed) {
            var index = 0
            var started = false
            scan: while index < pending.count {
                switch pending[index] {
                case .barrier(let block):
                    guard index == 0, reading == nil, writing == nil else { break scan }
                    pending.removeFirst()
                    block()
                    started = true
                    break scan
                case .operation(let operation):
                    if operation.isRead ? reading == nil : writing == nil {
                        pending.remove(at: index)
                        start(operation)
                        started = true
                        break scan
                    }
                    index += 1
                }
            }
            if !started { return }
        }
    }

    private func start(_ operation: Operation) {
        prepare()
        if failure != 0 { return finish(operation, error: failure) }
        if operation.isRead { reading = operation } else { writing = operation }
        step(operation)
    }

    /// Opens the path, or checks the descriptor, once, before the first operation: what kind of file it is, and
    /// for a stream that is not a regular file, non-blocking from now until teardown.
    private func prepare() {
        guard !prepared else { return }
        prepared = true
        if let path {
            descriptor = open(path.path, path.flags | O_CLOEXEC, mode_t(path.mode))
            if descriptor < 0 {
                failure = errno
                return
            }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            failure = errno
            return
        }
        let type = status.st_mode & S_IFMT
        isRegularFile = type == S_IFREG
        isSocket = type == S_IFSOCK
        if !isRegularFile {
            let flags = fcntl(descriptor, F_GETFL)
            if flags >= 0 && flags & O_NONBLOCK == 0 {
                originalFlags = flags
                _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
            }
        }
    }

    // MARK: Moving bytes (on the channel's queue)

    private func step(_ operation: Operation) {
        guard !stopping.load(ordering: .relaxed) else { return }
        if operation.isRead { stepRead(operation) } else { stepWrite(operation) }
    }

    /// Reads until the descriptor would block, the length is reached, end of file, or the step's budget is spent;
    /// delivers what the water marks allow.
    private func stepRead(_ operation: Operation) {
        let buffer = scratch ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.scratchSize, alignment: 16)
        scratch = buffer
        var budget = Self.stepBudget
        while operation.remaining > 0 && budget > 0 {
            let wanted = min(operation.remaining, buffer.count)
            let count =
                kind == .randomAccess
                ? pread(descriptor, buffer.baseAddress, wanted, off_t(baseOffset + operation.offset + operation.moved))
                : Glibc.read(descriptor, buffer.baseAddress, wanted)
            if count > 0 {
                operation.data = operation.data.appending(
                    engine.makeData(copying: UnsafeRawBufferPointer(rebasing: buffer[..<count])))
                operation.remaining -= count
                operation.moved += Int64(count)
                budget -= count
                continue
            }
            if count == 0 { return finish(operation, error: 0) }  // end of file
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                deliverPartial(operation)
                return wait(forRead: true)
            }
            return finish(operation, error: errno)
        }
        if operation.remaining == 0 { return finish(operation, error: 0) }
        deliverPartial(operation)
        channelQueue.async { [self] in if reading === operation { step(operation) } }
    }

    /// Writes region by region until the descriptor would block, everything is written, or the step's budget is
    /// spent.
    private func stepWrite(_ operation: Operation) {
        var budget = Self.stepBudget
        while operation.data.count > 0 && budget > 0 {
            var written = 0
            var failed: Int32 = 0
            operation.data.forEachRegion { region, _ in
                let count =
                    kind == .randomAccess
                    ? pwrite(descriptor, region.baseAddress, region.count, off_t(baseOffset + operation.offset + operation.moved))
                    : isSocket
                        ? send(descriptor, region.baseAddress, region.count, Int32(MSG_NOSIGNAL))
                        : Glibc.write(descriptor, region.baseAddress, region.count)
                if count < 0 {
                    failed = errno
                    return false
                }
                written += count
                operation.moved += Int64(count)
                return count == region.count
            }
            operation.data = operation.data.subdata(written..<operation.data.count)
            budget -= written
            if failed == EINTR || (failed == 0 && written > 0) { continue }
            if failed == EAGAIN || failed == EWOULDBLOCK || failed == 0 { return wait(forRead: false) }
            return finish(operation, error: failed)
        }
        if operation.data.count == 0 { return finish(operation, error: 0) }
        channelQueue.async { [self] in if writing === operation { step(operation) } }
    }

    /// Hands the handler what the water marks let through before the end: whole runs of at least the low water
    /// mark, each at most the high water mark.
    private func deliverPartial(_ operation: Operation) {
        while operation.data.count >= operation.lowWater && operation.data.count > 0 {
            let piece = min(operation.data.count, operation.highWater)
            let bytes = operation.data.subdata(0..<piece)
            operation.data = operation.data.subdata(piece..<operation.data.count)
            let handler = operation.handler
            operation.delivery.async { handler(false, bytes, 0) }
        }
    }

    /// Ends `operation`: a read delivers what it still holds (in pieces of at most the high water mark, the last
    /// one `done`); a write delivers the bytes left unwritten, none when it completed.
    private func finish(_ operation: Operation, error: Int32) {
        if reading === operation { reading = nil }
        if writing === operation { writing = nil }
        operation.channel = nil
        let handler = operation.handler
        var rest = operation.data
        if operation.isRead {
            while rest.count > operation.highWater {
                let bytes = rest.subdata(0..<operation.highWater)
                rest = rest.subdata(operation.highWater..<rest.count)
                operation.delivery.async { handler(false, bytes, 0) }
            }
        }
        let last: E.Data? = rest.count > 0 || (operation.isRead && error == 0) ? rest : nil
        operation.delivery.async { [self] in
            handler(true, last, error)
            channelQueue.async { [self] in
                undelivered -= 1
                cleanUpIfDone()
            }
        }
        suspendIdleSources()
        advance()
        cleanUpIfDone()
    }

    // MARK: Waiting on the descriptor (on the channel's queue)

    /// Lets the engine's source tell when the descriptor is ready, making it on first need.
    private func wait(forRead: Bool) {
        if forRead {
            if readSource == nil { readSource = makeSource(forRead: true) }
            if !readSourceWaiting {
                readSourceWaiting = true
                readSource!.resume()
            }
        } else {
            if writeSource == nil { writeSource = makeSource(forRead: false) }
            if !writeSourceWaiting {
                writeSourceWaiting = true
                writeSource!.resume()
            }
        }
    }

    /// A source on the descriptor whose handler, on the channel's queue, continues the operation of its direction.
    /// It is made suspended (`wait` resumes it) and holds the channel weakly, so a released channel can go.
    private func makeSource(forRead: Bool) -> E.DescriptorSource {
        let name = "\(label).\(forRead ? "readable" : "writable")"
        let source =
            forRead
            ? engine.makeReadSource(label: name, fileDescriptor: descriptor, queue: channelQueue)
            : engine.makeWriteSource(label: name, fileDescriptor: descriptor, queue: channelQueue)
        source.setEventHandler { [weak self] in self?.descriptorReady(forRead: forRead) }
        source.suspend()
        source.activate()
        return source
    }

    private func descriptorReady(forRead: Bool) {
        if let operation = forRead ? reading : writing { return step(operation) }
        suspendIdleSources()
    }

    /// Suspends a waiting source whose direction has nothing running, so an idle descriptor costs no events.
    private func suspendIdleSources() {
        if readSourceWaiting && reading == nil {
            readSourceWaiting = false
            readSource?.suspend()
        }
        if writeSourceWaiting && writing == nil {
            writeSourceWaiting = false
            writeSource?.suspend()
        }
    }

    // MARK: Closing (on the channel's queue)

    private func cleanUpIfDone() {
        guard closed, !tornDown, reading == nil, writing == nil, pending.isEmpty, undelivered == 0 else { return }
        tearDown()
    }

    /// Cancels the sources, gives the descriptor back as it was (closing it if the channel opened it), and submits
    /// the cleanup handler.
    private func tearDown() {
        tornDown = true
        for (source, waiting) in [(readSource, readSourceWaiting), (writeSource, writeSourceWaiting)] {
            guard let source else { continue }
            source.cancel()
            if !waiting { source.resume() }  // a released source must not be suspended
        }
        readSource = nil
        writeSource = nil
        scratch?.deallocate()
        scratch = nil
        if let originalFlags, descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, originalFlags) }
        if path != nil && descriptor >= 0 { Glibc.close(descriptor) }
        let (cleanup, error) = (cleanup, failure)
        cleanupQueue.async { cleanup(error) }
    }
}

/// `makeIOChannel` for every engine whose channels are `SourceIOChannel` (the home engines, and an outside engine
/// that declares `typealias IOChannel = SourceIOChannel<Self>`): the channel runs on the engine's own queues and
/// sources.
extension Engine where IOChannel == SourceIOChannel<Self> {
    public func makeIOChannel(
        label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: Queue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SourceIOChannel<Self> {
        SourceIOChannel(
            engine: self, label: label, kind: kind, fileDescriptor: fileDescriptor, queue: queue,
            cleanup: cleanup)
    }

    public func makeIOChannel(
        label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: Queue, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SourceIOChannel<Self> {
        SourceIOChannel(
            engine: self, label: label, kind: kind, path: path, flags: flags, mode: mode, queue: queue,
            cleanup: cleanup)
    }
}
