import ArenaContract
import Harness

/// Serial and concurrent queues, async and sync, the global queue.
enum QueueRules: RuleFamily {
    static let concept = Concept.queues
    static let rules: [any ConformanceRule.Type] = [
        SerialFIFO.self, SerialExclusive.self, ConcurrentParallel.self, ConcurrentStartOrder.self,
        SyncResult.self, SyncAfterEarlier.self, SyncOnOtherQueueFromBlock.self, SyncReentrantConcurrent.self,
        GlobalConcurrent.self, GlobalTakesTurns.self,
    ]
}

/// Submitters, blocks per submitter and rounds for the stress checks of this file.
private let submitters = 4
private let blocksPerSubmitter = 500
private let rounds = 3

enum SerialFIFO: BehaviourRule {
    static let id = "serial.fifo"
    static let title = "Blocks submitted from one thread to a serial queue run in submission order."
    static let source = "dispatch_queue_create(3): serial queues invoke blocks in FIFO order"

    static let forbidden: [Outcome] = [.missing, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<rounds {
            let queue = engine.makeQueue(label: "arena.serial.fifo.\(round)")
            let log = Recorder<(submitter: Int, sequence: Int)>()
            let done = Latch(submitters * blocksPerSubmitter)
            let finished = Threads.race(submitters) { submitter in
                for sequence in 0..<blocksPerSubmitter {
                    queue.async {
                        log.append((submitter, sequence))
                        done.countDown()
                    }
                    if sequence % 64 == 0 { Timing.jitter() }
                }
            }
            try expect(finished, .missing, "submitters did not finish")
            try expectOpens(done, "running \(submitters * blocksPerSubmitter) blocks")
            var next = [Int](repeating: 0, count: submitters)
            for (position, entry) in log.elements.enumerated() {
                try expect(
                    entry.sequence == next[entry.submitter], .reordered,
                    "round \(round): block \(entry.sequence) of submitter \(entry.submitter) ran at position "
                        + "\(position), before its block \(next[entry.submitter])")
                next[entry.submitter] += 1
            }
        }
    }
}

enum SerialExclusive: BehaviourRule {
    static let id = "serial.exclusive"
    static let title = "At most one block of a serial queue runs at any moment; a block sees every write of earlier blocks."
    static let source =
        "dispatch_async(3), TEMPORAL SYNCHRONIZATION: a serial queue as a lock; [objc.io #2] (isolation queues)"

    static let forbidden: [Outcome] = [.missing, .lost, .overlap]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<rounds {
            let queue = engine.makeQueue(label: "arena.serial.exclusive.\(round)")
            let meter = ConcurrencyMeter()
            let cell = UnguardedCell()
            let total = submitters * blocksPerSubmitter
            let done = Latch(total)
            Threads.race(submitters) { _ in
                for index in 0..<blocksPerSubmitter {
                    queue.async {
                        meter.measure {
                            // Read, work, write back: overlapping blocks lose increments.
                            let seen = cell.value
                            if index % 16 == 0 { Timing.jitter(upTo: 5) }
                            Timing.linger(index, every: 100)
                            cell.value = seen + 1
                        }
                        done.countDown()
                    }
                }
            }
            try expectOpens(done, "running \(total) blocks")
            try expect(meter.maximum == 1, .overlap, "round \(round): \(meter.maximum) blocks of one serial queue ran at once")
            let final = queue.sync { cell.value }
            try expect(final == total, .lost, "round \(round): \(total) increments left the counter at \(final)")
        }
    }
}

enum ConcurrentParallel: BehaviourRule {
    static let id = "concurrent.parallel"
    static let title = "A concurrent queue runs several blocks at once when workers are free."
    static let source = "dispatch_queue_create(3): concurrent queues invoke blocks concurrently; libdispatch tests/dispatch_concur.c"

    static let forbidden: [Outcome] = [.missing, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<rounds {
            let queue = engine.makeQueue(label: "arena.concurrent.parallel.\(round)", kind: .concurrent)
            try rendezvous(on: queue, "round \(round)")
        }
    }
}

enum ConcurrentStartOrder: BehaviourRule {
    static let id = "concurrent.start-order"
    static let title = "A concurrent queue starts blocks in submission order (completion order is free)."
    static let source = "dispatch_queue_create(3): concurrent queues dequeue blocks in FIFO order"

    /// A block may be dequeued in order yet record its start a little late (preempted between dequeue and its first
    /// instruction), so each block may be overtaken by a few later ones: at most `slack`, far below a reordering.
    static let slack = 64

    static let forbidden: [Outcome] = [.missing, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let count = 2000
        for round in 0..<rounds {
            let queue = engine.makeQueue(label: "arena.concurrent.start-order.\(round)", kind: .concurrent)
            let ticket = Counter()
            let tickets = Locked([Int](repeating: -1, count: count))
            let done = Latch(count)
            queue.suspend()
            for index in 0..<count {
                queue.async {
                    let started = ticket.add() - 1
                    tickets.withLock { $0[index] = started }
                    if index % 8 == 0 { Timing.jitter(upTo: 10) }
                    done.countDown()
                }
            }
            queue.resume()
            try expectOpens(done, "running \(count) blocks")
            let order = tickets.snapshot
            // For each block, count earlier-submitted blocks that started after it.
            var worst = (index: 0, overtaken: 0)
            for index in 0..<count {
                var overtaken = 0
                for earlier in 0..<index where order[earlier] > order[index] { overtaken += 1 }
                if overtaken > worst.overtaken { worst = (index, overtaken) }
            }
            try expect(
                worst.overtaken <= slack, .reordered,
                "round \(round): block \(worst.index) started before \(worst.overtaken) blocks submitted earlier")
        }
    }
}

enum SyncResult: BehaviourRule {
    static let id = "sync.result"
    static let title = "sync returns after its block finished, hands back the block's value, and rethrows its error."
    static let source =
        "dispatch_async(3), dispatch_sync: 'does not return until the block has finished'; the Swift overlay's DispatchQueue.sync returns the value and rethrows"

    struct Thrown: Error, Equatable { let value: Int }

    static let forbidden: [Outcome] = [.wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let serial = engine.makeQueue(label: "arena.sync.result.serial")
        let concurrent = engine.makeQueue(label: "arena.sync.result.concurrent", kind: .concurrent)
        let problems = Recorder<String>()
        Threads.race(submitters) { thread in
            for round in 0..<200 {
                let expected = thread * 1000 + round
                let finished = UnguardedCell()
                let value = (round % 2 == 0 ? serial : concurrent).sync { () -> Int in
                    if round % 20 == 0 { Timing.spin(.microseconds(200)) }
                    finished.value = 1
                    return expected
                }
                if value != expected { problems.append("sync returned \(value), block returned \(expected)") }
                if finished.value != 1 { problems.append("sync returned before its block finished") }
                let barrierValue = concurrent.barrierSync { expected + 1 }
                if barrierValue != expected + 1 { problems.append("barrier sync returned \(barrierValue)") }
                do {
                    _ = try serial.sync { () throws -> Int in throw Thrown(value: expected) }
                    problems.append("sync swallowed the block's error")
                } catch let error as Thrown {
                    if error.value != expected { problems.append("sync rethrew a different error") }
                } catch {
                    problems.append("sync rethrew \(error)")
                }
            }
        }
        try expect(problems.count == 0, .wrongValue, problems.elements.prefix(3).joined(separator: "; "))
    }
}

enum SyncAfterEarlier: BehaviourRule {
    static let id = "sync.after-earlier"
    static let title = "sync on a serial queue runs after every block submitted before it."
    static let source =
        "dispatch_async(3), RECURSIVE LOCKS: 'queues support both asynchronous and synchronous operations, and those operations are ordered by definition'"

    static let forbidden: [Outcome] = [.early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.sync.after-earlier")
        let problems = Recorder<String>()
        Threads.race(submitters) { _ in
            let mine = UnguardedCell()  // touched only inside blocks of `queue`
            for round in 0..<100 {
                let batch = 1 + round % 7
                for _ in 0..<batch {
                    queue.async {
                        Timing.jitter(upTo: 3)
                        mine.value += 1
                    }
                }
                let expected = (0...round).reduce(0) { $0 + 1 + $1 % 7 }
                let seen = queue.sync { mine.value }
                if seen != expected { problems.append("sync saw \(seen) of \(expected) earlier blocks") }
            }
        }
        try expect(problems.count == 0, .early, problems.elements.prefix(3).joined(separator: "; "))
    }
}

enum SyncOnOtherQueueFromBlock: BehaviourRule {
    static let id = "sync.on-other-queue-from-block"
    static let title = "sync from inside a block of queue A onto queue B completes: no engine-wide deadlock."
    static let source = "dispatch_async(3), RECURSIVE LOCKS: only a cycle (A syncs onto B which syncs onto A) deadlocks"
    static let needs: Set<Capability> = [.blockingInBlocks]

    static let forbidden: [Outcome] = [.missing]

    static func check<E: Engine>(_ engine: E) throws {
        // More chains than cores, each four queues deep: A syncs onto B, B onto C, C onto D.
        let chains = 16
        let depth = 4
        let done = Latch(chains * 20)
        let reached = Counter()
        for chain in 0..<chains {
            let queues = (0..<depth).map { engine.makeQueue(label: "arena.sync.other.\(chain).\($0)") }
            for _ in 0..<20 {
                queues[0].async {
                    nest(queues, from: 0, reached: reached)
                    done.countDown()
                }
            }
        }
        try expectOpens(done, "\(chains * 20) chains of nested syncs")
        try expect(reached.value == chains * 20, .missing, "\(reached.value) of \(chains * 20) chains reached their last queue")
    }

    private static func nest<Q: EngineQueue>(_ queues: [Q], from level: Int, reached: Counter) {
        if level + 1 == queues.count {
            reached.add()
            return
        }
        queues[level + 1].sync { nest(queues, from: level + 1, reached: reached) }
    }
}

enum SyncReentrantConcurrent: BehaviourRule {
    static let id = "sync.reentrant-concurrent"
    static let title = "A non-barrier sync onto a concurrent queue from a block of that same queue is legal and completes."
    static let source = "dispatch_async(3), RECURSIVE LOCKS: reader/writer reentrancy on the read side"
    static let needs: Set<Capability> = [.blockingInBlocks]

    static let forbidden: [Outcome] = [.missing]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.sync.reentrant-concurrent", kind: .concurrent)
        let blocks = 64
        let done = Latch(blocks)
        let innermost = Counter()
        for _ in 0..<blocks {
            queue.async {
                queue.sync { queue.sync { queue.sync { _ = innermost.add() } } }
                done.countDown()
            }
        }
        try expectOpens(done, "\(blocks) blocks syncing three deep onto their own concurrent queue")
        try expect(innermost.value == blocks, .missing, "\(innermost.value) of \(blocks) innermost syncs ran")
    }
}

enum GlobalConcurrent: BehaviourRule {
    static let id = "global.concurrent"
    static let title = "The global queue is concurrent: blocks overlap and complete out of submission order."
    static let source = "dispatch_async(3), BACKGROUND CONCURRENCY; dispatch_queue_create(3): global queues are concurrent"

    static let forbidden: [Outcome] = [.missing, .serialized, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let global = engine.globalQueue
        try expect(global.kind == .concurrent, .wrongValue, "the global queue reports kind \(global.kind)")
        for round in 0..<rounds {
            // The first block can only finish after the second: completion is not FIFO.
            let second = Latch()
            let order = Recorder<Int>()
            let done = Latch(2)
            global.async {
                let saw = second.wait(.seconds(3))
                order.append(saw ? 1 : -1)
                done.countDown()
            }
            global.async {
                order.append(2)
                second.countDown()
                done.countDown()
            }
            try expectOpens(done, within: .seconds(8), "round \(round): two global blocks")
            try expect(
                order.elements == [2, 1], .serialized,
                "round \(round): completion order \(order.elements) (-1: first block never saw the second)")
        }
    }
}

enum GlobalTakesTurns: BehaviourRule {
    static let id = "global.takes-turns"
    static let title =
        "A queue with work gets its turn while the global queue is kept busy: its block starts before 2,000 global blocks submitted after it have started (a generous bound: the global queue starts blocks in the order they came, and a queue's block joins that line), whether it was submitted from a plain thread or from a global block."
    static let source = """
        [Concurrency Programming Guide] (table 3-1: a concurrent queue starts tasks in the order they were added; 'each \
        queue operates concurrently with respect to all other queues'; 'all dispatch queues are FIFO data structure'); \
        libdispatch queue.c (a queue with work is pushed onto its target's list, behind the blocks already there)
        """

    static let forbidden: [Outcome] = [.missing, .late]

    static func check<E: Engine>(_ engine: E) throws {
        let bound = 2000
        for (round, fromGlobal) in [false, true].enumerated() {
            // Four chains of global blocks, each block spinning 20 µs and then submitting the next of its chain: on two
            // cores the global queue always has blocks waiting, and every worker is busy with them.
            let stop = Counter()
            let started = Counter()
            let ended = Latch(4)
            let probeSubmitted = Counter()
            let startedAfter = Counter()  // global blocks started after the probe was submitted
            let probeSaw = Counter()
            let probeRan = Latch()
            let probe = engine.makeQueue(label: "arena.global.takes-turns.probe.\(round)")
            let submitProbe: @Sendable () -> Void = {
                probe.async {
                    probeSaw.add(startedAfter.value)
                    probeRan.countDown()
                }
                probeSubmitted.add()
            }
            let chain = Chain(engine.globalQueue) {
                if stop.value > 0 {
                    ended.countDown()
                    return false
                }
                if probeSubmitted.value > 0 { startedAfter.add() }
                if started.add() == 200 && fromGlobal { submitProbe() }
                Timing.spin(.microseconds(20))
                return true
            }
            for _ in 0..<4 { chain.start() }
            try expect(
                Timing.eventually(within: .seconds(5)) { started.value >= 200 }, .missing,
                "round \(round): 200 global blocks did not start within 5 s (\(started.value) did)")
            if !fromGlobal { submitProbe() }
            let ran = Timing.eventually(within: .seconds(5)) {
                probeRan.isOpen || (probeSubmitted.value > 0 && startedAfter.value >= bound)
            }
            stop.add()
            let place = fromGlobal ? "from a global block" : "from a plain thread"
            try expectOpens(ended, "round \(round): the four chains of global blocks stopping")
            try expectOpens(
                probeRan, "round \(round): the block submitted \(place) to a serial queue while the global queue stayed busy")
            try expect(ran, .late, "round \(round): \(place): neither the probe nor \(bound) later global blocks started within 5 s")
            try expect(
                probeSaw.value < bound, .late,
                "round \(round): the block submitted \(place) started only after \(probeSaw.value) global blocks submitted after it (bound \(bound))"
            )
        }
    }

    /// Chains of blocks on one queue: each block runs `body`, then submits the next block of its chain; a chain ends
    /// at the first block whose body returns false.
    private final class Chain<Queue: EngineQueue>: Sendable {
        let queue: Queue
        let body: @Sendable () -> Bool
        init(_ queue: Queue, _ body: @escaping @Sendable () -> Bool) { (self.queue, self.body) = (queue, body) }
        func start() {
            queue.async { [self] in
                if body() { start() }
            }
        }
    }
}
