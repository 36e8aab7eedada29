import ArenaContract
import Bench
import Harness
import Reporting
import Testing

extension ArenaTests {
    /// The schedule of a point (`PairedPoint`), with stand-in processes that log what they are asked: paired rounds in
    /// a shuffled order, one trial at a time, fresh processes per round, the warm-up's count handed on, failures that
    /// end one contender only, the old sequential order, and what waiting processes cost.
    @Suite
    struct ScheduleTests {
        static let settings = BenchSettings(repetitions: 4, minimumSeconds: 0.05, budgetSeconds: 30, threads: [1], quick: true)
        static let engines = ["system", "mutex", "lockfree"]

        /// Runs the schedule of `StandIn` on `engines` with stand-in processes; returns the point and the log.
        static func run(
            fresh: Bool = false, order: TrialOrder = .interleaved, lifetime: ProcessLifetime = .round, seed: UInt64 = 42,
            engines: [String] = engines, failing: (engine: String, round: Int)? = nil, slowStarter: String? = nil
        ) -> (MeasuredPoint, Log) {
            let log = Log()
            let workload = StandIn(needsFreshEngine: fresh)
            var schedule = PairedPoint(
                point: workload.points(settings)[0], workload: workload, engines: engines, settings: settings, order: order,
                lifetime: lifetime, seed: seed)
            schedule.slowStart = 0.002
            let measured = schedule.run { engine, budget in
                log.events.append("start \(engine)")
                #expect(budget > 0 && budget <= settings.budgetSeconds)
                let process = Process(engine: engine, log: log, failing: failing?.engine == engine ? failing?.round : nil)
                process.slowWarmUp = engine == slowStarter
                return process
            }
            return (measured, log)
        }

        @Test("interleaved: round r runs repetition r of every contender once, one after another, in the seed's shuffled order")
        func pairedRounds() throws {
            let (measured, log) = Self.run()
            #expect(measured.rounds.count == 4)
            for (round, record) in measured.rounds.enumerated() {
                #expect(
                    record.order == RoundOrder.order(Self.engines, seed: 42, point: measured.point.benchmarkName(engine: ""), round: round))
                #expect(Set(record.order) == Set(Self.engines) && record.waitingProcesses == 2)
                // The trials of the round, in its order, each alone.
                let trials = log.events.filter { $0.hasPrefix("trial ") && $0.hasSuffix(" \(round)") }
                #expect(trials == record.order.map { "trial \($0) \(round)" })
            }
            #expect(Set(measured.rounds.map(\.order)).count > 1, "four rounds of three contenders, never reshuffled")
            for result in measured.results {
                #expect(result.succeeded && result.repetitions.map(\.round) == [0, 1, 2, 3])
            }
            // The same seed replays every order; another seed gives other orders.
            #expect(Self.run().0.rounds.map(\.order) == measured.rounds.map(\.order))
            #expect(Self.run(seed: 43).0.rounds.map(\.order) != measured.rounds.map(\.order))
        }

        @Test(
            "a fresh process per contender and round: the first grows the count and measures the baseline, later ones warm with both")
        func freshProcessesPerRound() {
            let (measured, log) = Self.run()
            #expect(log.events.filter { $0.hasPrefix("start ") }.count == 12)
            for engine in Self.engines {
                let warmUps = log.events.filter { $0.hasPrefix("warm-up \(engine) ") }
                #expect(warmUps == ["warm-up \(engine) grow"] + Array(repeating: "warm-up \(engine) 1000 2.5", count: 3))
            }
            // No trial starts before every warm-up of its round is done: a round's processes are all ready first.
            let firstTrial = log.events.firstIndex { $0.hasPrefix("trial ") }!
            #expect(log.events[..<firstTrial].filter { $0.hasPrefix("warm-up") }.count == 3)
            #expect(measured.results.allSatisfy { $0.resources?.voluntarySwitches == 4 }, "four parts, summed")
        }

        @Test("one process per contender for the point: warmed up once, measured in every round, finished at the end")
        func processPerPoint() {
            let (measured, log) = Self.run(lifetime: .point)
            #expect(log.events.filter { $0.hasPrefix("start ") }.count == 3)
            #expect(log.events.filter { $0.hasPrefix("warm-up") }.count == 3)
            #expect(log.events.suffix(3).allSatisfy { $0.hasPrefix("finish ") })
            #expect(measured.results.allSatisfy { $0.repetitions.count == 4 })
        }

        @Test("a fresh-engine workload always gets a process per round, even with one per point asked")
        func freshEngineWorkload() {
            let (_, log) = Self.run(fresh: true, lifetime: .point)
            #expect(log.events.filter { $0.hasPrefix("start ") }.count == 12)
        }

        @Test("a contender that fails leaves the point with its failure and no repetitions; the others go on")
        func failureEndsOneContender() throws {
            let (measured, log) = Self.run(failing: ("mutex", 1))
            let mutex = try #require(measured.results.first { $0.engine == "mutex" })
            #expect(!mutex.succeeded && mutex.repetitions.isEmpty && mutex.failure == Failure(.error, "block 3 ran twice"))
            // Started for rounds 0 and 1, never again.
            #expect(!log.events.contains("trial mutex 2") && log.events.filter { $0 == "start mutex" }.count == 2)
            #expect(measured.rounds[2].order.contains("mutex") == false && measured.rounds[2].order.count == 2)
            #expect(measured.results.filter { $0.engine != "mutex" }.allSatisfy { $0.succeeded && $0.repetitions.count == 4 })
        }

        @Test("a contender whose first warm-up costs far more than its trial keeps that process for every round; the others do not")
        func slowStartKeepsProcess() throws {
            let (measured, log) = Self.run(slowStarter: "mutex")
            #expect(log.events.filter { $0 == "start mutex" }.count == 1)
            #expect(log.events.filter { $0 == "start system" }.count == 4)
            #expect(measured.keptProcesses == ["mutex"])
            #expect(try #require(measured.results.first { $0.engine == "mutex" }).repetitions.map(\.round) == [0, 1, 2, 3])
            #expect(Self.run().0.keptProcesses == nil)
            #expect(Self.run(fresh: true, slowStarter: "mutex").1.events.filter { $0 == "start mutex" }.count == 4)
        }

        @Test("what the waiting processes used while another's trial ran is recorded with each round")
        func waitingCPU() {
            let (measured, _) = Self.run()
            // Each stand-in uses 1 ms of CPU per trial of another contender: two others, three trials a round.
            #expect(measured.rounds.allSatisfy { $0.waitingCPUSeconds.map { abs($0 - 0.006) < 1e-9 } == true })
        }

        @Test("sequential: each contender's repetitions back to back in one process, one contender after another")
        func sequentialOrder() {
            let (measured, log) = Self.run(order: .sequential)
            #expect(measured.rounds.isEmpty)
            let trials = log.events.filter { $0.hasPrefix("trial ") }
            #expect(trials == Self.engines.flatMap { engine in (0..<4).map { "trial \(engine) \($0)" } })
            #expect(log.events.filter { $0.hasPrefix("start ") }.count == 3)
            let fresh = Self.run(fresh: true, order: .sequential).1
            #expect(fresh.events.filter { $0.hasPrefix("start ") }.count == 12)
        }

        @Test(
            "a run spreads each point's rounds over its length: round 0 of every point, then round 1; a point with processes for the point runs its rounds back to back"
        )
        func spreadRounds() {
            let workload = TwoPoints()
            let plan = BenchPlan(
                workloads: [workload], engines: ["system", "mutex"].map { EngineProfile(name: $0) }, settings: Self.settings)
            #expect(plan.groups.count == 2)
            for lifetime in [ProcessLifetime.round, .point] {
                let log = Log()
                var records: [(point: String, rounds: Int, done: Bool)] = []
                var steps: [Int?] = []
                BenchSession(plan: plan, lifetime: lifetime, seed: 1).run(
                    start: { request in
                        log.events.append("start \(request.engine) \(request.point.parameterPath)")
                        return Process(engine: request.engine, log: log, failing: nil)
                    },
                    spinner: Spinner(stepsPerMicrosecond: 1),
                    progress: { steps.append($0.round) },
                    record: { point, _, done in records.append((point.point.parameterPath, point.rounds.count, done)) })
                // Two points: measured as if three, each gets 6 rounds (3 × 4 over 2 points).
                if lifetime == .round {
                    #expect(records.map(\.point) == Array(repeating: ["k:1", "k:2"], count: 6).flatMap { $0 })
                    #expect(records.map(\.rounds) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
                    #expect(records.map(\.done) == Array(repeating: false, count: 10) + [true, true])
                    #expect(steps == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
                } else {
                    #expect(records.map(\.point) == ["k:1", "k:2"] && records.allSatisfy { $0.rounds == 6 && $0.done })
                    #expect(steps == [nil, nil])
                }
            }
        }

        @Test("the runner warms up an ordinary workload, and runs initialOperations at once for a fresh-engine one")
        func noWarmUpForFreshEngine() {
            for fresh in [false, true] {
                var counts: [Int] = []
                let runner = PointRunner(settings: Self.settings, spinner: Spinner(stepsPerMicrosecond: 1))
                let workload = StandIn(needsFreshEngine: fresh)
                let result = runner.measure(workload.points(Self.settings)[0], of: workload, engine: "mutex") { operations, _ in
                    counts.append(operations)
                    // A trial that reports 1 µs whatever its size: a warm-up grows it at least once.
                    return Trial(operations: operations, elapsed: Stopwatch.Reading(wallNanoseconds: 1000, cpuNanoseconds: 1000))
                }
                #expect(result.succeeded)
                #expect(result.repetitions.map(\.round) == [0, 1, 2, 3])
                if fresh {
                    #expect(counts == [2, 2, 2, 2], "a fresh-engine workload got a warm-up: \(counts)")
                } else {
                    #expect(counts.count > 4 && counts[0] == 2 && counts.last! > 2, "no warm-up: \(counts)")
                }
            }
        }

        @Test(
            "a process warmed with another's count keeps it, unless its warm-up says a trial of it would last over ten minimum times or under half of one: then it measures at a count that fits"
        )
        func processFitsItsCount() throws {
            let workload = StandIn(needsFreshEngine: false)
            let point = workload.points(Self.settings)[0]
            /// A session whose trials take `nanoseconds` per operation (reported, not slept), and the counts it ran.
            func session(_ nanoseconds: UInt64, _ counts: Log) -> PointSession {
                PointSession(
                    point: point, workload: workload, engine: "mutex", settings: Self.settings,
                    spinner: Spinner(stepsPerMicrosecond: 1)
                ) { operations, _ in
                    counts.events.append("\(operations)")
                    let wall = UInt64(operations) * nanoseconds
                    return Trial(operations: operations, elapsed: Stopwatch.Reading(wallNanoseconds: wall, cpuNanoseconds: wall))
                }
            }
            let first = session(1_000, Log())
            let known = try first.warmUp()
            #expect(Double(known) * 1e-6 >= Self.settings.minimumSeconds, "the first process's count: \(known)")
            // As fast, and five times slower (a trial of 5 minimum times): the count stays, the warm-up ran an eighth.
            for slower: UInt64 in [1, 5] {
                let counts = Log()
                let later = session(1_000 * slower, counts)
                #expect(try later.warmUp(operations: known) == known)
                #expect(counts.events == ["\(known / PointSession.knownWarmUpShare)"])
                #expect(try later.measure(round: 1).operations == known)
            }
            // A hundred times slower: a trial of the known count would last 100 minimum times; it measures at a count
            // whose trial lasts about 1.2 minimum times at its pace.
            let slow = session(100_000, Log())
            let fitted = try slow.warmUp(operations: known)
            let seconds = Double(fitted) * 1e-4
            #expect(fitted < known && seconds >= Self.settings.minimumSeconds && seconds < 1.3 * Self.settings.minimumSeconds)
            #expect(try slow.measure(round: 1).operations == fitted)
            // Five times faster: a trial of the known count would last a fifth of the minimum or so; it measures at a
            // count whose trial lasts about 1.2 minimum times at its pace.
            let fast = session(200, Log())
            let grown = try fast.warmUp(operations: known)
            let fastSeconds = Double(grown) * 2e-7
            #expect(grown > known && fastSeconds >= Self.settings.minimumSeconds && fastSeconds < 1.3 * Self.settings.minimumSeconds)
            #expect(try fast.measure(round: 1).operations == grown)
            // Never below the workload's initialOperations, never above ten times the known count, kept from half the
            // minimum to ten times it, and no pace, no change.
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 100, minimumSeconds: 0.05, floor: 2) == 2)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 1e-9, minimumSeconds: 0.05, floor: 2) == 10_000)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 0.00625, minimumSeconds: 0.05, floor: 2) == 1_000)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 0.00624, minimumSeconds: 0.05, floor: 2) == 2_404)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 0, minimumSeconds: 0.05, floor: 2) == 1_000)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 0.125, minimumSeconds: 0.05, floor: 2) == 1_000)
            #expect(PointSession.fitted(known: 1_000, warmed: 250, seconds: 0.126, minimumSeconds: 0.05, floor: 2) == 120)
        }

        @Test("a workload of fewer than three points gets more rounds per point: as many rounds over its points as three points would have")
        func roundsForFewPoints() {
            let settings = BenchSettings(repetitions: 6)
            #expect([1, 2, 3, 4, 12].map(settings.rounds(forPoints:)) == [18, 9, 6, 6, 6])
            #expect(BenchSettings(repetitions: 5).rounds(forPoints: 2) == 8)
        }

        @Test("the round order: a permutation, the same for the same seed, point and round, whatever else the run holds")
        func roundOrder() {
            let engines = ["a", "b", "c", "d", "e"]
            var seen: Set<[String]> = []
            for round in 0..<50 {
                let order = RoundOrder.order(engines, seed: 9, point: "p", round: round)
                #expect(order.sorted() == engines)
                #expect(order == RoundOrder.order(engines, seed: 9, point: "p", round: round))
                seen.insert(order)
            }
            #expect(seen.count > 20, "50 rounds gave only \(seen.count) orders of 120")
            #expect(
                RoundOrder.order(engines, seed: 9, point: "p", round: 0) != RoundOrder.order(engines, seed: 9, point: "q", round: 0)
                    || RoundOrder.order(engines, seed: 9, point: "p", round: 1) != RoundOrder.order(engines, seed: 9, point: "q", round: 1))
        }

        /// Every call the stand-in processes got, in order.
        final class Log: @unchecked Sendable {
            var events: [String] = []
            /// Trials run so far, by every process.
            var trialsRun = 0
        }

        /// A process that answers at once: it grows the count to 1000, measures 1 µs per repetition, and fails its
        /// trial of `failing` with a wrong answer when asked. Each trial it waits through costs it 1 ms of CPU.
        final class Process: TrialProcess {
            let engine: String
            let log: Log
            let failing: Int?
            /// Whether the warm-up takes 5 ms where a trial takes none (a slow start).
            var slowWarmUp = false
            /// The point it measures, added to its trials in the log as `@label`, when set.
            var label: String?
            /// The wall nanoseconds its repetition of each round reports.
            var wall: (Int) -> UInt64 = { _ in 1000 }
            var repetitions: [Repetition] = []
            let born: Int

            init(engine: String, log: Log, failing: Int?) {
                self.engine = engine
                self.log = log
                self.failing = failing
                born = log.trialsRun
            }

            func warmUp(operations known: Int?, baseline: Double?) -> Result<WarmUp, Failure> {
                log.events.append("warm-up \(engine) " + (known.map { "\($0) \(baseline ?? 0)" } ?? "grow"))
                if slowWarmUp { Threads.sleep(.milliseconds(5)) }
                return .success(WarmUp(operations: known ?? 1000, baseline: baseline ?? 2.5))
            }

            func measure(round: Int) -> Failure? {
                log.events.append("trial \(engine) \(round)" + (label.map { "@\($0)" } ?? ""))
                log.trialsRun += 1
                ownTrials += 1
                if failing == round { return Failure(.error, "block 3 ran twice") }
                repetitions.append(
                    Repetition(operations: 1000, items: 1000, wallNanoseconds: wall(round), cpuNanoseconds: 1000, round: round))
                return nil
            }
            private var ownTrials = 0

            func finish() -> PointResult {
                log.events.append("finish \(engine)")
                return PointResult(
                    engine: engine, point: StandIn(needsFreshEngine: false).points(ScheduleTests.settings)[0],
                    settings: ScheduleTests.settings, repetitions: repetitions,
                    resources: ResourceUsage(
                        peakThreads: 3, userSeconds: 0.1, systemSeconds: 0, voluntarySwitches: 1, involuntarySwitches: 0,
                        peakResidentKiB: 100))
            }

            func cpuNanoseconds() -> UInt64? { UInt64(log.trialsRun - born - ownTrials) * 1_000_000 }
        }
    }
}

/// A workload of two points that is never run (stand-in processes measure it).
struct TwoPoints: Workload {
    let name = "two-points"
    let summary = "two points"
    let headline = Headline.timePerOperation
    func points(_ settings: BenchSettings) -> [Point] { [1, 2].map { Point(workload: name, parameters: [Parameter("k", $0)]) } }
    func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
        throw WorkloadError("never measured")
    }
}

/// A workload that is never run: it only says whether it needs a fresh engine.
private struct StandIn: Workload {
    let needsFreshEngine: Bool
    let name = "stand-in"
    let summary = "says whether it needs a fresh engine"
    let headline = Headline.timePerOperation
    func points(_ settings: BenchSettings) -> [Point] { [Point(workload: name, parameters: [Parameter("k", 1)])] }
    func initialOperations(_ point: Point) -> Int { 2 }
    func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
        throw WorkloadError("never measured")
    }
}
