import ArenaContract
import Bench
import Foundation
import Testing

extension ArenaTests {
    /// How a run shares out its later rounds (`RoundAllocation`): the chance a second run agrees, the spreads of a
    /// point's pairs, the greedy share within the even schedule's time, and a run whose noisy point gets the rounds.
    @Suite
    struct RoundAllocationTests {
        @Test("reproducibility: 1 without spread, falling with the spread, rising with the rounds, erf(1/√2) one deviation out")
        func reproducibility() {
            #expect(RoundAllocation.reproducibility(spread: 0, rounds: 4) == 1)
            let spreads = [0.01, 0.1, 0.3, 1.0]
            let chances = spreads.map { RoundAllocation.reproducibility(spread: $0, rounds: 7) }
            #expect(chances == chances.sorted(by: >) && chances[0] > 0.999 && chances[3] < 0.21, "\(chances)")
            let more = [4, 7, 14, 28].map { RoundAllocation.reproducibility(spread: 0.3, rounds: $0) }
            #expect(more == more.sorted(), "\(more)")
            // Two runs of two rounds: their means differ by spread · 1, so a spread of ln(1.15) is one deviation.
            let one = RoundAllocation.reproducibility(spread: log(RoundAllocation.agreement), rounds: 2)
            #expect(abs(one - 0.682_689) < 1e-5, "\(one)")
        }

        /// A result of `engine` with `values` (ns per operation) in rounds 0, 1, …, or a failure.
        static func result(_ engine: String, _ values: [Double], failed: Bool = false) -> PointResult {
            let point = Point(workload: "w", parameters: [])
            let settings = BenchSettings(repetitions: values.count)
            if failed { return PointResult(engine: engine, point: point, settings: settings, failure: Failure(.error, "wrong")) }
            return PointResult(
                engine: engine, point: point, settings: settings,
                repetitions: values.enumerated().map { round, value in
                    Repetition(operations: 1000, items: 1000, wallNanoseconds: UInt64(value * 1000), cpuNanoseconds: 0, round: round)
                })
        }

        @Test("spreads: one per pair of succeeded contenders with two rounds in common; a constant ratio spreads by 0")
        func spreads() throws {
            let point = MeasuredPoint(
                point: Point(workload: "w", parameters: []),
                results: [
                    Self.result("a", [100, 200, 100, 200]),
                    Self.result("b", [200, 400, 200, 400]),  // twice a in every round
                    Self.result("c", [100, 100, 100, 100]),
                    Self.result("d", [], failed: true),
                    Self.result("e", [100]),  // one round only: no pair
                ], rounds: [])
            let spreads = RoundAllocation.spreads(of: point, headline: .timePerOperation)
            // Pairs ab, ac, bc (d failed; e shares one round with each).
            #expect(spreads.count == 3)
            #expect(abs(spreads[0]) < 1e-12, "a and b keep one ratio: \(spreads)")
            // ln 2 apart in alternate rounds: the sample deviation of (0, ln2, 0, ln2).
            let expected = log(2.0) * (1.0 / 3.0).squareRoot()
            #expect(abs(spreads[1] - expected) < 1e-9 && abs(spreads[2] - expected) < 1e-9, "\(spreads)")
        }

        @Test(
            "the share: within the even schedule's time, a quiet point keeps its first rounds, a noisy one gets more, a hopeless one few, one without pairs its even share, none past three times its share"
        )
        func share() {
            typealias Candidate = RoundAllocation.Candidate
            let candidates = [
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: [0.01, 0.02]),  // quiet
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: [0.3, 0.25]),  // noisy
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: [5, 6]),  // hopeless
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: []),  // one contender
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 4, spreads: [0.3, 0.25]),  // noisy and dear
            ]
            let rounds = RoundAllocation.rounds(for: candidates)
            #expect(rounds[0] == 4, "\(rounds)")
            #expect(rounds[1] > 7 && rounds[1] <= 21, "\(rounds)")
            #expect(rounds[2] < rounds[1], "\(rounds)")
            #expect(rounds[3] == 7, "\(rounds)")
            #expect(rounds[4] < rounds[1], "a round four times dearer buys less: \(rounds)")
            // Spent: at most what the even schedule had left for the points with pairs (3 rounds of each, 1+1+1+4 s a round).
            let spent = zip(candidates, rounds).filter { !$0.0.spreads.isEmpty }.reduce(0.0) {
                $0 + Double($1.1 - $1.0.rounds) * $1.0.secondsPerRound
            }
            #expect(spent <= 21 && spent > 21 - 4, "spent \(spent) s of 21")
            // Alone, a noisy point stops at three times its even share.
            let alone = RoundAllocation.rounds(for: [
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: [0.3]),
                Candidate(rounds: 4, evenRounds: 100, secondsPerRound: 1, spreads: [0]),
            ])
            #expect(alone == [21, 4], "\(alone)")
            // Nor past what its contenders' budgets afford.
            let afforded = RoundAllocation.rounds(for: [
                Candidate(rounds: 4, evenRounds: 7, secondsPerRound: 1, spreads: [0.3], mostRounds: 6),
                Candidate(rounds: 4, evenRounds: 100, secondsPerRound: 1, spreads: [0]),
            ])
            #expect(afforded == [6, 4], "\(afforded)")
            // Rounds already run are never taken back.
            #expect(RoundAllocation.rounds(for: [Candidate(rounds: 9, evenRounds: 7, secondsPerRound: 1, spreads: [0])]) == [9])
        }

        @Test("what the budgets afford: half of what each contender has left, at its pace so far")
        func budget() throws {
            let settings = BenchSettings(repetitions: 6, minimumSeconds: 0.05, budgetSeconds: 0.05, threads: [1])
            let workload = TwoPoints()
            var schedule = PairedPoint(
                point: workload.points(settings)[0], workload: workload, engines: ["system", "mutex"], settings: settings,
                seed: 1)
            #expect(schedule.roundsWithinBudget == nil)
            let log = ScheduleTests.Log()
            // Each process's warm-up sleeps 5 ms, so a round costs each contender at least that: of the 45 ms or less
            // left, half affords at most 4 more rounds.
            schedule.runRound { engine, _ in
                let process = ScheduleTests.Process(engine: engine, log: log, failing: nil)
                process.slowWarmUp = true
                return process
            }
            let afforded = try #require(schedule.roundsWithinBudget)
            #expect(afforded >= 1 && afforded <= 5, "\(afforded)")
        }

        @Test(
            "a run: every point its first rounds, then the even schedule's other rounds to the point whose contenders' ratio varies, spread after"
        )
        func sharedInARun() throws {
            // Two points, so 9 rounds each (3 × 6 over 2 points), 6 of them first; mutex varies at k:2 only.
            let settings = BenchSettings(repetitions: 6, firstRounds: 4, minimumSeconds: 0.05, budgetSeconds: 30, threads: [1])
            #expect(settings.sharesRounds && settings.firstRounds(forPoints: 2) == 6)
            let plan = BenchPlan(
                workloads: [TwoPoints()], engines: ["system", "mutex"].map { EngineProfile(name: $0) }, settings: settings)
            let log = ScheduleTests.Log()
            var records: [(point: String, rounds: Int, done: Bool)] = []
            var counts: Set<Int> = []
            BenchSession(plan: plan, seed: 1).run(
                start: { request in
                    let noisy = request.engine == "mutex" && request.point.parameterPath == "k:2"
                    let process = ScheduleTests.Process(engine: request.engine, log: log, failing: nil)
                    process.label = request.point.parameterPath
                    if noisy { process.wall = { round in round % 2 == 0 ? 1000 : 3000 } }
                    return process
                },
                spinner: Spinner(stepsPerMicrosecond: 1),
                progress: { counts.insert($0.count) },
                record: { point, _, done in records.append((point.point.parameterPath, point.rounds.count, done)) })
            let quiet = records.filter { $0.point == "k:1" }, noisy = records.filter { $0.point == "k:2" }
            // The quiet point: its 6 first rounds and no more, done once the share was made.
            #expect(quiet.last.map { $0.rounds == 6 && $0.done } == true, "\(quiet)")
            #expect(quiet.filter(\.done).count == 1)
            // The noisy point: its first 6, its own 3 left and the quiet one's 3 at least, up to three times 9.
            let last = try #require(noisy.last)
            #expect(last.done && last.rounds >= 12 && last.rounds <= 27, "\(noisy)")
            #expect(noisy.filter(\.done).count == 1)
            // Its later rounds ran after the quiet point's last.
            let trials = log.events.filter { $0.hasPrefix("trial ") }
            let quietLast = try #require(trials.lastIndex { $0.hasSuffix("@k:1") })
            #expect(trials[(quietLast + 1)...].allSatisfy { $0.hasSuffix("@k:2") })
            #expect(trials.filter { $0.hasSuffix("@k:2") }.count == 2 * last.rounds)
            // The progress count: the even schedule's 18 steps, then the shared one's.
            #expect(counts == [18, 6 + last.rounds], "\(counts)")
        }
    }
}
