import ArenaContract
import Harness

/// What the operations of a run did, as they did it: each event stamped with the step it happened in and a sequence
/// number over the run.
struct OperationLog: Sendable {
    struct Stamp: Sendable, CustomStringConvertible {
        let step: Int
        let sequence: Int
        var description: String { "step \(step)" }
    }

    /// Per operation (barriers included, in the model's order).
    struct Entry: Sendable {
        var starts: [Stamp] = []
        var ends: [Stamp] = []
        var completions: [Stamp] = []
        /// `OperationQueue.current`'s name as the body started ("nil" for none).
        var current: String?
        /// `isCancelled` as the body ended.
        var sawCancelled: Bool?
        /// Runs of each extra execution block.
        var extras: [Int] = []
        /// The body's wait for its release ran out.
        var stranded = false
    }

    var entries: [Entry] = []
    /// When each waiter returned, and whether its wait timed out.
    var waiters: [(stamp: Stamp, timedOut: Bool)?] = []
    var sequence = 0
    var step = 0

    mutating func stamp() -> Stamp {
        sequence += 1
        return Stamp(step: step, sequence: sequence)
    }
}

/// The objects of one run of an `OperationProgram` on a layer, and what they did (`OperationLog`): the queues and
/// operations made up front, a gate per held body, the inner call each release hands its body.
final class OperationWorld<L: OperationLayer>: @unchecked Sendable {
    let layer: L
    let program: OperationProgram
    /// Written before the first step, read only after.
    private(set) var queues: [L.Queue] = []
    private(set) var underlying: [L.UnderlyingQueue?] = []
    /// The operations, nil for barriers (which are blocks); a barrier's is appended by the script's thread only.
    private(set) var ops: [L.Operation?] = []
    let log = Locked(OperationLog())
    private let gates = Locked<[Gate]>([])
    /// Makes a held body's gate: the engine's own semaphore, so that a body waiting at it blocks where the engine can
    /// see (as the GCD programs' blocks wait on the engine's semaphores).
    private let makeGate: @Sendable () -> Gate
    /// What each released body calls first, with what the model expects, and where its observation goes.
    private let inner = Locked<[Int: (call: any OperationCall, expected: String?, done: Latch, seen: Locked<String?>)]>([:])
    /// Asynchronous operations' `finish`, kept while they are held.
    private let finishes = Locked<[Int: @Sendable () -> Void]>([:])
    /// How long a held body, a waiter or a probe waits at most: past the run's watchdog, so a stuck run is a timeout.
    static var patience: Duration { .seconds(20) }

    init(_ program: OperationProgram, on layer: L, gates makeGate: @escaping @Sendable () -> Gate) {
        self.layer = layer
        self.program = program
        self.makeGate = makeGate
        for (index, spec) in (program.queues + [OperationProgram.drainQueue]).enumerated() {
            let queue = layer.makeQueue(label: "q\(index)")
            if spec.pinned {
                let serial = layer.makeUnderlyingQueue(label: "q\(index).underlying", kind: .serial)
                queue.underlyingQueue = serial
                underlying.append(serial)
            } else {
                underlying.append(nil)
            }
            queue.maxConcurrentOperationCount = spec.pinned ? 1 : spec.width == OperationProgram.unlimited ? L.Queue.unlimited : spec.width
            queue.isSuspended = spec.suspended
            queues.append(queue)
        }
        for (index, spec) in program.ops.enumerated() { ops.append(make(index, spec)) }
    }

    /// Breaks the cycles between operations and their bodies once the run is over.
    func tearDown() {
        finishes.withLock { $0 = [:] }
        inner.withLock { $0 = [:] }
        for gate in gates.snapshot { gate.open() }
    }

    private func newEntry() -> Int {
        let gate = makeGate()
        gates.withLock { $0.append(gate) }
        return log.withLock { log in
            log.entries.append(.init())
            return log.entries.count - 1
        }
    }

    private func make(_ index: Int, _ spec: OperationProgram.Op) -> L.Operation {
        _ = newEntry()
        let label = "op\(index)"
        let operation: L.Operation
        switch spec.kind {
        case .block, .barrier:
            let box = WeakBox<L.Operation>()
            operation = layer.makeBlockOperation(label: label) { [self] in body(index, box.value) }
            box.value = operation
            log.withLock { $0.entries[index].extras = Array(repeating: 0, count: spec.extraBlocks) }
            for extra in 0..<spec.extraBlocks {
                operation.addExecutionBlock { [self] in log.withLock { $0.entries[index].extras[extra] += 1 } }
            }
        case .main:
            operation = layer.makeOperation(label: label) { [self] operation in body(index, operation) }
        case .async:
            operation = layer.makeAsynchronousOperation(label: label) { [self] operation, finish in
                let current = layer.currentQueue?.name ?? "nil"
                if spec.held && !gate(index).pass(until: .now()) {
                    finishes.withLock { $0[index] = finish }
                    log.withLock { log in
                        log.entries[index].starts.append(log.stamp())
                        log.entries[index].current = current
                    }
                    return
                }
                log.withLock { log in
                    log.entries[index].starts.append(log.stamp())
                    log.entries[index].current = current
                    log.entries[index].sawCancelled = operation.isCancelled
                    log.entries[index].ends.append(log.stamp())
                }
                finish()
            }
        }
        operation.queuePriority = spec.priority
        if spec.completion {
            operation.completionBlock = { [self] in log.withLock { $0.entries[index].completions.append($0.stamp()) } }
        }
        return operation
    }

    private func gate(_ index: Int) -> Gate { gates.withLock { $0[index] } }

    /// A block or main body: records its start and queue, waits for its release if held, makes the inner call its
    /// release handed it, reads `isCancelled`, records its end.
    private func body(_ index: Int, _ operation: L.Operation?) {
        let current = layer.currentQueue?.name ?? "nil"
        log.withLock { log in
            log.entries[index].starts.append(log.stamp())
            log.entries[index].current = current
        }
        if index < program.ops.count && program.ops[index].held {
            if !gate(index).pass(until: .now() + Self.patience) { log.withLock { $0.entries[index].stranded = true } }
            if let handed = inner.withLock({ $0.removeValue(forKey: index) }) {
                handed.seen.withLock { $0 = handed.call.perform(in: self, expecting: handed.expected) }
                handed.done.countDown()
            }
        }
        let cancelled = operation?.isCancelled ?? false
        log.withLock { log in
            log.entries[index].sawCancelled = cancelled
            log.entries[index].ends.append(log.stamp())
        }
    }

    // MARK: - What the calls do

    /// Adds a barrier block to `queue`; its log entry is the next one, as the model's barrier is its next operation.
    func addBarrier(to queue: Int) {
        let index = newEntry()
        ops.append(nil)
        queues[queue].addBarrierBlock { [self] in body(index, nil) }
    }

    /// Opens `op`'s gate, handing its body `call` to make first; returns what that call observed (waiting for the body
    /// to make it, boundedly). An asynchronous operation that started is finished from here.
    func release(_ op: Int, inner call: (any OperationCall)?, expecting expected: String?) -> String? {
        if let finish = finishes.withLock({ $0.removeValue(forKey: op) }) {
            let cancelled = ops[op]!.isCancelled
            log.withLock { log in
                log.entries[op].sawCancelled = cancelled
                log.entries[op].ends.append(log.stamp())
            }
            finish()
            return nil
        }
        guard let call else {
            gate(op).open()
            return nil
        }
        let done = Latch()
        let seen = Locked<String?>(nil)
        inner.withLock { $0[op] = (call, expected, done, seen) }
        gate(op).open()
        return done.wait(.seconds(5)) ? seen.snapshot : "nothing: the body did not make the call within 5 s"
    }

    /// The operations the model says are on no queue, set by the run before each call (the drain's `AddRest` adds
    /// them).
    var pendingAdds: [Int] = []

    /// Starts a thread that makes `wait` with a deadline and records when it returned.
    func startWaiter(_ wait: @escaping @Sendable (Deadline) -> WaitResult) {
        let index = log.withLock { log in
            log.waiters.append(nil)
            return log.waiters.count - 1
        }
        Threads.detach { [self] in
            let result = wait(.now() + Self.patience)
            log.withLock { log in log.waiters[index] = (log.stamp(), result == .timedOut) }
        }
    }

    /// `OperationQueue.current` as a block on `queue`'s underlying queue sees it.
    func probe(_ queue: Int) -> String {
        let seen = Locked<String?>(nil)
        let done = Latch()
        underlying[queue]!.async { [self] in
            seen.withLock { $0 = layer.currentQueue?.name ?? "nil" }
            done.countDown()
        }
        return done.wait(.seconds(5)) ? seen.snapshot! : "nothing: the block did not run within 5 s"
    }

    /// Reads `read` until it returns `expected` or a second passed; the last reading.
    func poll(_ expected: String?, _ read: () -> String) -> String {
        let deadline = Deadline.now() + .seconds(1)
        var seen = read()
        while seen != expected && Deadline.now() < deadline {
            Threads.sleep(.microseconds(200))
            seen = read()
        }
        return seen
    }
}

/// A held body's gate: closed until `open`, then open for good (each pass puts back the unit it took). Opening twice
/// adds a unit no one takes.
struct Gate: Sendable {
    /// Takes a unit, waiting until `deadline`; whether it got one.
    let wait: @Sendable (Deadline) -> Bool
    /// Adds a unit.
    let signal: @Sendable () -> Void

    /// A gate over an engine's semaphore of value 0.
    init<S: EngineSemaphore>(_ semaphore: S) {
        wait = { semaphore.wait(until: $0) == .success }
        signal = { semaphore.signal() }
    }

    func open() { signal() }

    /// Whether the gate is open by `deadline` (waiting for it until then).
    func pass(until deadline: Deadline) -> Bool {
        guard wait(deadline) else { return false }
        signal()
        return true
    }
}

/// A weak reference a block operation's body reads itself through (the operation owns the body).
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    private let lock = Lock()
    private weak var stored: T?
    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
