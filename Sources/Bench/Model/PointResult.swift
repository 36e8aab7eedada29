import ArenaContract

/// What measuring one point on one engine produced: the repetitions, or why there are none.
///
/// This is the raw record a child process sends back; statistics and reports are derived from it, never stored in it.
public struct PointResult: Sendable, Codable {
    /// The engine's registry name.
    public let engine: String
    /// The point measured.
    public let point: Point
    /// The settings it was measured under.
    public let settings: BenchSettings
    /// The measured repetitions, in order (empty when the point failed before its first).
    public var repetitions: [Repetition]
    /// Latency percentiles over every measured repetition merged, for workloads that record latencies.
    public var latency: LatencyPercentiles?
    /// What the process used while measuring (CPU, switches over the repetitions; threads and memory at peak).
    public var resources: ResourceUsage?
    /// Why the point has no number: a wrong answer, a crash, or the time budget.
    public var failure: Failure?
    /// Wall seconds the whole point took, warm-up, child start and calibration included.
    public var seconds: Double

    public init(
        engine: String, point: Point, settings: BenchSettings, repetitions: [Repetition] = [],
        latency: LatencyPercentiles? = nil, resources: ResourceUsage? = nil, failure: Failure? = nil,
        seconds: Double = 0
    ) {
        self.engine = engine
        self.point = point
        self.settings = settings
        self.repetitions = repetitions
        self.latency = latency
        self.resources = resources
        self.failure = failure
        self.seconds = seconds
    }

    /// One point measured in several processes, a repetition or more each (a workload that `needsFreshEngine`), as
    /// one result under `settings`: the repetitions in order; CPU time and context switches summed, threads and
    /// memory at their peak; latency percentiles estimated from the parts' (`LatencyPercentiles.estimate(merging:)`:
    /// percentiles do not add up). A failed part
    /// fails the point, as a failed trial does: its failure, and no repetitions. `parts` must not be empty.
    public init(merging parts: [PointResult], settings: BenchSettings, seconds: Double) {
        precondition(!parts.isEmpty, "PointResult(merging:): no parts")
        self.init(engine: parts[0].engine, point: parts[0].point, settings: settings, seconds: seconds)
        if let failed = parts.first(where: { !$0.succeeded }) {
            failure = failed.failure ?? Failure(.error, "no repetitions")
            return
        }
        repetitions = parts.flatMap(\.repetitions)
        latency = parts.count == 1 ? parts[0].latency : LatencyPercentiles.estimate(merging: parts.compactMap(\.latency))
        let usages = parts.compactMap(\.resources)
        if usages.count == parts.count {
            resources = ResourceUsage(
                peakThreads: usages.map(\.peakThreads).max()!,
                userSeconds: usages.map(\.userSeconds).reduce(0, +),
                systemSeconds: usages.map(\.systemSeconds).reduce(0, +),
                voluntarySwitches: usages.map(\.voluntarySwitches).reduce(0, +),
                involuntarySwitches: usages.map(\.involuntarySwitches).reduce(0, +),
                peakResidentKiB: usages.map(\.peakResidentKiB).max()!)
        }
    }

    /// The Google Benchmark name of the point.
    public var name: String { point.benchmarkName(engine: engine) }

    /// Whether the point has numbers to report.
    public var succeeded: Bool { failure == nil && !repetitions.isEmpty }
}

/// One measured repetition: a trial of a fixed operation count.
public struct Repetition: Sendable, Codable, Equatable {
    public var operations: Int
    public var items: Int
    public var wallNanoseconds: UInt64
    public var cpuNanoseconds: UInt64
    /// Latency percentiles of this repetition alone.
    public var latency: LatencyPercentiles?
    public var counters: [String: Double]
    /// The round of the run's schedule this repetition belongs to, from 0: repetitions of several contenders with one
    /// round were measured one right after another (`PairedPoint`), so their ratio is paired. `nil` for repetitions
    /// read back from a file that does not keep rounds.
    public var round: Int?

    public init(
        operations: Int, items: Int, wallNanoseconds: UInt64, cpuNanoseconds: UInt64,
        latency: LatencyPercentiles? = nil, counters: [String: Double] = [:], round: Int? = nil
    ) {
        self.operations = operations
        self.items = items
        self.wallNanoseconds = wallNanoseconds
        self.cpuNanoseconds = cpuNanoseconds
        self.latency = latency
        self.counters = counters
        self.round = round
    }

    /// Wall nanoseconds per operation.
    public var nanosecondsPerOperation: Double { Double(wallNanoseconds) / Double(max(operations, 1)) }
    /// CPU nanoseconds (all threads of the process) per operation.
    public var cpuNanosecondsPerOperation: Double { Double(cpuNanoseconds) / Double(max(operations, 1)) }
    /// Items per wall second.
    public var itemsPerSecond: Double { Double(items) * 1e9 / Double(max(wallNanoseconds, 1)) }
}

/// Why a point has no number.
public struct Failure: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// The workload found a wrong answer (or the engine stopped the process).
        case error
        /// The point exceeded its time budget and was stopped.
        case stopped
    }

    public var kind: Kind
    public var message: String
    /// What the workload diagnosed (`WorkloadError.symptom`), when it could tell.
    public var symptom: Symptom?

    public init(_ kind: Kind, _ message: String, symptom: Symptom? = nil) {
        self.kind = kind
        self.message = message
        self.symptom = symptom
    }
}

/// Resource figures of a point, read from the kernel.
public struct ResourceUsage: Sendable, Codable, Equatable {
    /// The most threads the process had at once (sampled every 5 ms from /proc/self/status; the sampler and the main
    /// thread count too).
    public var peakThreads: Int
    /// User and system CPU seconds over the measured repetitions.
    public var userSeconds: Double
    public var systemSeconds: Double
    /// Context switches over the measured repetitions: the thread gave up the CPU (voluntary: it blocked) or was
    /// preempted (involuntary).
    public var voluntarySwitches: Int
    public var involuntarySwitches: Int
    /// The largest resident set the process had, in KiB (warm-up included).
    public var peakResidentKiB: Int

    public init(
        peakThreads: Int, userSeconds: Double, systemSeconds: Double, voluntarySwitches: Int,
        involuntarySwitches: Int, peakResidentKiB: Int
    ) {
        self.peakThreads = peakThreads
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.voluntarySwitches = voluntarySwitches
        self.involuntarySwitches = involuntarySwitches
        self.peakResidentKiB = peakResidentKiB
    }
}
