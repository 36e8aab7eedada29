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
///
/// A channel made from another (`makeChannel`, `dispatch_io_create_with_io`) shares its `Descriptor`: one queue, one
/// line of operations and barriers, one pair of sources; each channel keeps its kind, water marks and interval. The
/// descriptor is given back, and every cleanup handler submitted, once all of them are closed (or released) and
/// nothing runs. With an interval, an operation under way has a timer of the engine on the channel's queue.
public final class SourceIOChannel<E: Engine>: EngineIOChannel, @unchecked Sendable {
    public typealias Queue = E.Queue
    public typealias Data = E.Data

    public let label: String
    private let engine: E
    private let kind: IOChannelKind
    /// The descriptor and the operations of every channel sharing it.
    private let shared: Descriptor
    /// Set by `close(stop: true)` at once, so a step already queued ends instead of reading on.
    private let stopping = StopFlag()

    // Everything below is touched on the shared queue only (and in deinit, when nothing else holds the channel).
    /// Where offset 0 of a random-access channel lies: the descriptor's position when the channel was made.
    private var baseOffset: Int64 = 0
    private var lowWater = 1
    private var highWater = Int.max
    private var interval: (every: Duration, strict: Bool)?
    private var closed = false
    /// Whether `close(stop: true)` ended everything this channel issued (possibly after a plain close).
    private var stopped = false
    /// Whether the channel holds the descriptor (counted in `shared.holders`); a channel made from a closed one never
    /// does, and its operations end with `refusal`.
    private var holds = true
    private var refusal: Int32 = 0

    /// Bytes one read system call asks for: a pipe's default capacity; a step reads until the descriptor is empty.
    fileprivate static var scratchSize: Int { 64 * 1024 }
    /// Bytes one step moves before it yields the channel's queue to other blocks (close, barriers, the other side).
    fileprivate static var stepBudget: Int { 1 << 20 }

    /// A channel over `fileDescriptor`, which the caller hands over until `cleanup`.
    public init(
        engine: E, label: String, kind: IOChannelKind, fileDescriptor: Int32, queue: E.Queue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.label, self.kind) = (engine, label, kind)
        shared = Descriptor(engine: engine, label: label, descriptor: fileDescriptor, path: nil)
        shared.cleanups.append((queue, cleanup))
        if kind == .randomAccess { baseOffset = max(0, Int64(lseek(fileDescriptor, 0, SEEK_CUR))) }
    }

    /// A channel over the file at the absolute `path`, opened when its first operation is ready to run; a relative
    /// path is misuse, as libdispatch refuses it.
    public init(
        engine: E, label: String, kind: IOChannelKind, path: String, flags: Int32, mode: UInt32,
        queue: E.Queue, cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.label, self.kind) = (engine, label, kind)
        if !path.hasPrefix("/") { misuse("I/O channel '\(label)': path '\(path)' is not absolute") }
        shared = Descriptor(engine: engine, label: label, descriptor: -1, path: (path, flags, mode))
        shared.cleanups.append((queue, cleanup))
    }

    /// A channel sharing `other`'s descriptor; it joins on the shared queue, in order with `other`'s calls: made
    /// from a closed channel, it holds nothing, its operations end with `ECANCELED`, and `cleanup` runs at once.
    private init(
        sharing other: SourceIOChannel<E>, label: String, kind: IOChannelKind, queue: E.Queue,
        cleanup: @escaping @Sendable (Int32) -> Void
    ) {
        (self.engine, self.label, self.kind, shared) = (other.engine, label, kind, other.shared)
        shared.queue.async { [self] in
            if other.closed || !other.holds || shared.tornDown {
                (holds, refusal, closed) = (false, ECANCELED, true)
                queue.async { cleanup(ECANCELED) }
                return
            }
            shared.holders += 1
            shared.cleanups.append((queue, cleanup))
            if kind == .randomAccess && shared.path == nil {
                baseOffset = max(0, Int64(lseek(shared.descriptor, 0, SEEK_CUR)))
            }
        }
    }

    /// Released without close: the channel lets go of the descriptor as close would (nothing it issued is pending,
    /// or an operation would still hold the channel).
    deinit {
        guard holds && !closed else { return }
        let shared = shared
        shared.queue.async {
            shared.holders -= 1
            shared.cleanUpIfDone()
        }
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
        shared.queue.async { [self] in
            let delivery = engine.makeQueue(
                label: "\(label).\(isRead ? "read" : "write")", kind: .serial,
                startsInactive: false, target: queue)
            let bytes = data ?? engine.makeData(copying: UnsafeRawBufferPointer(start: nil, count: 0))  // a read's: none yet
            let operation = Operation(
                isRead: isRead, kind: kind, offset: baseOffset + offset, remaining: max(0, length), data: bytes,
                lowWater: lowWater, highWater: highWater, interval: interval, stopping: stopping, delivery: delivery,
                handler: handler)
            operation.channel = self
            shared.undelivered += 1
            if closed || stopping.isSet {
                shared.finish(operation, error: refusal != 0 ? refusal : ECANCELED)
            } else {
                shared.pending.append(.operation(operation))
                shared.advance()
            }
        }
    }

    public func setLowWater(_ bytes: Int) {
        shared.queue.async { [self] in
            lowWater = max(1, bytes)
            highWater = max(highWater, lowWater)
        }
    }

    public func setHighWater(_ bytes: Int) {
        shared.queue.async { [self] in
            highWater = max(1, bytes)
            lowWater = min(lowWater, highWater)
        }
    }

    public func setInterval(_ interval: Duration, strict: Bool) {
        shared.queue.async { [self] in
            self.interval = interval > .zero ? (interval, strict) : nil
        }
    }

    public func makeChannel(
        label: String, kind: IOChannelKind, queue: E.Queue, cleanup: @escaping @Sendable (Int32) -> Void
    ) -> SourceIOChannel<E> {
        SourceIOChannel(sharing: self, label: label, kind: kind, queue: queue, cleanup: cleanup)
    }

    public func barrier(_ block: @escaping @Sendable () -> Void) {
        shared.queue.async { [self] in
            shared.pending.append(.barrier(block))
            shared.advance()
        }
    }

    public func close(stop: Bool) {
        if stop { stopping.set() }
        shared.queue.async { [self] in
            // A stop after a plain close still stops what this channel issued; any other repeat does nothing.
            let stopsNow = stop && !stopped && holds
            guard !closed || stopsNow else { return }
            if !closed {
                closed = true
                shared.holders -= 1
            }
            if stopsNow {
                stopped = true
                shared.stop(stopping)
            }
            shared.cleanUpIfDone()
        }
    }
}

/// Whether a channel was stopped: set at once by `close(stop: true)`, read by its operations' steps.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

extension SourceIOChannel {
    fileprivate enum Entry {
        case operation(Operation)
        case barrier(@Sendable () -> Void)
    }

    /// One read or write, with the parameters it was issued with.
    fileprivate final class Operation: @unchecked Sendable {  // touched on the channel's queue only
        let isRead: Bool
        let kind: IOChannelKind
        /// Where it starts on the descriptor (random access: the channel's base offset added).
        let offset: Int64
        /// Bytes still to read (reads).
        var remaining: Int
        /// Bytes read and not yet delivered (reads); bytes not yet written (writes).
        var data: E.Data
        let lowWater: Int
        let highWater: Int
        let interval: (every: Duration, strict: Bool)?
        /// The timer of an interval, while the operation runs.
        var timer: E.TimerSource?
        let stopping: StopFlag
        let delivery: E.Queue
        let handler: IOHandler<E.Data>
        /// Bytes moved so far (the next random-access offset is `offset + moved`).
        var moved: Int64 = 0
        /// The channel, held until the operation ends, as libdispatch's operations hold theirs: a caller may
        /// release the channel with operations under way, and they still end (the channel releases the operation
        /// when it ends it, which breaks the cycle).
        var channel: AnyObject?

        init(
            isRead: Bool, kind: IOChannelKind, offset: Int64, remaining: Int, data: E.Data, lowWater: Int,
            highWater: Int, interval: (every: Duration, strict: Bool)?, stopping: StopFlag, delivery: E.Queue,
            handler: @escaping IOHandler<E.Data>
        ) {
            (self.isRead, self.kind, self.offset, self.remaining, self.data) = (isRead, kind, offset, remaining, data)
            (self.lowWater, self.highWater, self.interval) = (lowWater, highWater, interval)
            (self.stopping, self.delivery, self.handler) = (stopping, delivery, handler)
        }
    }

    /// A descriptor (or path) and everything the channels sharing it share: the queue where every system call is
    /// made, the line of operations and barriers, the sources, the cleanup handlers. Touched on `queue` only.
    fileprivate final class Descriptor: @unchecked Sendable {
        let engine: E
        let queue: E.Queue
        var descriptor: Int32
        let path: (path: String, flags: Int32, mode: UInt32)?
        /// The error that ended the descriptor (open failed, or fstat failed); reaches every cleanup handler.
        var failure: Int32 = 0
        var prepared = false
        var isRegularFile = false
        var isSocket = false
        /// The descriptor's flags before the channel made it non-blocking; restored at teardown.
        var originalFlags: Int32?
        var pending: Deque<Entry> = []
        var reading: Operation?
        var writing: Operation?
        /// Operations whose final handler call has not returned yet; cleanup waits for them.
        var undelivered = 0
        /// Channels holding the descriptor: not yet closed or released.
        var holders = 1
        /// Every holder's cleanup handler and its queue, submitted at teardown.
        var cleanups: [(queue: E.Queue, handler: @Sendable (Int32) -> Void)] = []
        var tornDown = false
        var readSource: E.DescriptorSource?
        var writeSource: E.DescriptorSource?
        var readSourceWaiting = false
        var writeSourceWaiting = false
        var scratch: UnsafeMutableRawBufferPointer?

        init(engine: E, label: String, descriptor: Int32, path: (path: String, flags: Int32, mode: UInt32)?) {
            (self.engine, self.descriptor, self.path) = (engine, descriptor, path)
            queue = engine.makeQueue(label: "\(label).channel")
        }

        // MARK: Scheduling

        /// Ends every operation `owner` (a channel's stop flag) issued; barriers stay in line.
        func stop(_ owner: StopFlag) {
            let waiting = pending
            pending = Deque(
                waiting.filter {
                    if case .operation(let operation) = $0 { return operation.stopping !== owner }
                    return true
                })
            for operation in [reading, writing].compactMap({ $0 }) where operation.stopping === owner {
                finish(operation, error: ECANCELED)
            }
            for case .operation(let operation) in waiting where operation.stopping === owner {
                finish(operation, error: ECANCELED)
            }
            advance()
        }

        /// Starts what may start: the first read and the first write issued before the first barrier, when none of
        /// their direction runs; the barrier at the head once nothing runs. An operation of a stopped channel ends.
        func advance() {
            while true {
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
                            if operation.stopping.isSet { finish(operation, error: ECANCELED) } else { start(operation) }
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
            if let interval = operation.interval { startTimer(operation, every: interval.every) }
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

        // MARK: Intervals

        /// A repeating timer of the engine on the queue: each tick delivers what the operation may (`tick`).
        private func startTimer(_ operation: Operation, every interval: Duration) {
            let timer = engine.makeTimerSource(label: "\(operation.isRead ? "read" : "write").interval", queue: queue)
            timer.setEventHandler { [weak self, weak operation] in
                guard let self, let operation else { return }
                tick(operation)
            }
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .zero)
            timer.activate()
            operation.timer = timer
        }

        /// An interval's tick: what the low water mark lets through, or, strict, every byte read so far (a write:
        /// the bytes still to write), however few; nothing when there is nothing.
        private func tick(_ operation: Operation) {
            guard reading === operation || writing === operation else { return }
            guard operation.interval?.strict == true else { return deliverPartial(operation) }
            guard operation.data.count > 0 else { return }
            if operation.isRead { return deliverPartial(operation, lowWater: 1) }
            let (handler, rest) = (operation.handler, operation.data)
            operation.delivery.async { handler(false, rest, 0) }
        }

        // MARK: Moving bytes

        private func step(_ operation: Operation) {
            guard !operation.stopping.isSet else { return }
            if operation.isRead { stepRead(operation) } else { stepWrite(operation) }
        }

        /// Reads until the descriptor would block, the length is reached, end of file, or the step's budget is
        /// spent; delivers what the water marks allow.
        private func stepRead(_ operation: Operation) {
            let buffer = scratch ?? UnsafeMutableRawBufferPointer.allocate(byteCount: SourceIOChannel.scratchSize, alignment: 16)
            scratch = buffer
            var budget = SourceIOChannel.stepBudget
            while operation.remaining > 0 && budget > 0 {
                let wanted = min(operation.remaining, buffer.count)
                let count =
                    operation.kind == .randomAccess
                    ? pread(descriptor, buffer.baseAddress, wanted, off_t(operation.offset + operation.moved))
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
            queue.async { [self] in if reading === operation { step(operation) } }
        }

        /// Writes region by region until the descriptor would block, everything is written, or the step's budget
        /// is spent.
        private func stepWrite(_ operation: Operation) {
            var budget = SourceIOChannel.stepBudget
            while operation.data.count > 0 && budget > 0 {
                var written = 0
                var failed: Int32 = 0
                operation.data.forEachRegion { region, _ in
                    let count =
                        operation.kind == .randomAccess
                        ? pwrite(descriptor, region.baseAddress, region.count, off_t(operation.offset + operation.moved))
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
            queue.async { [self] in if writing === operation { step(operation) } }
        }

        /// Hands the handler what the water marks let through before the end: whole runs of at least the low
        /// water mark (`lowWater`, by default the operation's), each at most the high water mark.
        private func deliverPartial(_ operation: Operation, lowWater: Int? = nil) {
            let low = lowWater ?? operation.lowWater
            while operation.data.count >= low && operation.data.count > 0 {
                let piece = min(operation.data.count, operation.highWater)
                let bytes = operation.data.subdata(0..<piece)
                operation.data = operation.data.subdata(piece..<operation.data.count)
                let handler = operation.handler
                operation.delivery.async { handler(false, bytes, 0) }
            }
        }

        /// Ends `operation`: a read delivers what it still holds (in pieces of at most the high water mark, the
        /// last one `done`); a write delivers the bytes left unwritten, none when it completed.
        func finish(_ operation: Operation, error: Int32) {
            if reading === operation { reading = nil }
            if writing === operation { writing = nil }
            operation.channel = nil
            if let timer = operation.timer {
                timer.cancel()
                operation.timer = nil
            }
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
                queue.async { [self] in
                    undelivered -= 1
                    cleanUpIfDone()
                }
            }
            suspendIdleSources()
            advance()
            cleanUpIfDone()
        }

        // MARK: Waiting on the descriptor

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

        /// A source on the descriptor whose handler, on the queue, continues the operation of its direction. It is
        /// made suspended (`wait` resumes it) and holds the descriptor's state weakly, so released channels can go.
        private func makeSource(forRead: Bool) -> E.DescriptorSource {
            let name = "descriptor \(descriptor).\(forRead ? "readable" : "writable")"
            let source =
                forRead
                ? engine.makeReadSource(label: name, fileDescriptor: descriptor, queue: queue)
                : engine.makeWriteSource(label: name, fileDescriptor: descriptor, queue: queue)
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

        // MARK: Closing

        func cleanUpIfDone() {
            guard holders == 0, !tornDown, reading == nil, writing == nil, pending.isEmpty, undelivered == 0 else { return }
            tearDown()
        }

        /// Cancels the sources, gives the descriptor back as it was (closing it if a channel opened it), and submits
        /// every cleanup handler.
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
            let error = failure
            for (queue, cleanup) in cleanups { queue.async { cleanup(error) } }
            cleanups = []
        }
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
