import ArenaContract
import Harness

/// Barrier blocks on concurrent queues.
enum BarrierRules: RuleFamily {
    static let concept = Concept.barriers
    static let rules: [any ConformanceRule.Type] = [
        BarrierAfterEarlier.self, BarrierBeforeLater.self, BarrierAlone.self, BarrierSync.self, BarrierOnSerial.self,
        BarrierLaterConcurrent.self, BarrierOnGlobal.self,
    ]
}

private let rounds = 5
private let blocksPerRound = 200

enum BarrierAfterEarlier: BehaviourRule {
    static let id = "barrier.after-earlier"
    static let title = "A barrier block starts only after every block submitted before it has finished."
    static let source = "dispatch_barrier_async(3) in dispatch_queue_create(3); [objc.io #2] (barriers)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.after-earlier", kind: .concurrent)
        let finished = Counter()
        let seenByBarrier = Recorder<Int>()
        let done = Latch(rounds)
        for round in 0..<rounds {
            for index in 0..<blocksPerRound {
                queue.async {
                    Timing.jitter(upTo: 50)
                    // The last blocks before the barrier sleep: a barrier that does not wait starts meanwhile.
                    if index >= blocksPerRound - 3 { Timing.pause(.milliseconds(2)) }
                    finished.add()
                }
            }
            queue.barrierAsync {
                seenByBarrier.append(finished.value - (round + 1) * blocksPerRound)
                done.countDown()
            }
        }
        try expectOpens(done, "\(rounds) barriers")
        let missing = seenByBarrier.elements
        try expect(missing.allSatisfy { $0 == 0 }, .early, "barriers started with earlier blocks still unfinished: \(missing) (0 = none)")
    }
}

enum BarrierBeforeLater: BehaviourRule {
    static let id = "barrier.before-later"
    static let title = "No block submitted after a barrier starts before the barrier finished."
    static let source = "dispatch_barrier_async(3) in dispatch_queue_create(3); [GCD Handbook] (isolation with barriers)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.before-later", kind: .concurrent)
        let barriersDone = Counter()
        let early = Counter()
        let done = Latch(rounds * blocksPerRound)
        for round in 0..<rounds {
            queue.barrierAsync {
                Timing.pause(.milliseconds(2))  // blocking, so other workers are free to start later blocks
                barriersDone.add()
            }
            for _ in 0..<blocksPerRound {
                queue.async {
                    if barriersDone.value < round + 1 { early.add() }
                    done.countDown()
                }
            }
        }
        try expectOpens(done, "\(rounds * blocksPerRound) blocks after barriers")
        try expect(early.value == 0, .early, "\(early.value) blocks started before the barrier submitted ahead of them finished")
    }
}

enum BarrierAlone: BehaviourRule {
    static let id = "barrier.alone"
    static let title = "While a barrier runs, nothing else of that queue runs."
    static let source = "dispatch_barrier_async(3) in dispatch_queue_create(3): the barrier 'executes by itself'"

    static let forbidden: [Outcome] = [.missing, .overlap]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.alone", kind: .concurrent)
        let meter = ConcurrencyMeter()
        let company = Recorder<Int>()
        let total = 2 * 400
        let done = Latch(total)
        Threads.race(2) { _ in
            for index in 0..<400 {
                if index % 20 == 10 {
                    queue.barrierAsync {
                        meter.measure {
                            for _ in 0..<2 {
                                if meter.inside != 1 { company.append(meter.inside) }
                                Timing.pause(.milliseconds(1))
                            }
                            if meter.inside != 1 { company.append(meter.inside) }
                        }
                        done.countDown()
                    }
                } else {
                    queue.async {
                        meter.measure { Timing.jitter(upTo: 30) }
                        done.countDown()
                    }
                }
            }
        }
        try expectOpens(done, "\(total) blocks and barriers")
        try expect(company.count == 0, .overlap, "a barrier shared its queue with \(company.elements.prefix(5)) blocks")
    }
}

enum BarrierSync: BehaviourRule {
    static let id = "barrier.sync"
    static let title =
        "A sync barrier returns after it ran; readers (sync) and writers (barrier async) never overlap, and readers do overlap."
    static let source = "libdispatch tests/dispatch_readsync.c (reader threads with dispatch_sync, writers with dispatch_barrier_async)"

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.sync", kind: .concurrent)
        let readers = ConcurrencyMeter()
        let writers = ConcurrencyMeter()
        let clashes = Counter()

        // Readers overlap: two syncs that wait (bounded) for each other inside the queue.
        let inside = Latch(2)
        let met = Counter()
        Threads.race(2) { _ in
            queue.sync {
                inside.countDown()
                if inside.wait(.seconds(3)) { met.add() }
            }
        }
        try expect(met.value == 2, .serialized, "two sync readers never ran at the same time")

        // Readers and writers never overlap: 8 reader threads, 100 writers.
        let writes = 100
        let written = Latch(writes)
        let finished = Threads.race(8) { thread in
            for round in 0..<200 {
                queue.sync {
                    readers.measure {
                        if writers.inside != 0 { clashes.add() }
                        Timing.jitter(upTo: 20)
                    }
                }
                if thread == 0 && round % 2 == 0 {
                    // Writers long enough that a reader let in beside one is caught even on a loaded machine (with
                    // 20 µs, the barrier-ignoring mutant passed once in a CI run while other builds ran).
                    queue.barrierAsync {
                        writers.measure {
                            if readers.inside != 0 || writers.inside != 1 { clashes.add() }
                            Timing.spin(.microseconds(100))
                        }
                        written.countDown()
                    }
                }
            }
        }
        try expect(finished, .missing, "reader threads did not finish")
        try expectOpens(written, "\(writes) writers")
        try expect(clashes.value == 0, .overlap, "readers and writers overlapped \(clashes.value) times")

        // A sync barrier returns after it ran, alone.
        for _ in 0..<50 {
            queue.async { readers.measure { Timing.jitter(upTo: 20) } }
        }
        let ran = UnguardedCell()
        let alone = queue.barrierSync { () -> Bool in
            ran.value = 1
            return readers.inside == 0
        }
        try expect(ran.value == 1, .early, "barrier sync returned before its block ran")
        try expect(alone, .overlap, "barrier sync ran alongside readers")
    }
}

enum BarrierOnSerial: BehaviourRule {
    static let id = "barrier.on-serial"
    static let title = "On a serial queue a barrier behaves as a plain block: in order, one at a time."
    static let source = "dispatch_barrier_async(3) in dispatch_queue_create(3): on a serial queue it behaves as dispatch_async"

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.on-serial")
        let log = Recorder<Int>()
        let meter = ConcurrencyMeter()
        let count = 1000
        let done = Latch(count)
        for index in 0..<count {
            let block: @Sendable () -> Void = {
                meter.measure {
                    log.append(index)
                    if index % 10 == 0 { Timing.jitter(upTo: 10) }
                    Timing.linger(index, every: 100)
                }
                done.countDown()
            }
            if index % 3 == 0 { queue.barrierAsync(block) } else { queue.async(block) }
        }
        try expectOpens(done, "\(count) blocks and barriers")
        try expect(log.elements == Array(0..<count), .reordered, "mixed blocks and barriers ran out of submission order")
        try expect(meter.maximum == 1, .overlap, "\(meter.maximum) blocks of a serial queue ran at once")
        let value = queue.barrierSync { log.count }
        try expect(value == count, .early, "barrier sync on a serial queue saw \(value) of \(count) earlier blocks")
    }
}

enum BarrierLaterConcurrent: BehaviourRule {
    static let id = "barrier.later-concurrent"
    static let title =
        "Once a barrier ends, the blocks submitted after it run side by side again: two that wait for each other meet, and a sync among them runs beside an async block."
    static let source =
        "dispatch_barrier_async(3) in dispatch_queue_create(3): later blocks wait only 'until the barrier block completes'; libdispatch tests/dispatch_readsync.c (sync readers beside each other)"

    static let forbidden: [Outcome] = [.missing, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.barrier.later-concurrent", kind: .concurrent)
        for round in 0..<rounds {
            // Each barrier sleeps, so that what comes after it is queued behind it before it ends.
            queue.barrierAsync { Timing.pause(.milliseconds(2)) }
            try rendezvous(on: queue, "round \(round), behind a barrier")
            queue.barrierAsync { Timing.pause(.milliseconds(2)) }
            let unit = Latch()
            let met = Counter()
            let done = Latch()
            queue.async {
                if unit.wait(.seconds(2)) { met.add() }
                done.countDown()
            }
            queue.sync { unit.countDown() }
            try expectOpens(done, "the block beside a sync after barrier \(round)")
            try expect(met.value == 1, .serialized, "round \(round): a block behind a barrier waited 2 s for a sync submitted after it")
        }
    }
}

enum BarrierOnGlobal: BehaviourRule {
    static let id = "barrier.on-global"
    static let title =
        "On the global queue a barrier is a plain block: barrierAsync, barrierSync and a work item flagged barrier each run beside a block already running there."
    static let source =
        "Apple's reference for dispatch_barrier_async: on 'one of the global concurrent queues, this function behaves like the dispatch_async function' (dispatch_barrier_sync and the barrier flag likewise)"

    static let forbidden: [Outcome] = [.missing, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        let global = engine.globalQueue
        for (round, form) in ["barrierAsync", "barrierSync", "a work item flagged barrier"].enumerated() {
            let started = Latch()
            let unit = Latch()
            let met = Counter()
            let done = Latch()
            global.async {
                started.countDown()
                if unit.wait(.seconds(2)) { met.add() }
                done.countDown()
            }
            // Only once the block runs: a barrier honoured on an idle queue would pass.
            try expectOpens(started, "the block on the global queue (\(form))")
            let give: @Sendable () -> Void = { unit.countDown() }
            switch round {
            case 0: global.barrierAsync(give)
            case 1: global.barrierSync(give)
            default: global.async(engine.makeWorkItem(label: "arena.barrier.on-global", flags: .barrier, give))
            }
            try expectOpens(done, "the block on the global queue (\(form))")
            try expect(met.value == 1, .serialized, "\(form) on the global queue waited for a block running there (2 s)")
        }
    }
}
