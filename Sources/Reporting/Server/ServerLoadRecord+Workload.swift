import ArenaContract
import Bench

// MARK: The server as a workload

extension ServerLoadRecord {
    /// The workload's name in reports, CSV and plots.
    public static let workloadName = "server"

    /// The server as a workload of the record: requests per second (higher is better), of the executors' layer, so
    /// that its ratios are to Swift's default executor (`swift`).
    public var workload: WorkloadRecord {
        WorkloadRecord(
            name: Self.workloadName,
            summary:
                "Examples/HummingbirdServer's arena-server (Hummingbird 2) loaded on loopback by wrk (-t\(load.threads) "
                + "-c\(load.connections), \(load.seconds) s a run) in paired rounds, with each contender as Swift's global "
                + "executor (`arena exec`), `swift` the server unmodified and `nio-takeover` NIO's own takeover: requests "
                + "per second at GET /plain (the HTTP path alone) and GET /work (a 1 ms sleep, a task group of 4, an actor "
                + "per request); every run's answers are checked before and after the load, and a run with a wrong answer, "
                + "an error or a failed request gives its variant no number at that endpoint",
            headline: .throughput(unit: "req/s"), layer: .executors, blocksInBlocks: false, blockingPoints: [])
    }

    /// The point of `endpoint`.
    static func point(_ endpoint: String) -> Point { Point(workload: workloadName, parameters: [Parameter("endpoint", endpoint)]) }

    /// The runs as the workload's points, one per endpoint: each variant's clean runs as repetitions tagged with their
    /// round (from 0), requests as the items over the run's wall time, wrk's percentiles as the latency (in
    /// nanoseconds, as every workload's). A variant with any run that gave no clean number has no number at that
    /// point: a wrong answer or a failed request is a failure, never a slower figure. Each round's order is the order
    /// its variants ran in. `settings` are the run's, which every point result carries.
    public func measuredPoints(settings: BenchSettings) -> [MeasuredPoint] {
        endpoints.map { endpoint in
            let here = runs.filter { $0.endpoint == endpoint }
            let point = Self.point(endpoint)
            let results = variants.filter { variant in here.contains { $0.variant == variant } }.map { variant in
                let own = here.filter { $0.variant == variant }
                var result = PointResult(
                    engine: variant, point: point, settings: settings, seconds: own.compactMap(\.seconds).reduce(0, +))
                if let failed = own.first(where: { !$0.ok }) {
                    result.failure = Failure(.error, "round \(failed.round): \(failed.problem ?? "no clean number")")
                    return result
                }
                result.repetitions = own.map(Self.repetition)
                result.latency = LatencyPercentiles.estimate(merging: result.repetitions.compactMap(\.latency))
                return result
            }
            let rounds = Set(here.map(\.round)).sorted().map { round in
                let ran = here.filter { $0.round == round }
                return RoundRecord(
                    order: ran.map(\.variant), trialSeconds: ran.compactMap(\.seconds).reduce(0, +), waitingCPUSeconds: nil,
                    waitingProcesses: 0)
            }
            return MeasuredPoint(point: point, results: results, rounds: rounds)
        }
    }

    /// A clean run as a repetition.
    static func repetition(_ run: Run) -> Repetition {
        let requests = run.requests ?? 0
        let nanoseconds = { (milliseconds: Double?) in (milliseconds ?? 0) * 1e6 }
        return Repetition(
            operations: requests, items: requests, wallNanoseconds: UInt64(((run.seconds ?? 0) * 1e9).rounded()), cpuNanoseconds: 0,
            latency: LatencyPercentiles(
                count: requests, p50: nanoseconds(run.p50), p90: nanoseconds(run.p90), p99: nanoseconds(run.p99), max: nanoseconds(run.max)),
            counters: run.othersCores.map { ["others_cores": $0] } ?? [:], round: run.round - 1)
    }
}

// MARK: Every workload of a record

extension RunRecord {
    /// The workloads a report shows, in order: the benchmarks' own, then the server's when the record has one (it
    /// replaces a benchmark workload of the same name).
    public var measuredWorkloads: [WorkloadRecord] {
        guard let server else { return benchmarks?.workloads ?? [] }
        return (benchmarks?.workloads ?? []).filter { $0.name != ServerLoadRecord.workloadName } + [server.workload]
    }

    /// Every point of `measuredWorkloads`, in run order: the benchmarks', then the server's, under the benchmarks'
    /// settings (the defaults when the folder has no benchmarks).
    public var measuredPoints: [MeasuredPoint] {
        guard let server else { return benchmarks?.points ?? [] }
        return (benchmarks?.points ?? []).filter { $0.point.workload != ServerLoadRecord.workloadName }
            + server.measuredPoints(settings: benchmarks?.settings ?? BenchSettings())
    }
}
