import ArenaContract
import Harness

/// apply (concurrentPerform).
enum ApplyRules: RuleFamily {
    static let concept = Concept.apply
    static let rules: [any ConformanceRule.Type] = [
        ApplyEveryIndex.self, ApplyZero.self, ApplyParallel.self, ApplyNested.self, ApplyBusyPool.self,
        ApplyFromSerial.self, ApplyRounds.self,
    ]
}

/// Runs apply over `count` indices and fails unless each ran exactly once before apply returned.
func expectEveryIndexOnce<E: Engine>(_ engine: E, _ count: Int, _ context: String) throws {
    let hits = IndexCounters(count)
    engine.apply(iterations: count) { index in hits.hit(index) }
    let wrong = hits.wrong()
    try expect(
        wrong.isEmpty, .notOnce,
        "\(context): apply(\(count)) returned with indices run other than once: \(wrong.map { "\($0.index)×\($0.hits)" })")
}

enum ApplyEveryIndex: BehaviourRule {
    static let id = "apply.every-index"
    static let title = "Each index 0..<n runs exactly once; apply returns after all finished."
    static let source = "dispatch_apply(3); libdispatch tests/dispatch_apply.c"

    static let forbidden: [Outcome] = [.notOnce]

    static func check<E: Engine>(_ engine: E) throws {
        for count in [1, 2, 3, 7, 64, 1000, 100_000] {
            try expectEveryIndexOnce(engine, count, "flat")
        }
        // Uneven work per index.
        let hits = IndexCounters(2000)
        engine.apply(iterations: 2000) { index in
            if index % 97 == 0 { Timing.spin(.microseconds(100)) }
            hits.hit(index)
        }
        try expect(hits.wrong().isEmpty, .notOnce, "uneven work: indices run other than once: \(hits.wrong())")
    }
}

enum ApplyZero: BehaviourRule {
    static let id = "apply.zero"
    static let title = "apply over zero iterations returns at once without calling the body."
    static let source = "dispatch_apply(3): iterations is a count; the body runs once per index"

    static let forbidden: [Outcome] = [.extra]

    static func check<E: Engine>(_ engine: E) throws {
        let calls = Counter()
        for _ in 0..<1000 { engine.apply(iterations: 0) { _ in calls.add() } }
        try expect(calls.value == 0, .extra, "apply(0) called the body \(calls.value) times")
    }
}

enum ApplyParallel: BehaviourRule {
    static let id = "apply.parallel"
    static let title = "With free workers, apply's iterations run on more than one thread at once."
    static let source = "dispatch_apply(3): 'submits a block to a dispatch queue for parallel invocation'"

    static let forbidden: [Outcome] = [.serialized]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<3 {
            let arrived = Latch(2)
            let met = Counter()
            let threads = Locked(Set<UInt>())
            engine.apply(iterations: 2) { _ in
                threads.withLock { _ = $0.insert(Threads.current) }
                arrived.countDown()
                if arrived.wait(.seconds(2)) { met.add() }
            }
            try expect(met.value == 2, .serialized, "round \(round): two iterations never ran at the same time")
            try expect(threads.snapshot.count == 2, .serialized, "round \(round): iterations ran on \(threads.snapshot.count) thread(s)")
        }
    }
}

enum ApplyNested: BehaviourRule {
    static let id = "apply.nested"
    static let title = "Nested apply completes: 32 × 32 × 32 iterations, each exactly once."
    static let source = "libdispatch tests/dispatch_apply.c (nested dispatch_apply, 32768 total)"

    static let forbidden: [Outcome] = [.notOnce]

    static func check<E: Engine>(_ engine: E) throws {
        let hits = IndexCounters(32 * 32 * 32)
        engine.apply(iterations: 32) { outer in
            engine.apply(iterations: 32) { middle in
                engine.apply(iterations: 32) { inner in
                    hits.hit((outer * 32 + middle) * 32 + inner)
                }
            }
        }
        let wrong = hits.wrong()
        try expect(wrong.isEmpty, .notOnce, "nested apply ran indices other than once: \(wrong.map { "\($0.index)×\($0.hits)" })")
    }
}

enum ApplyBusyPool: BehaviourRule {
    static let id = "apply.busy-pool"
    static let title = "apply completes while every worker is busy with long blocks: the caller takes part."
    static let source = "dispatch_apply(3): the calling thread participates; libdispatch tests/dispatch_apply.c"

    static let forbidden: [Outcome] = [.missing, .late, .notOnce]

    static func check<E: Engine>(_ engine: E) throws {
        // Occupy the workers with spinning blocks (spinning, not blocking: a pool that grows when workers block
        // must not be what rescues apply). They stop on release, or give up after 3 s.
        let busy = 16
        let release = Counter()
        let gaveUp = Counter()
        let started = Latch(1)
        let stopped = Latch(busy)
        for _ in 0..<busy {
            engine.globalQueue.async {
                started.countDown()
                let end = Deadline.now() + .seconds(3)
                while release.value == 0 {
                    if Deadline.now() >= end {
                        gaveUp.add()
                        break
                    }
                }
                stopped.countDown()
            }
        }
        defer { release.add() }
        try expectOpens(started, "a busy block starting")
        let hits = IndexCounters(100)
        engine.apply(iterations: 100) { index in hits.hit(index) }
        let waitedForWorkers = gaveUp.value
        release.add()
        try expect(
            waitedForWorkers == 0, .late, "apply returned only after \(waitedForWorkers) busy blocks gave up: the caller did not take part")
        try expect(hits.wrong().isEmpty, .notOnce, "indices run other than once: \(hits.wrong())")
        try expectOpens(stopped, "busy blocks stopping")
    }
}

enum ApplyFromSerial: BehaviourRule {
    static let id = "apply.from-serial"
    static let title = "apply called from a block on a serial queue completes, each index once."
    static let source = "dispatch_apply(3): may be called from any queue; libdispatch tests/dispatch_apply.c"

    static let forbidden: [Outcome] = [.missing, .notOnce]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.apply.from-serial")
        let problems = Recorder<String>()
        let done = Latch(10)
        for round in 0..<10 {
            queue.async {
                let hits = IndexCounters(1000)
                engine.apply(iterations: 1000) { index in hits.hit(index) }
                if !hits.wrong().isEmpty { problems.append("round \(round): \(hits.wrong())") }
                done.countDown()
            }
        }
        try expectOpens(done, "10 applies from a serial queue")
        try expect(problems.count == 0, .notOnce, problems.elements.prefix(2).joined(separator: "; "))
    }
}

enum ApplyRounds: BehaviourRule {
    static let id = "apply.rounds"
    static let title =
        "Many applies in a row over short, even iterations (5,000 applies of 64 iterations of 2 µs): each returns once every index ran exactly once, however often the threads taking part end their shares at the same moment."
    static let source =
        "dispatch_apply(3) ('dispatch_apply returns once all iterations ran'); libdispatch apply.c (the threads taking part count the iterations done)"

    static let forbidden: [Outcome] = [.missing, .notOnce]

    static func check<E: Engine>(_ engine: E) throws {
        let applies = 5000
        let iterations = 64
        let done = Counter()
        let wrong = Recorder<String>()
        // apply has no deadline: the applies run on a thread of their own, which the check waits for with one.
        let caller = BlockingCall {
            for round in 0..<applies {
                let hits = IndexCounters(iterations)
                engine.apply(iterations: iterations) { index in
                    Timing.spin(.microseconds(2))
                    hits.hit(index)
                }
                let off = hits.wrong()
                if !off.isEmpty { wrong.append("apply \(round): \(off.map { "\($0.index)×\($0.hits)" })") }
                done.add()
            }
        }
        try expect(
            caller.returns(within: .seconds(20)), .missing,
            "apply \(done.value) of \(applies) did not return within 20 s of the first")
        try expect(wrong.count == 0, .notOnce, "indices run other than once: \(wrong.elements.prefix(3).joined(separator: "; "))")
    }
}
