import ArenaContract
import Glibc
import Harness

/// Read, write and signal sources.
enum DescriptorRules: RuleFamily {
    static let concept = Concept.descriptors
    static let rules: [any ConformanceRule.Type] = [
        DescriptorRead.self, DescriptorReadEndOfFile.self, DescriptorWrite.self, DescriptorCloseInCancel.self, SignalCount.self,
    ]
}

/// A non-blocking pipe, closed when the check is done with it.
struct Pipe {
    let read: Int32
    let write: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw RuleFailure(.setup, "pipe failed: errno \(errno)") }
        read = ends[0]
        write = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    func send(_ count: Int) {
        let bytes = [UInt8](repeating: 0x61, count: count)
        _ = Glibc.write(write, bytes, count)
    }

    /// Reads up to `count` bytes; returns how many were read.
    func receive(_ count: Int) -> Int {
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        return max(0, Glibc.read(read, &bytes, count))
    }

    /// Bytes waiting to be read.
    var available: Int {
        var count: Int32 = 0
        _ = ioctl(read, UInt(FIONREAD), &count)
        return Int(count)
    }

    func close() {
        _ = Glibc.close(read)
        _ = Glibc.close(write)
    }
}

enum DescriptorRead: BehaviourRule {
    static let id = "fd.read"
    static let title = "A read source on a pipe fires while bytes are available; its data is the number of bytes available."
    static let source =
        "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_READ: 'data is an estimated number of bytes available to read'; libdispatch tests/dispatch_read.c"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.fd.read")
        try read(on: engine, queue: queue, chunks: [100, 1, 50, 4000])
        // Bytes waiting when the source is activated are reported at once, possibly before activation has returned:
        // the re-arm after that first handler call must not depend on it having returned. Twenty fresh sources make
        // the window (an activating thread preempted at the wrong moment) twenty times likelier to be hit.
        for round in 0..<20 {
            do {
                try read(on: engine, queue: queue, chunks: [10, 1])
            } catch let failure as RuleFailure {
                throw RuleFailure(failure.outcome, "fresh source \(round): \(failure.observed)")
            }
        }
    }

    /// A read source on a new pipe: `chunks[0]` bytes waiting before activation, then each further chunk sent once
    /// the bytes before it were read.
    private static func read<E: Engine>(on engine: E, queue: E.Queue, chunks: [Int]) throws {
        let pipe = try Pipe()
        defer { pipe.close() }
        let source = engine.makeReadSource(label: "arena.fd.read", fileDescriptor: pipe.read, queue: queue)
        let seen = Recorder<(data: UInt, available: Int)>()
        let received = Counter()
        source.setEventHandler { [weak source] in
            guard let source else { return }
            let data = source.data
            seen.append((data, pipe.available))
            received.add(pipe.receive(Int(data)))
        }
        pipe.send(chunks[0])
        source.activate()
        defer { cancelAndDrain(source) }
        var total = chunks[0]
        try expectEventually("\(total) bytes read") { received.value == total }
        for chunk in chunks.dropFirst() {
            total += chunk
            pipe.send(chunk)
            try expectEventually("\(total) bytes read") { received.value == total }
        }
        let calls = seen.elements
        try expect(
            calls.allSatisfy { $0.data > 0 && Int($0.data) == $0.available }, .wrongValue,
            "a handler's data differed from the bytes available: \(calls.filter { Int($0.data) != $0.available }.prefix(3))")
    }
}

enum DescriptorReadEndOfFile: BehaviourRule {
    static let id = "fd.read-end-of-file"
    static let title =
        "Once every writer of a pipe closed, its read source fires once with data 0, so the handler learns of the end; then it stays quiet."
    static let source = """
        measured on the reference (libdispatch on Linux: one handler call with data 0 after the writer closed, none in \
        the next 300 ms, the handler reading nothing); dispatch_source_create(3), DISPATCH_SOURCE_TYPE_READ; what an \
        I/O channel built on read sources needs to end a read at end of file
        """
    static let needs: Set<Capability> = [.descriptorSources, .descriptorHangUp]

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let pipe = try Pipe()
        var writerOpen = true
        defer {
            _ = Glibc.close(pipe.read)
            if writerOpen { _ = Glibc.close(pipe.write) }
        }
        let queue = engine.makeQueue(label: "arena.fd.read-end-of-file")
        let source = engine.makeReadSource(label: "arena.fd.read-end-of-file", fileDescriptor: pipe.read, queue: queue)
        let calls = Recorder<UInt>()
        source.setEventHandler { [weak source] in
            guard let source else { return }
            let data = source.data
            calls.append(data)
            if data > 0 { _ = pipe.receive(Int(data)) }
        }
        source.activate()
        defer { cancelAndDrain(source) }
        pipe.send(10)
        try expectEventually("the first 10 bytes reported") { calls.count >= 1 }
        Timing.pause(Timing.quietPeriod)
        let beforeEnd = calls.count
        _ = Glibc.close(pipe.write)
        writerOpen = false
        try expectEventually("a call after the writer closed") { calls.count > beforeEnd }
        Timing.pause(.milliseconds(100))
        let atEnd = Array(calls.elements[beforeEnd...])
        try expect(atEnd == [0], .wrongValue, "after the writer closed the handler saw data \(atEnd), expected one call with 0")
    }
}

enum DescriptorWrite: BehaviourRule {
    static let id = "fd.write"
    static let title = "A write source fires when the descriptor can take bytes (data > 0), and not while it is full."
    static let source = "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_WRITE: 'data is an estimated buffer space available'"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let pipe = try Pipe()
        defer { pipe.close() }
        // Fill the pipe until it refuses more.
        let block = [UInt8](repeating: 0x62, count: 4096)
        var filled = 0
        while true {
            let written = write(pipe.write, block, block.count)
            if written <= 0 { break }
            filled += written
        }
        let queue = engine.makeQueue(label: "arena.fd.write")
        let source = engine.makeWriteSource(label: "arena.fd.write", fileDescriptor: pipe.write, queue: queue)
        let calls = Recorder<UInt>()
        // The pipe stays writable, so the source fires until cancelled; the check cancels it right away.
        source.setEventHandler { [weak source] in
            guard let source else { return }
            calls.append(source.data)
        }
        source.activate()
        Timing.pause(Timing.quietPeriod)
        let whileFull = calls.count
        var drained = 0
        while drained < filled {
            let count = pipe.receive(65536)
            if count == 0 { break }
            drained += count
        }
        let fired = Timing.eventually { calls.count > whileFull }
        cancelAndDrain(source)
        try expect(whileFull == 0, .extra, "a write source fired \(whileFull) times on a full pipe")
        try expect(fired, .missing, "a write source did not fire after the pipe was drained")
        try expect(calls.elements.allSatisfy { $0 > 0 }, .wrongValue, "a write source fired with data 0")
    }
}

enum DescriptorCloseInCancel: BehaviourRule {
    static let id = "fd.close-in-cancel"
    static let title =
        "The engine leaves the descriptor open until the cancel handler, which may close it; a closed and reused descriptor number does not reach the old source."
    static let source =
        "dispatch_source_cancel(3): 'the cancellation handler ... is the appropriate place to close the file descriptor'; [objc.io #2] (cancel handlers)"
    static let needs: Set<Capability> = [.descriptorSources]

    static let forbidden: [Outcome] = [.missing, .early, .ranWhileHeld, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<5 {
            let pipe = try Pipe()
            let queue = engine.makeQueue(label: "arena.fd.close-in-cancel.\(round)")
            let source = engine.makeReadSource(label: "arena.fd.close-in-cancel.\(round)", fileDescriptor: pipe.read, queue: queue)
            let events = Counter()
            source.setEventHandler { [weak source] in
                guard let source else { return }
                _ = pipe.receive(Int(source.data))
                events.add()
            }
            let openInCancel = Counter()
            let cancelled = Latch()
            source.setCancelHandler {
                if fcntl(pipe.read, F_GETFD) != -1 { openInCancel.add() }
                pipe.close()
                cancelled.countDown()
            }
            source.activate()
            pipe.send(10)
            try expectEventually("round \(round): the first event") { events.value == 1 }
            source.cancel()
            try expectOpens(cancelled, "round \(round): the cancel handler")
            try expect(openInCancel.value == 1, .early, "round \(round): the descriptor was already closed when the cancel handler ran")
            // The same number, reused by a new pipe, must not wake the cancelled source.
            let reuse = try Pipe()
            reuse.send(10)
            Timing.pause(.milliseconds(20))
            reuse.close()
            try expect(
                events.value == 1, .ranWhileHeld,
                "round \(round): the cancelled source saw \(events.value - 1) events from a reused descriptor")
        }
    }
}

enum SignalCount: BehaviourRule {
    static let id = "signal.count"
    static let title =
        "A signal source's data is the number of signals delivered since the last call: signals sent one at a time are each counted; a burst is counted at least once and never more than sent (Linux merges a pending standard signal)."
    static let source =
        "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_SIGNAL: 'data is the number of signals received since the last handler'; signal(7): standard signals do not queue"
    static let needs: Set<Capability> = [.signalSources]

    /// Signals a run may use, one per run. libdispatch on Linux replaces a signal's disposition with a handler of its
    /// own when the first source for it registers, and never installs it again; a run sets `SIG_IGN` around its source
    /// (to keep the default action away) and puts the previous disposition back after it, replacing that handler, so
    /// a later source for the signal never fires (docs/FINDINGS.md, finding 9). So each run takes a fresh signal.
    static let signals: [Int32] = [SIGUSR2, SIGUSR1] + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())
    static let runs = Counter()

    static let forbidden: [Outcome] = [.missing, .lost, .extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let run = runs.add() - 1
        guard run < signals.count else {
            throw RuleFailure(
                .setup, "this process already used its \(signals.count) signals; run at most \(signals.count) repeats per process")
        }
        let signalNumber = signals[run]
        let previous = signal(signalNumber, SIG_IGN)
        defer { signal(signalNumber, previous) }
        let queue = engine.makeQueue(label: "arena.signal.count")
        let source = engine.makeSignalSource(label: "arena.signal.count", signal: signalNumber, queue: queue)
        let counted = Counter()
        let calls = Recorder<UInt>()
        source.setEventHandler { [weak source] in
            guard let source else { return }
            calls.append(source.data)
            counted.add(Int(source.data))
        }
        source.activate()
        defer { cancelAndDrain(source) }
        Timing.pause(.milliseconds(20))  // let the engine register the signal
        for sent in 1...5 {
            kill(getpid(), signalNumber)
            try expectEventually(within: .seconds(2), "signal \(sent) being counted") { counted.value >= sent }
            try expect(counted.value == sent, .wrongValue, "\(sent) signals sent one at a time were counted \(counted.value) times")
        }
        for _ in 0..<10 { kill(getpid(), signalNumber) }
        let burstCounted = Timing.eventually(within: .seconds(2)) { counted.value > 5 }
        Timing.pause(.milliseconds(50))
        try expect(burstCounted, .lost, "a burst of 10 signals was not counted")
        try expect(counted.value <= 15, .extra, "15 signals were counted \(counted.value) times")
        try expect(calls.elements.allSatisfy { $0 > 0 }, .wrongValue, "a signal handler call had data 0")
    }
}
