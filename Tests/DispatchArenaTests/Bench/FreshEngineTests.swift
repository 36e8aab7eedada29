import ArenaContract
import Bench
import Contenders
import Reporting
import Testing

extension ArenaTests {
    /// A workload that `needsFreshEngine` gets no warm-up, and `arena bench` measures each of its repetitions in a
    /// process of its own, merged into one point. Checked with a stand-in for the child process.
    @Suite
    struct FreshEngineTests {
        static let settings = BenchSettings(repetitions: 3, minimumSeconds: 0.05, budgetSeconds: 30, threads: [1], quick: true)

        /// What one stand-in child returns: one repetition whose counter `part` says which call made it.
        static func part(_ request: PointRequest, index: Int, failure: Failure? = nil) -> PointResult {
            guard failure == nil else {
                return PointResult(engine: request.engine, point: request.point, settings: request.settings, failure: failure, seconds: 1)
            }
            let repetition = Repetition(
                operations: 1, items: 1, wallNanoseconds: 1000, cpuNanoseconds: 500,
                counters: ["part": Double(index)])
            let resources = ResourceUsage(
                peakThreads: 4 + index, userSeconds: 0.25, systemSeconds: 0.5,
                voluntarySwitches: 10, involuntarySwitches: 1, peakResidentKiB: 1000 * (1 + index))
            return PointResult(
                engine: request.engine, point: request.point, settings: request.settings,
                repetitions: [repetition], resources: resources, seconds: 1)
        }

        /// Runs a plan of `workload` on one engine with `measure` as the child; returns the requests and the result.
        static func run(_ workload: any Workload, measure: (PointRequest, Int) -> PointResult) -> ([PointRequest], PointResult?) {
            var requests: [PointRequest] = []
            var recorded: PointResult?
            BenchSession(plan: BenchPlan(workloads: [workload], engines: [EngineProfile(name: "mutex")], settings: settings)).run(
                measure: { request in
                    requests.append(request)
                    return measure(request, requests.count - 1)
                },
                progress: { _ in },
                record: { result, _ in recorded = result })
            return (requests, recorded)
        }

        @Test("a workload that needs a fresh engine: a child per repetition, each of one repetition, merged in order")
        func childPerRepetition() throws {
            let (requests, recorded) = Self.run(StandIn(needsFreshEngine: true)) { Self.part($0, index: $1) }
            #expect(requests.count == 3)
            #expect(
                requests.allSatisfy {
                    $0.settings.repetitions == 1 && $0.settings.budgetSeconds > 0
                        && $0.settings.budgetSeconds <= Self.settings.budgetSeconds && $0.point == requests[0].point
                })
            let result = try #require(recorded)
            #expect(result.succeeded)
            #expect(result.settings == Self.settings)
            #expect(result.repetitions.map { $0.counters["part"] } == [0, 1, 2])
            let resources = try #require(result.resources)
            #expect(resources.peakThreads == 6 && resources.peakResidentKiB == 3000)
            #expect(resources.userSeconds == 0.75 && resources.systemSeconds == 1.5)
            #expect(resources.voluntarySwitches == 30 && resources.involuntarySwitches == 3)
        }

        @Test("the first failing child ends the point: its failure, no repetitions, no further child")
        func failureEndsPoint() throws {
            let (requests, recorded) = Self.run(StandIn(needsFreshEngine: true)) { request, index in
                Self.part(request, index: index, failure: index == 1 ? Failure(.error, "block 3 ran twice") : nil)
            }
            #expect(requests.count == 2)
            let result = try #require(recorded)
            #expect(!result.succeeded && result.repetitions.isEmpty && result.resources == nil)
            #expect(result.failure == Failure(.error, "block 3 ran twice"))
        }

        @Test("any other workload: one child with the run's settings")
        func oneChildOtherwise() throws {
            let (requests, recorded) = Self.run(StandIn(needsFreshEngine: false)) { Self.part($0, index: $1) }
            #expect(requests.map(\.settings) == [Self.settings])
            #expect(try #require(recorded).repetitions.count == 1)
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
                if fresh {
                    #expect(counts == [2, 2, 2], "a fresh-engine workload got a warm-up: \(counts)")
                } else {
                    #expect(counts.count > 3 && counts[0] == 2 && counts.last! > 2, "no warm-up: \(counts)")
                }
            }
        }
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
