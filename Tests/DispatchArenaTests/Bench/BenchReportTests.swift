import ArenaCLI
import ArenaContract
import Bench
import Conformance
import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// The statistics and the reporters, on hand-made results: no engine runs, so every figure is known exactly.
    @Suite
    struct BenchReportTests {
        // MARK: Summary

        @Test("Summary of 1…5: median, mean, sample stddev, CV, min, max and a Student's t interval")
        func summaryOfFive() throws {
            let summary = try #require(Summary([5, 1, 4, 2, 3]))
            #expect(summary.count == 5)
            #expect(summary.median == 3)
            #expect(summary.mean == 3)
            #expect(close(summary.standardDeviation, 2.5.squareRoot()))
            #expect(close(summary.coefficientOfVariation, 2.5.squareRoot() / 3))
            #expect(summary.min == 1 && summary.max == 5)
            let halfWidth = 2.776 * 2.5.squareRoot() / 5.0.squareRoot()
            #expect(close(summary.confidenceLow, 3 - halfWidth))
            #expect(close(summary.confidenceHigh, 3 + halfWidth))
            #expect(summary.isNoisy)
        }

        @Test("Summary: even count, one value, empty, zero mean, the t table")
        func summaryEdges() throws {
            #expect(Summary([4, 1, 3, 2])?.median == 2.5)
            #expect(Summary([10, 20])?.median == 15)
            let single = try #require(Summary([7]))
            #expect(single.count == 1 && single.median == 7 && single.mean == 7 && single.min == 7 && single.max == 7)
            #expect(single.standardDeviation == 0 && single.coefficientOfVariation == 0)
            #expect(single.confidenceLow == 7 && single.confidenceHigh == 7)
            #expect(!single.isNoisy)
            #expect(Summary([]) == nil)
            let zeroMean = try #require(Summary([-1, 1]))
            #expect(zeroMean.coefficientOfVariation == 0 && zeroMean.standardDeviation > 0)
            // 100 ± 5: sample stddev 5 over [95, 105], CV 5%, not noisy; the interval uses t(1) = 12.706.
            let quiet = try #require(Summary([95, 105]))
            #expect(close(quiet.standardDeviation, 50.0.squareRoot()) && !quiet.isNoisy)
            #expect(close(quiet.confidenceHigh, 100 + 12.706 * 50.0.squareRoot() / 2.0.squareRoot()))
            #expect(Summary.tCritical(degreesOfFreedom: 1) == 12.706)
            #expect(Summary.tCritical(degreesOfFreedom: 4) == 2.776)
            #expect(Summary.tCritical(degreesOfFreedom: 30) == 2.042)
            #expect(Summary.tCritical(degreesOfFreedom: 31) == 1.96)
            #expect(Summary.cvThreshold == 0.10)
            // Large, close values: a one-pass formula would lose the spread to cancellation.
            let large = try #require(Summary([1e9 + 1, 1e9 + 2, 1e9 + 3]))
            #expect(close(large.standardDeviation, 1))
        }

        // MARK: PointStatistics

        @Test("PointStatistics: headline values per headline kind, counter summaries, and flags")
        func pointStatistics() throws {
            let result = Self.result(
                engine: "system", parameters: [Parameter("threads", 2)], threads: 2,
                perOperation: [100, 120, 80], counters: ["speedup": [1, 2, 3]])
            let time = PointStatistics(result, headline: .timePerOperation)
            #expect(time.headlineValues == [100, 120, 80])
            #expect(time.headlineSummary?.median == 100)
            #expect(time.realNanosecondsPerOperation?.mean == 100)
            #expect(time.cpuNanosecondsPerOperation?.median == 200)
            #expect(time.counters["speedup"]?.median == 2)
            #expect(time.counterNames == ["speedup"])
            #expect(time.isNoisy)
            #expect(time.flags == ["cv 20.0% > 10%"])

            let throughput = PointStatistics(result, headline: .throughput(unit: "ops/s"))
            #expect(throughput.headlineValues.map { ($0 * 1000).rounded() / 1000 } == [10_000_000, 8_333_333.333, 12_500_000])
            #expect(throughput.itemsPerSecond?.median == 10_000_000)

            let counter = PointStatistics(result, headline: .counter(name: "speedup", unit: "x", lowerIsBetter: false))
            #expect(counter.headlineValues == [1, 2, 3])
            #expect(counter.flags == ["cv 50.0% > 10%"])
            let missing = PointStatistics(result, headline: .counter(name: "lateness", unit: "µs", lowerIsBetter: true))
            #expect(missing.headlineValues.isEmpty && missing.headlineSummary == nil)
            #expect(missing.flags == ["counter 'lateness' missing in 3 of 3 repetitions"])

            let quiet = Self.result(engine: "system", parameters: [], perOperation: [100, 101, 99])
            #expect(PointStatistics(quiet, headline: .timePerOperation).flags.isEmpty)

            let failed = Self.failed(engine: "mutex", parameters: [], kind: .error, message: "total is 3, expected 4")
            let failedStatistics = PointStatistics(failed, headline: .timePerOperation)
            #expect(failedStatistics.flags == ["error: total is 3, expected 4"])
            #expect(failedStatistics.headlineSummary == nil && failedStatistics.realNanosecondsPerOperation == nil)
            let stopped = Self.failed(engine: "mutex", parameters: [], kind: .stopped, message: "exceeded the time budget")
            #expect(PointStatistics(stopped, headline: .timePerOperation).flags == ["stopped: exceeded the time budget"])
            // Pure: the same inputs give the same figures.
            #expect(PointStatistics(result, headline: .timePerOperation) == time)
        }

        // MARK: Google Benchmark JSON

        @Test("Markdown: a workload with a baseline gets a second table, the median speedup over it per engine")
        func baselineTable() {
            let withBaseline = Self.result(
                engine: "mutex", parameters: [Parameter("n", 8)], perOperation: [100, 100, 100],
                counters: ["speedup": [2.0, 4.0, 3.0]])
            let plain = Self.result(engine: "mutex", parameters: [Parameter("n", 8)], perOperation: [100, 100, 100])
            let text = ConsoleReport.markdown(TestRuns.workloads(ApplyWorkload(), [withBaseline]))
            #expect(text.contains("speedup over the baseline"))
            #expect(text.contains("| n:8 | ×3.00 |"))
            #expect(!ConsoleReport.markdown(TestRuns.workloads(ApplyWorkload(), [plain])).contains("speedup over the baseline"))
        }

        @Test("Markdown: pool-ramp gets a table of the round's figures per engine, the target met or not, and the pool's verdict")
        func poolRampTable() {
            func ramp(_ engine: String, finish: Double, start: Double, threads: Double) -> PointResult {
                let counters: [String: Double] = [
                    "finish_ms": finish, "first_start_ms": start, "peak_engine_threads": threads,
                    "target_ms": 150, "target_threads": 68, "fixed_pool_ms": 1600,
                ]
                return Self.result(
                    engine: engine, parameters: [Parameter("blocks", 64)], perOperation: [1, 1, 1],
                    counters: counters.mapValues { [$0, $0, $0] })
            }
            let results = [
                ramp("system", finish: 1050, start: 1049, threads: 5),
                ramp("mutex", finish: 140, start: 90, threads: 60),
                ramp("lockfree", finish: 120, start: 70, threads: 90),
                ramp("actor", finish: 1600.4, start: 1600.3, threads: 3),
                Self.failed(engine: "other", parameters: [Parameter("blocks", 64)], kind: .stopped, message: "budget"),
            ]
            let text = ConsoleReport.markdown(TestRuns.workloads(PoolRampWorkload(), results))
            #expect(
                text.contains(
                    "| blocks | engine | finish (ms) | first start (ms) | engine threads | target | meets target | fixed pool (ms) | pool |"
                ))
            #expect(text.contains("| 64 | system | 1.05k | 1.05k | 5 | ≤ 150 ms, ≤ 68 threads | no | 1.60k | ramps |"))
            #expect(text.contains("| 64 | mutex | 140 | 90.0 | 60 | ≤ 150 ms, ≤ 68 threads | yes | 1.60k | ramps |"))
            #expect(text.contains("| 64 | lockfree | 120 | 70.0 | 90 | ≤ 150 ms, ≤ 68 threads | no | 1.60k | explodes |"))
            #expect(text.contains("| 64 | actor | 1.60k | 1.60k | 3 | ≤ 150 ms, ≤ 68 threads | no | 1.60k | starves |"))
            #expect(text.contains("| 64 | other |  |  |  |  |  |  | stopped |"))
            #expect(!ConsoleReport.markdown(TestRuns.workloads(ApplyWorkload(), [results[0]])).contains("meets target"))
        }

        @Test(
            "Markdown: actor-contention gets a table per task count and engine: each guard's increments/s, how many times slower than the fastest, and which is"
        )
        func guardTable() {
            func point(_ engine: String, _ guarding: String, _ tasks: Int, ns: UInt64) -> PointResult {
                Self.result(
                    engine: engine, parameters: [Parameter("guard", guarding), Parameter("tasks", tasks)], perOperation: [ns, ns, ns])
            }
            let results = [
                point("system", "actor", 4, ns: 1000), point("system", "queue-sync", 4, ns: 500),
                point("system", "mutex", 4, ns: 10), point("system", "pthread", 4, ns: 20),
                point("swift", "actor", 4, ns: 2000), point("swift", "mutex", 4, ns: 25), point("swift", "pthread", 4, ns: 20),
                Self.failed(
                    engine: "swift", parameters: [Parameter("guard", "actor"), Parameter("tasks", 16)], kind: .stopped, message: "budget"),
            ]
            let text = ConsoleReport.markdown(TestRuns.workloads(ActorContentionWorkload(), results))
            // Synchronization.Mutex is never written `mutex`, beside the engine of that name.
            #expect(text.contains("| tasks | engine | actor | queue-sync | Synchronization.Mutex | pthread mutex | fastest |"))
            #expect(text.contains("| 4 | system | 1.00M (÷100) | 2.00M (÷50.0) | 100M (fastest) | 50.0M (÷2.00) | Synchronization.Mutex |"))
            #expect(text.contains("| 4 | swift | 500k (÷100) |  | 40.0M (÷1.25) | 50.0M (fastest) | pthread mutex |"))
            #expect(text.contains("| 16 | swift | stopped |  |  |  |  |"))
            #expect(!ConsoleReport.markdown(TestRuns.workloads(ApplyWorkload(), [results[0]])).contains("queue, actor or lock?"))
        }

        @Test(
            "summary: rules per contender from the record's matrix, each workload's verdict (a leader beyond the noise, or a tie) with the ratios to its layer's reference and the floor and their intervals, the guards' answer, the noisy and unstable points"
        )
        func summary() throws {
            func point(_ engine: String, _ parameters: [Parameter], _ ns: [UInt64]) -> PointResult {
                Self.result(engine: engine, parameters: parameters, perOperation: ns)
            }
            func threads(_ count: Int) -> [Parameter] { [Parameter("threads", count)] }
            func guarding(_ name: String, _ tasks: Int) -> [Parameter] { [Parameter("guard", name), Parameter("tasks", tasks)] }
            // ops/s: system 10M, 10M and at 4 threads 5M, 3.3M, 8.3M (its rounds spread ×2.5, so every ratio there is
            // unstable: its interval wider than ×2); mutex ×2, ×1, and ×2, ×3, ×1.2 at 4 threads (×1.57 over the three
            // points, its interval widened by the third); lockfree ×1.25, ×1.25, then ×0.5, ×0.75, ×0.3 and a failed
            // point: below system. mutex leads system beyond the noise. c-dispatch 40M at 1 thread, c-mutex 5M at 2
            // and 4.
            let contention = [
                point("system", threads(1), [100, 100, 100]), point("system", threads(2), [100, 100, 100]),
                point("system", threads(4), [200, 300, 120]),
                point("mutex", threads(1), [50, 50, 50]), point("mutex", threads(2), [100, 100, 100]),
                point("mutex", threads(4), [100, 100, 100]),
                point("lockfree", threads(1), [80, 80, 80]), point("lockfree", threads(2), [80, 80, 80]),
                point("lockfree", threads(4), [400, 400, 400]),
                Self.failed(engine: "lockfree", parameters: threads(8), kind: .error, message: "lost an update"),
                point("c-dispatch", threads(1), [25, 25, 25]),
                point("c-mutex", threads(2), [200, 200, 200]), point("c-mutex", threads(4), [200, 200, 200]),
            ]
            // ns/op, lower is better: actor's rounds ×0.8, ×1.2, ×1.0 of system's: no lead beyond the noise.
            let pingpong = [point("system", [], [100, 100, 100]), point("actor", [], [80, 120, 100])]
            // An executor workload: swift, the executors' reference, alone.
            let fanout = [point("swift", [], [10, 10, 10])]
            // Against swift, the executors' reference: system ×2, ×2.5, ×1 where both measured.
            let guards = [
                point("system", guarding("actor", 4), [1000, 1000, 1000]),
                point("system", guarding("queue-sync", 4), [500, 500, 500]),
                point("system", guarding("mutex", 4), [10, 10, 10]), point("system", guarding("pthread", 4), [20, 20, 20]),
                point("swift", guarding("actor", 4), [2000, 2000, 2000]), point("swift", guarding("mutex", 4), [25, 25, 25]),
                point("swift", guarding("pthread", 4), [20, 20, 20]),
                point("system", guarding("actor", 16), [1000, 1000, 1000]),
                point("system", guarding("mutex", 16), [40, 40, 40]), point("system", guarding("pthread", 16), [20, 20, 20]),
            ]
            let rules = Array(Catalog.builtIn.rules.filter { $0.layer == .dispatchObjects }.prefix(3))
            let (one, two, three) = (rules[0].id, rules[1].id, rules[2].id)
            let matrix = ConformanceReport(
                engines: ["system", "mutex", "foundation"].map { EngineDescription(EngineProfile(name: $0)) }, rules: rules,
                results: [
                    RuleResult(engine: "system", rule: one, outcomes: [RunOutcome(.pass)], seconds: 0),
                    RuleResult(engine: "system", rule: two, unsupported: "needs something"),
                    RuleResult(engine: "system", rule: three, outcomes: [RunOutcome(.pass)], seconds: 0),
                    RuleResult(engine: "mutex", rule: one, outcomes: [RunOutcome(.fail, "lost")], seconds: 0),
                    RuleResult(engine: "mutex", rule: two, outcomes: [RunOutcome(.pass)], seconds: 0),
                    RuleResult(engine: "mutex", rule: three, outcomes: [RunOutcome(.pass)], seconds: 0),
                    RuleResult(engine: "foundation", rule: two, outcomes: [RunOutcome(.timeout, "stuck")], seconds: 0),
                    RuleResult(engine: "foundation", rule: three, outcomes: [RunOutcome(.pass)], seconds: 0),
                ])
            let text = SummaryReport.markdown(
                TestRuns.analysis(
                    [
                        (ContentionWorkload(), contention), (PingPongWorkload(), pingpong), (TaskFanoutWorkload(), fanout),
                        (ActorContentionWorkload(), guards),
                    ], conformance: matrix))
            for line in [
                "| contender | kept (pass) | unsupported | failed | not checked |\n",
                "| system | 2 | 1 | 0 | 0 |\n", "| mutex | 2 | 0 | **1** | 0 |\n", "| foundation | 1 | 0 | **1** | 1 |\n",
                "| workload | headline | reference | verdict | best: ×reference (n) | runner-up | best ÷ runner-up or tied "
                    + "| ×c-dispatch (n) | ×c-mutex (n) |\n",
                "| contention | ops/s ↑ | system | **mutex** leads (*near the edge*) | mutex ×1.57 (1.07–2.29) (3) | system (itself) | "
                    + "×1.57 (1.07–2.29) | ×0.50 (0.50–0.50) (1) | ×2.00 (2.00–2.00) (2) |\n",
                "| pingpong | ns/op ↓ | system | tie: actor, system | actor ×0.99 (0.60–1.63) (1) | system (itself) | "
                    + "×0.99 (0.60–1.63) | - | - |\n",
                "| task-fanout | child tasks/s ↑ | swift | swift alone | swift (itself) (1) | - | - | - | - |\n",
                "| actor-contention | increments/s ↑ | swift | **system** leads | system ×1.71 (1.71–1.71) (3) | "
                    + "swift (itself) | ×1.71 (1.71–1.71) | - | - |\n",
                "The fastest guard is pthread mutex in 2, Synchronization.Mutex in 1 of the 3 rows of engine and task count. "
                    + "At 16 tasks on system: pthread mutex 50.0M, Synchronization.Mutex 25.0M (÷2.00), actor 1.00M (÷50.0) increments/s.",
                "**Order**: 3 paired rounds per point", "seed 7 (`arena bench --seed 7` replays the orders)",
                "**Noise**: 2 of 26 points have a CV above 10%",
                // mutex, lockfree and c-mutex at 4 threads (system's spread), and actor's pingpong (×0.8 to ×1.2 in 3 rounds).
                "4 of 13 ratios to the reference are unstable", "1 has no number (an error or a stop).",
            ] {
                #expect(text.contains(line), "the summary lacks \(line)\n\(text)")
            }
            let bare = SummaryReport.markdown(TestRuns.analysis([(PingPongWorkload(), pingpong)]))
            #expect(bare.contains("**Conformance**: not run for this folder."))
            #expect(bare.contains("no native C floor in this folder") && !bare.contains("Queue, actor or lock?"))
            #expect(bare.contains("**Noise**: 1 of 2 points have a CV above 10%") && bare.contains("0 have no number"))
            // Another reference, named: every ratio is to it.
            let toMutex = SummaryReport.markdown(TestRuns.analysis([(ContentionWorkload(), contention)], reference: "mutex"))
            #expect(toMutex.contains("| contention | ops/s ↑ | mutex | "), "\(toMutex)")
            #expect(toMutex.contains("| mutex (itself) (3) | system ×0.64 (0.44–0.93) |"), "\(toMutex)")
            #expect(!toMutex.contains("| contention | ops/s ↑ | system | "), "\(toMutex)")
        }

        @Test(
            "a verdict within 0.8 half-widths of the other answer is near the edge, naming the contenders that decide it, and the summary says so; a firm leader or a firm tie is not"
        )
        func verdictsNearTheEdge() throws {
            func pingpong(_ rounds: [String: [UInt64]]) -> [(any Workload, [PointResult])] {
                [
                    (
                        PingPongWorkload(),
                        rounds.sorted { $0.key < $1.key }.map { Self.result(engine: $0.key, parameters: [], perOperation: $0.value) }
                    )
                ]
            }
            func edge(_ rounds: [String: [UInt64]]) -> WorkloadAnalysis.NearEdge? {
                TestRuns.analysis(pingpong(rounds)).workloads[0].nearEdge
            }
            let system: [UInt64] = [100, 100, 100, 100]
            // actor at half of system's time, round after round: it leads far beyond the noise.
            #expect(edge(["system": system, "actor": [50, 51, 49, 50]]) == nil)
            // actor ×0.8 to ×1.2 of system: a tie with the estimate near 1, far from a leader.
            #expect(edge(["system": system, "actor": [80, 120, 100, 100]]) == nil)
            // actor ×0.90, ×0.95, ×0.85, ×0.92: logarithms with mean −0.1006 and standard error 0.0234, t(3) 3.18, so a
            // half-width of 0.0746: the interval clears 1 by 0.35 half-widths. A leader near the edge; mutex, at twice
            // system's time, is far behind and does not decide it.
            let leading = ["system": system, "actor": [90, 95, 85, 92], "mutex": [200, 200, 200, 200]]
            let leader = try #require(edge(leading))
            #expect(leader.contenders == ["actor", "system"] && abs(leader.distance - 0.35) < 0.01, "\(leader)")
            let text = SummaryReport.markdown(TestRuns.analysis(pingpong(leading)))
            #expect(text.contains("| pingpong | ns/op ↓ | system | **actor** leads (*near the edge*) | actor ×0.90 ("), "\(text)")
            #expect(text.contains("*near the edge* has its deciding interval's near end within 0.8 half-widths of 1"))
            // ×0.90, ×1.00, ×0.85, ×0.95: mean −0.0798, half-width 0.1117: the interval includes 1, its near end 0.29
            // half-widths beyond it. A tie near the edge.
            let tied = ["system": system, "actor": [90, 100, 85, 95]]
            let tie = try #require(edge(tied))
            #expect(tie.contenders == ["actor", "system"] && abs(tie.distance - 0.29) < 0.01, "\(tie)")
            #expect(TestRuns.analysis(pingpong(tied)).workloads[0].verdict.leader == nil)
            // Two runs' verdicts: agreement counted apart for the verdicts firm in both.
            let firm = TestRuns.analysis(pingpong(["system": system, "actor": [50, 51, 49, 50]]))
            let stability = Stability(TestRuns.analysis(pingpong(leading)), firm)
            #expect(stability.verdicts.map(\.firm) == [false] && stability.verdicts.map(\.agree) == [true])
            #expect(
                stability.summary.contains("of the 0 neither run calls near the edge, 0 agree; of the 1 near the edge in either, 0 do not"))
            #expect(Stability(firm, firm).summary.contains("of the 1 neither run calls near the edge, 1 agree"))
        }

        @Test(
            "a run stopped before its end says so at the top of the summary and fails --strict; one that ended, or a record from before runs said so, does not"
        )
        func stoppedRun() throws {
            // Two rounds of a point that gets at least three (the results' settings): cut short.
            let results = [("system", [UInt64]([100, 100])), ("actor", [50, 51])].map {
                Self.result(engine: $0.0, parameters: [], perOperation: $0.1)
            }
            var record = TestRuns.record([(PingPongWorkload(), results)])
            for (finished, stopped) in [(Bool?.none, false), (true, false), (false, true)] {
                record.benchmarks?.finished = finished
                let run = try RunAnalysis(record: record, known: ArenaWorkloads.all)
                let text = SummaryReport.markdown(run)
                #expect(text.contains("**Stopped before its end**") == stopped, "finished \(String(describing: finished)): \(text)")
                #expect(run.failures.failsRun() == stopped, "finished \(String(describing: finished))")
                if stopped {
                    #expect(text.contains("from the 1 point measured by then, 1 with fewer than the 3 rounds"), "\(text)")
                }
            }
            // The writer keeps the flag in run.json: false while measuring, true once it finishes.
            let directory = "/tmp/arena-stopped-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            record.benchmarks?.finished = false
            let writer = try RecordWriter(directory: directory, record: record, reporters: [], known: ArenaWorkloads.all)
            #expect(try RunRecord.load(directory, workloads: [], lineup: []).record.benchmarks?.finished == false)
            try writer.finish()
            #expect(try RunRecord.load(directory, workloads: [], lineup: []).record.benchmarks?.finished == true)
        }

        @Test("the noise mark: a CV above 10% and above twice the median of the run's other points, so it separates points")
        func noiseMark() throws {
            // Two values 1 ± cv/√2 have a sample CV of exactly cv.
            func summary(_ cv: Double) -> Summary { Summary([1 - cv / 2.squareRoot(), 1 + cv / 2.squareRoot()].map { $0 * 100 })! }
            let cv = { (value: Double) in summary(value).coefficientOfVariation }
            // A shared VM: every point's rounds vary by about 20%; one by 60% stands out, the rest are not marked.
            let shared = NoiseMark(cvs: [0.15, 0.18, 0.2, 0.2, 0.21, 0.22, 0.25, 0.6].map(cv))
            #expect(shared.marks(summary(0.6)) && !shared.marks(summary(0.25)) && !shared.marks(summary(0.15)))
            // A quiet machine: 2% everywhere, one point at 12% is marked, one at 8% is not (under 10%).
            let quiet = NoiseMark(cvs: [0.02, 0.02, 0.03, 0.02, 0.12, 0.08].map(cv))
            #expect(quiet.marks(summary(0.12)) && !quiet.marks(summary(0.08)))
            // Two points: the noisy one is held against the other alone, not against a median it raises itself.
            let two = NoiseMark(cvs: [0, cv(0.3)])
            #expect(two.marks(summary(0.3)) && !two.marks(summary(0)))
            #expect(shared.rule.contains("twice the median CV of the run's other points (this run's median: "), "\(shared.rule)")
        }

        @Test(
            "a reference with no number at any point of a workload gets no verdict: the summary and compare name a leader among the others, their ratios to a stand-in, and say whose the failure is"
        )
        func referenceWithoutNumbers() throws {
            func shape(_ name: String, _ width: Int, _ depth: Int) -> [Parameter] {
                [Parameter("shape", name), Parameter("width", width), Parameter("depth", depth)]
            }
            let (layered, chain) = (shape("layered", 8, 8), shape("chain", 1, 100))
            func stopped(_ parameters: [Parameter], symptom: Symptom?) -> PointResult {
                var result = Self.failed(engine: "foundation", parameters: parameters, kind: .stopped, message: "timed out")
                result.failure?.symptom = symptom
                return result
            }
            // op-graph, ns per graph: mutex at half of system's time in every round; foundation, the operation layer's
            // reference, stopped at both points, once with the symptom it documents as its own.
            func results(chainSymptom: Symptom?) -> [PointResult] {
                [
                    Self.result(engine: "system", parameters: layered, perOperation: [100, 102, 98]),
                    Self.result(engine: "system", parameters: chain, perOperation: [200, 204, 196]),
                    Self.result(engine: "mutex", parameters: layered, perOperation: [50, 51, 49]),
                    Self.result(engine: "mutex", parameters: chain, perOperation: [100, 102, 98]),
                    stopped(layered, symptom: .readyOperationNotStarted), stopped(chain, symptom: chainSymptom),
                ]
            }
            let run = TestRuns.analysis([(OperationGraphWorkload(), results(chainSymptom: .readyOperationNotStarted))])
            let workload = try #require(run.workloads.first)
            #expect(workload.reference == "system" && workload.unnumberedReference == "foundation")
            #expect(!workload.standings.map(\.engine).contains("foundation"), "\(workload.standings)")
            #expect(workload.verdict.leader == "mutex", "\(workload.verdict)")
            let text = SummaryReport.markdown(run)
            #expect(
                text.contains("| op-graph | operations/s ↑ | system (for foundation, which has no number) | **mutex** leads"),
                "\(text)")
            #expect(!text.contains("foundation alone") && !text.contains("foundation (itself)"), "\(text)")
            #expect(text.contains("op-graph: its reference `foundation` has no number at any point, so its verdict is among the others"))
            #expect(text.contains("docs/FINDINGS.md §12"), "\(text)")
            // Both stops are foundation's documented deviation: a result, not a failed run, unless strict.
            let failures = run.failures
            #expect(failures.entries.count == 2 && failures.entries.allSatisfy(\.isDocumentedDeviation))
            #expect(!failures.failsRun() && failures.failsRun(strict: true))
            #expect(text.contains("**Failures**: 2; 0 fail the run"), "\(text)")
            // A stop it documents nowhere may be the suite's: it fails the run, and the summary says so.
            let undocumented = TestRuns.analysis([(OperationGraphWorkload(), results(chainSymptom: nil))])
            #expect(undocumented.failures.failsRun())
            #expect(
                SummaryReport.markdown(undocumented).contains("documented nowhere as its own: it may be the suite's, and fails the run"))
            // An engine under test that stops fails the run however it is diagnosed.
            var mutexStops = results(chainSymptom: .readyOperationNotStarted)
            mutexStops[3] = Self.failed(engine: "mutex", parameters: chain, kind: .stopped, message: "timed out")
            mutexStops[3].failure?.symptom = .readyOperationNotStarted
            #expect(TestRuns.analysis([(OperationGraphWorkload(), mutexStops)]).failures.failsRun())
            // Two runs compared: the verdicts name mutex in both, never the contender without a number.
            let comparison = Comparison(baseline: run, candidate: run, threshold: 0.10)
            let table = ComparisonReport.table(comparison, baselineName: "A", candidateName: "B")
            #expect(comparison.stability.verdicts.map(\.first.leader) == ["mutex"], "\(table)")
            #expect(!table.contains("foundation alone"), "\(table)")
            // With every contender but the reference stopped as well, there is no verdict at all.
            let nobody = TestRuns.analysis([(OperationGraphWorkload(), [stopped(layered, symptom: nil), stopped(chain, symptom: nil)])])
            #expect(nobody.workloads[0].standings.isEmpty && nobody.workloads[0].verdict == .noReference)
            #expect(SummaryReport.markdown(nobody).contains("| op-graph | operations/s ↑ | none measured it |"))
        }

        @Test(
            "machines side by side: sorted by cores, a warning for different commits, the verdicts that differ named, headlines over the points both measured"
        )
        func machines() throws {
            func run(cores: Int, commit: String, actor: [UInt64], points: [Int]) throws -> RunAnalysis {
                var context = Self.context
                context.numCPUs = cores
                let results = points.flatMap { threads in
                    [
                        Self.result(
                            engine: "system", parameters: [Parameter("threads", threads)], threads: threads,
                            perOperation: [100, 101, 99, 100]),
                        Self.result(
                            engine: "actor", parameters: [Parameter("threads", threads)], threads: threads, perOperation: actor),
                    ]
                }
                var record = TestRuns.record([(ContentionWorkload(), results)], machine: context)
                record.commit = commit
                return try RunAnalysis(record: record, known: ArenaWorkloads.all)
            }
            // 16 cores first on the command line; its actor is twice as slow (half the ops/s) as system, and it also
            // measured 8 threads, which the 2-core run did not. On 2 cores the actor takes half system's time: it leads.
            let big = try run(cores: 16, commit: "bbbb", actor: [200, 202, 198, 200], points: [2, 4, 8])
            let small = try run(cores: 2, commit: "aaaa", actor: [50, 51, 49, 50], points: [2, 4])
            let report = MachinesReport([.init(folder: "runs/big", run: big), .init(folder: "runs/small", run: small)])
            #expect(report.machines.map(\.cores) == [2, 16] && report.machines.map(\.label) == ["small (2 cores)", "big (16 cores)"])
            #expect(
                report.warnings.count == 1 && report.warnings[0].contains("different commits (small (2 cores): aaaa, big (16 cores): bbbb)")
            )
            let workload = try #require(report.workloads.first)
            #expect(!workload.verdictsAgree)
            // Headlines over the two points both measured (2 and 4 threads): system 10M ops/s everywhere; actor 20M on
            // 2 cores, 5M on 16.
            let headlines = Dictionary(uniqueKeysWithValues: workload.headlines.map { ($0.engine, $0) })
            #expect(headlines["system"]?.points == 2 && headlines["actor"]?.points == 2)
            let actor = try #require(headlines["actor"]?.values)
            #expect(abs((actor[0] ?? 0) / 20e6 - 1) < 0.01 && abs((actor[1] ?? 0) / 5e6 - 1) < 0.01, "\(actor)")
            #expect(report.csv(workload).hasPrefix("engine,cores,machine,value\nsystem,2,1,"), "\(report.csv(workload))")
            #expect(report.coresTellApart)
            let text = report.markdown(plots: ["machines-contention.png"])
            #expect(text.contains("## Verdicts that differ\n\n1 of 1 workloads"), "\(text)")
            #expect(text.contains("| contention | **actor** leads system ×"), "\(text)")
            #expect(text.contains("| actor: ops/s (2) | 20.0M | 5.00M |"), "\(text)")
            #expect(text.contains("![contention across machines](plots/machines-contention.png)"))
            // The same runs again: nothing differs.
            let same = MachinesReport([.init(folder: "a", run: small), .init(folder: "b", run: small)])
            #expect(same.warnings.isEmpty && same.workloads.allSatisfy(\.verdictsAgree))
            #expect(same.markdown().contains("None: every workload names the same leader"))
        }

        @Test("threads: the most engine threads per workload and engine, bold and listed over cores + 2 unless the blocks block")
        func threadSection() {
            func point(_ engine: String, _ threads: Int, _ value: Int, counted: Double?) -> PointResult {
                Self.result(
                    engine: engine, parameters: [Parameter("threads", threads)], perOperation: [1, 1],
                    counters: counted.map { [PointRunner.engineThreadsCounter: [$0, $0 - Double(value)]] } ?? [:])
            }
            let contention = [
                point("system", 2, 0, counted: 9), point("system", 4, 0, counted: 3),
                point("lockfree", 2, 0, counted: 4), point("lockfree", 4, 1, counted: 5),
                point("c-mutex", 2, 0, counted: nil),
            ]
            let ramp = [point("system", 64, 0, counted: 70), point("lockfree", 64, 0, counted: 66)]
            let text = ThreadReport.markdown(
                TestRuns.analysis([(ContentionWorkload(), contention), (PoolRampWorkload(), ramp)]).workloads,
                engines: ["system", "lockfree", "c-mutex"], cores: 2)
            #expect(text.contains("| workload | bound | system | lockfree |\n"))  // c-mutex counted nothing
            #expect(text.contains("| contention | ≤ 4 | **9** | **5** |\n"))
            #expect(text.contains("| pool-ramp | none: its blocks block | 70 | 66 |\n"))
            #expect(text.contains("- `contention/system/threads:2`: 9\n- `contention/lockfree/threads:4`: 5\n"))
            #expect(!text.contains("threads:64`"))
            let within = ThreadReport.markdown(
                TestRuns.workloads(ContentionWorkload(), [point("lockfree", 2, 0, counted: 4)]), engines: ["lockfree"], cores: 2)
            #expect(within.contains("| contention | ≤ 4 | 4 |") && within.contains("No point of a workload"))
            #expect(
                ThreadReport.markdown(TestRuns.workloads(ContentionWorkload(), [contention[4]]), engines: ["c-mutex"], cores: 2)
                    == "Not counted in this folder's results.\n")
        }

        @Test("JSON: context, one entry per repetition, the four aggregates, the CV label, an error entry")
        func googleBenchmarkJSON() throws {
            let results = Self.sampleResults()
            let text = GoogleBenchmarkReport.json(results, headline: .timePerOperation, context: Self.context)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])

            let context = try #require(json["context"] as? [String: Any])
            for key in [
                "date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
                "load_avg", "library_version", "library_build_type", "json_schema_version", "swift_version", "kernel",
            ] {
                #expect(context[key] != nil, "context lacks \(key)")
            }
            #expect(context["executable"] as? String == "/tmp/a \"quoted\" path\\arena")
            #expect(context["json_schema_version"] as? Int == 1)
            let caches = try #require(context["caches"] as? [[String: Any]])
            #expect(caches.first?["type"] as? String == "Data" && caches.first?["size"] as? Int == 32768)
            #expect(caches.first?["num_sharing"] as? Int == 2)
            #expect((context["load_avg"] as? [Double])?.count == 3)

            let benchmarks = try #require(json["benchmarks"] as? [[String: Any]])
            func entries(_ name: String) -> [[String: Any]] { benchmarks.filter { $0["run_name"] as? String == name } }

            // A quiet point of three repetitions: three iterations, then mean, median, stddev, cv.
            let quietName = "contention/system/mode:lock/threads:2"
            let quiet = entries(quietName)
            #expect(quiet.count == 3 + 4)
            let iterations = quiet.filter { $0["run_type"] as? String == "iteration" }
            #expect(iterations.count == 3)
            #expect(iterations.map { $0["repetition_index"] as? Int } == [0, 1, 2])
            #expect(iterations.allSatisfy { $0["name"] as? String == quietName && $0["repetitions"] as? Int == 3 })
            #expect(iterations.allSatisfy { $0["threads"] as? Int == 2 && $0["time_unit"] as? String == "ns" })
            #expect(iterations.map { $0["real_time"] as? Double } == [100, 101, 99])
            #expect(iterations.map { $0["cpu_time"] as? Double } == [200, 202, 198])
            #expect(iterations.map { $0["iterations"] as? Int } == [1000, 1000, 1000])
            #expect(iterations[0]["items_per_second"] as? Double == 1e7)
            #expect(iterations[0]["handoffs"] as? Double == 4)
            #expect(iterations[0]["p99_ns"] as? Double == 990 && iterations[0]["max_ns"] as? Double == 5000)
            #expect(iterations.allSatisfy { $0["label"] == nil })
            let aggregates = quiet.filter { $0["run_type"] as? String == "aggregate" }
            #expect(aggregates.map { $0["name"] as? String } == ["_mean", "_median", "_stddev", "_cv"].map { quietName + $0 })
            #expect(aggregates.map { $0["aggregate_name"] as? String } == ["mean", "median", "stddev", "cv"])
            #expect(aggregates.map { $0["aggregate_unit"] as? String } == ["time", "time", "time", "percentage"])
            #expect(aggregates.allSatisfy { $0["repetition_index"] == nil && $0["iterations"] as? Int == 3 })
            #expect(aggregates[0]["real_time"] as? Double == 100)
            #expect(aggregates[1]["cpu_time"] as? Double == 200)
            #expect(close(try #require(aggregates[2]["real_time"] as? Double), 1))
            #expect(close(try #require(aggregates[3]["real_time"] as? Double), 0.01))
            #expect(aggregates[0]["handoffs"] as? Double == 5)
            #expect(aggregates[1]["p99_ns"] as? Double == 990)

            // A noisy point: every entry says so.
            let noisy = entries("contention/system/mode:lock/threads:4")
            #expect(noisy.count == 7)
            #expect(noisy.allSatisfy { $0["label"] as? String == "cv 20.0% > 10%" })

            // One repetition: no aggregates, as Google Benchmark.
            #expect(entries("contention/mutex/mode:lock/threads:2").count == 1)

            // A failed point: one entry with the error and zero times (compare.py needs the fields).
            let failed = entries("contention/mutex/mode:lock/threads:4")
            #expect(failed.count == 1)
            let error = try #require(failed.first)
            #expect(error["error_occurred"] as? Bool == true)
            #expect(error["error_message"] as? String == "error: total is \"3\",\nexpected\t4 — ü")
            #expect(error["run_type"] as? String == "iteration")
            #expect(error["real_time"] as? Double == 0 && error["cpu_time"] as? Double == 0 && error["iterations"] as? Int == 0)
            #expect(error["time_unit"] as? String == "ns" && error["label"] == nil)

            // Engines are families in order of first appearance; points are numbered within their engine.
            let indexes = Set(benchmarks.map { "\($0["run_name"]!) \($0["family_index"]!) \($0["per_family_instance_index"]!)" })
            #expect(
                indexes == [
                    "contention/system/mode:lock/threads:2 0 0", "contention/system/mode:lock/threads:4 0 1",
                    "contention/mutex/mode:lock/threads:2 1 0", "contention/mutex/mode:lock/threads:4 1 1",
                ])
        }

        @Test("JSON: NaN and infinities are never written; counters named like fields are renamed")
        func jsonNumbersFinite() throws {
            var result = Self.result(
                engine: "system", parameters: [], perOperation: [10, 10],
                counters: ["speedup": [.infinity, .nan], "threads": [1, 1]])
            result.repetitions[1].wallNanoseconds = 0
            let text = GoogleBenchmarkReport.json([result], headline: .timePerOperation, context: Self.context)
            #expect(!text.contains("nan") && !text.contains("inf"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let benchmarks = try #require(json["benchmarks"] as? [[String: Any]])
            #expect(benchmarks.first?["speedup"] as? Double == 0)
            #expect(benchmarks.first?["threads"] as? Int == 1)
            #expect(benchmarks.first?["counter_threads"] as? Double == 1)
            #expect(text.hasSuffix("}\n"))
        }

        // MARK: CSV

        @Test("CSV: header, one row per point, the parameter union, RFC 4180 quoting, failed rows")
        func csv() throws {
            var results = Self.sampleResults()
            results.append(
                Self.result(
                    engine: "odd, \"engine\"", parameters: [Parameter("mode", "a,b"), Parameter("batch", 8)],
                    perOperation: [50, 50]))
            let text = CSVReport.csv(results, headline: .timePerOperation)
            #expect(text.hasSuffix("\n"))
            let rows = Self.parseCSV(text)
            #expect(rows.count == 1 + results.count)
            #expect(
                rows[0] == [
                    "engine", "mode", "param_threads", "batch", "threads", "metric", "median", "mean", "stddev", "cv", "min", "max",
                    "ci95_low", "ci95_high", "real_ns_per_op", "cpu_ns_per_op", "items_per_second", "p50_ns", "p90_ns",
                    "p99_ns", "max_ns", "reference", "ratio", "ratio_low", "ratio_high", "handoffs", "flags", "peak_threads",
                    "user_s", "sys_s", "voluntary_switches", "involuntary_switches", "peak_rss_kib",
                ])
            #expect(rows.allSatisfy { $0.count == rows[0].count })
            func row(_ index: Int) -> [String: String] { Dictionary(uniqueKeysWithValues: zip(rows[0], rows[index + 1])) }

            let quiet = row(0)
            #expect(quiet["engine"] == "system" && quiet["mode"] == "lock" && quiet["param_threads"] == "2" && quiet["batch"] == "")
            #expect(quiet["threads"] == "2" && quiet["metric"] == "ns/op")
            #expect(quiet["median"] == "100.0" && quiet["mean"] == "100.0" && quiet["min"] == "99.0" && quiet["max"] == "101.0")
            #expect(Double(quiet["stddev"]!) == 1 && close(Double(quiet["cv"]!)!, 0.01))
            #expect(close(Double(quiet["ci95_low"]!)!, 100 - 4.303 / 3.0.squareRoot()))
            #expect(quiet["real_ns_per_op"] == "100.0" && quiet["cpu_ns_per_op"] == "200.0" && quiet["items_per_second"] == "10000000.0")
            #expect(quiet["p50_ns"] == "400.0" && quiet["max_ns"] == "9000.0")
            #expect(quiet["handoffs"] == "5.0" && quiet["flags"] == "")
            #expect(quiet["peak_threads"] == "6" && quiet["user_s"] == "0.5" && quiet["peak_rss_kib"] == "12345")

            #expect(row(1)["flags"] == "cv 20.0% > 10%")
            #expect(row(1)["p50_ns"] == "" && row(1)["handoffs"] == "")
            let failed = row(3)
            #expect(failed["engine"] == "mutex" && failed["param_threads"] == "4")
            #expect(failed["median"] == "" && failed["real_ns_per_op"] == "" && failed["peak_threads"] == "")
            #expect(failed["flags"] == "error: total is \"3\",\nexpected\t4 — ü")
            let odd = row(4)
            #expect(odd["engine"] == "odd, \"engine\"" && odd["mode"] == "a,b" && odd["batch"] == "8" && odd["param_threads"] == "")
            #expect(quiet["reference"] == "" && quiet["ratio"] == "", "no reference without a run")

            // From a run: each point's reference and its ratio to it, with the interval where there are rounds to pair.
            let ratios = Self.parseCSV(CSVReport.csv(TestRuns.workloads(ContentionWorkload(), Self.sampleResults())[0]))
            let byName = Dictionary(
                uniqueKeysWithValues: ratios.dropFirst().map { row in
                    let cells = Dictionary(uniqueKeysWithValues: zip(ratios[0], row))
                    return ("\(cells["engine"]!)/\(cells["param_threads"]!)", cells)
                })
            #expect(byName["system/2"]?["reference"] == "system" && byName["system/2"]?["ratio"] == "")
            // mutex at 2 threads: one repetition, paired with system's round 0: 100 / 150 ns, no interval.
            #expect(byName["mutex/2"]?["reference"] == "system" && close(Double(byName["mutex/2"]?["ratio"] ?? "") ?? 0, 100.0 / 150))
            #expect(byName["mutex/2"]?["ratio_low"] == "" && byName["mutex/4"]?["ratio"] == "")

            // The raw text: quoted cells, doubled quotes, the flags always quoted.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[1].hasPrefix("system,lock,2,,2,ns/op,100.0,"))
            #expect(lines[1].contains(",\"\","))
            #expect(text.contains("\"odd, \"\"engine\"\"\",\"a,b\","))
            #expect(text.contains("\"error: total is \"\"3\"\",\nexpected\t4 — ü\""))
        }

        // MARK: compare.py

        @Test("compare.py from Google Benchmark compares two reports")
        func compareScript() throws {
            let script = "/usr/share/benchmark/compare.py"
            guard try RequiredPackage.compareScript.require(), try RequiredPackage.sciPy.require() else { return }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-report-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            let before = Self.sampleResults()
            var after = before
            after[0].repetitions = after[0].repetitions.map {
                var slower = $0; slower.wallNanoseconds *= 2; return slower
            }
            // A point that fails in one run only, and one (`before[3]`) that fails in both: neither may break it.
            after[2].repetitions = []
            after[2].failure = Failure(.stopped, "exceeded the time budget")
            let old = directory.appendingPathComponent("old.json"), new = directory.appendingPathComponent("new.json")
            try GoogleBenchmarkReport.json(before, headline: .timePerOperation, context: Self.context).write(
                to: old, atomically: true, encoding: .utf8)
            try GoogleBenchmarkReport.json(after, headline: .timePerOperation, context: Self.context).write(
                to: new, atomically: true, encoding: .utf8)

            let run = try Self.run(["python3", script, "--no-color", "benchmarks", old.path, new.path])
            #expect(run.status == 0, "compare.py exited \(run.status): \(run.output)")
            #expect(!run.output.contains("Traceback"), "\(run.output)")
            let doubled = run.output.split(separator: "\n").first { $0.hasPrefix("contention/system/mode:lock/threads:2 ") }
            #expect(doubled?.contains("+1.0000") == true, "no +100% line for the doubled point in:\n\(run.output)")
            #expect(run.output.contains("contention/system/mode:lock/threads:2_mean"), "\(run.output)")
            #expect(run.output.contains("contention/mutex/mode:lock/threads:2 "), "\(run.output)")
        }

        // MARK: Machine context

        @Test("MachineContext.current describes this machine and build")
        func machineContext() throws {
            let context = MachineContext.current(executable: "/usr/bin/arena")
            #expect(context.executable == "/usr/bin/arena")
            #expect(context.numCPUs >= 1)
            #expect(context.loadAverage.count == 3)
            #expect(context.libraryVersion == "DispatchArena " + MachineContext.arenaVersion)
            #expect(["debug", "release"].contains(context.libraryBuildType))
            #expect(context.jsonSchemaVersion == 1)
            #expect(!context.kernel.isEmpty && !context.hostName.isEmpty)
            #expect(context.swiftVersion.first?.isNumber == true)
            // "2026-11-22T10:11:12+00:00"
            #expect(context.date.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/) != nil, "\(context.date)")
            #expect(context.caches.allSatisfy { $0.size > 0 && $0.level >= 1 && $0.numSharing >= 1 })
            let encoded = try JSONEncoder().encode(context)
            let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
            #expect(object["host_name"] != nil && object["num_cpus"] != nil && object["load_avg"] != nil)
            #expect(try JSONDecoder().decode(MachineContext.self, from: encoded) == context)
        }

        // MARK: Helpers

        static let context = MachineContext(
            date: "2026-11-22T10:11:12+00:00", hostName: "test-host", executable: "/tmp/a \"quoted\" path\\arena",
            numCPUs: 2, mhzPerCPU: 2500, cpuScalingEnabled: false,
            caches: [.init(type: "Data", level: 1, size: 32768, numSharing: 2)], loadAverage: [0.5, 0.25, 0.125],
            libraryVersion: "DispatchArena 0.6", libraryBuildType: "debug", swiftVersion: "6.3", kernel: "6.1.0-test")

        static let settings = BenchSettings(repetitions: 3, minimumSeconds: 0.01, budgetSeconds: 10, threads: [2, 4])

        /// A point whose repetitions took `perOperation` wall ns per operation (1000 operations each) and twice that
        /// in CPU.
        static func result(
            engine: String, parameters: [Parameter], threads: Int = 1, perOperation: [UInt64],
            counters: [String: [Double]] = [:], latency: LatencyPercentiles? = nil
        ) -> PointResult {
            let repetitions = perOperation.enumerated().map { index, nanoseconds in
                Repetition(
                    operations: 1000, items: 1000, wallNanoseconds: nanoseconds * 1000, cpuNanoseconds: nanoseconds * 2000,
                    latency: latency, counters: counters.mapValues { $0[index] })
            }
            return PointResult(
                engine: engine, point: Point(workload: "contention", parameters: parameters, threads: threads),
                settings: settings, repetitions: repetitions, latency: latency, seconds: 1)
        }

        static func failed(engine: String, parameters: [Parameter], threads: Int = 1, kind: Failure.Kind, message: String) -> PointResult {
            PointResult(
                engine: engine, point: Point(workload: "contention", parameters: parameters, threads: threads),
                settings: settings, failure: Failure(kind, message), seconds: 1)
        }

        /// Four points on two engines: quiet (with counters, latencies and resources), noisy, one repetition, failed.
        static func sampleResults() -> [PointResult] {
            func parameters(_ threads: Int) -> [Parameter] { [Parameter("mode", "lock"), Parameter("threads", threads)] }
            var quiet = result(
                engine: "system", parameters: parameters(2), threads: 2, perOperation: [100, 101, 99],
                counters: ["handoffs": [4, 5, 6]])
            for index in quiet.repetitions.indices {
                quiet.repetitions[index].latency = LatencyPercentiles(count: 1000, p50: 500, p90: 900, p99: 990, max: 5000)
            }
            quiet.latency = LatencyPercentiles(count: 3000, p50: 400, p90: 800, p99: 990, max: 9000)
            quiet.resources = ResourceUsage(
                peakThreads: 6, userSeconds: 0.5, systemSeconds: 0.25, voluntarySwitches: 10,
                involuntarySwitches: 2, peakResidentKiB: 12345)
            return [
                quiet,
                result(engine: "system", parameters: parameters(4), threads: 4, perOperation: [100, 120, 80]),
                result(engine: "mutex", parameters: parameters(2), threads: 2, perOperation: [150]),
                failed(
                    engine: "mutex", parameters: parameters(4), threads: 4, kind: .error,
                    message: "total is \"3\",\nexpected\t4 — ü"),
            ]
        }

        static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
        func close(_ a: Double, _ b: Double) -> Bool { Self.close(a, b) }

        /// An RFC 4180 reader, enough to check the writer: quoted cells may hold commas, quotes and line breaks.
        static func parseCSV(_ text: String) -> [[String]] {
            var rows: [[String]] = [], row: [String] = [], cell = "", quoted = false
            var characters = text.makeIterator()
            var pending: Character? = nil
            while let character = pending ?? characters.next() {
                pending = nil
                if quoted {
                    if character == "\"" {
                        let next = characters.next()
                        if next == "\"" { cell.append("\"") } else { quoted = false; pending = next }
                    } else {
                        cell.append(character)
                    }
                } else if character == "\"" {
                    quoted = true
                } else if character == "," {
                    row.append(cell); cell = ""
                } else if character == "\n" {
                    row.append(cell); cell = ""
                    rows.append(row); row = []
                } else {
                    cell.append(character)
                }
            }
            if !cell.isEmpty || !row.isEmpty { row.append(cell); rows.append(row) }
            return rows
        }

        /// Runs a program found on PATH, in `directory` (this process's by default); returns its exit status and its
        /// output and errors together.
        static func run(_ arguments: [String], in directory: String? = nil) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }
}
