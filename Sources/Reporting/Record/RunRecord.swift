import ArenaContract
import Bench
import Conformance

/// The one machine-readable record of a run (`run.json` in its results folder), with a schema version: the machine,
/// the build, the contenders with their profiles and roles, the conformance results when they ran, every point with
/// every repetition and its counters, the C floor, the instruction counts. Every output (the console tables,
/// report.md and its summary, the plots' data, Google Benchmark JSON, CSV, pytest-benchmark JSON, comparisons) is made
/// from it by a reporter (`RunReporter`); nothing reads another output back.
///
/// Commands fill it in parts: `arena conform --out DIR` the conformance section, `arena bench --out DIR` the
/// benchmarks (and, with `--floor`, the floor), `arena instructions --out DIR` the counts; each keeps the sections it
/// does not write. A plain value; encoding it costs one pass over its repetitions.
public struct RunRecord: Sendable, Codable {
    /// What `schema` says in every record: a JSON file that says otherwise is not one.
    public static let schemaName = "dispatch-arena-run"
    /// The version this program writes and reads. Raise it when a field changes meaning or goes; a reader refuses
    /// another version with one line rather than misread it.
    public static let schemaVersion = 1
    /// The record's file in a results folder.
    public static let fileName = "run.json"

    public var schema = RunRecord.schemaName
    public var version = RunRecord.schemaVersion
    /// The machine and build that measured, when the section that wrote it last was taken.
    public var machine: MachineContext?
    /// The commit the measuring program was built from (`git describe --always --dirty` of its checkout), when known.
    public var commit: String?
    /// The contenders of the run (every one a section measured or checked), in lineup order, with the C floor's last.
    public var contenders: [ContenderRecord] = []
    /// The conformance matrix, when `arena conform --out` ran into the folder.
    public var conformance: ConformanceRecord?
    /// The benchmarks, when `arena bench` ran into the folder.
    public var benchmarks: BenchmarkRecord?
    /// The native C floor's points that matched the run's, when `arena bench --floor` joined them.
    public var floor: FloorRecord?
    /// Instructions per operation, when `arena instructions --out` counted them into the folder.
    public var instructions: InstructionTable?
    /// A peer's test suite with each contender as Swift's global executor (`arena report --peer-suite`), if run.
    public var peerSuite: PeerSuiteRecord?
    /// A real server under load with each contender as Swift's global executor (`arena report --server`), if run:
    /// reports show it as the workload `server` (`measuredWorkloads`).
    public var server: ServerLoadRecord?

    /// An empty record.
    public init() {}

    /// The contender called `name`, if the record has it.
    public func contender(named name: String) -> ContenderRecord? { contenders.first { $0.profile.name == name } }

    /// Adds `contenders` the record lacks, after its own, and takes the roles of those it has from them (the newest
    /// command's lineup knows them best).
    public mutating func merge(contenders more: [ContenderRecord]) {
        for contender in more {
            if let index = contenders.firstIndex(where: { $0.profile.name == contender.profile.name }) {
                contenders[index] = contender
            } else {
                contenders.append(contender)
            }
        }
    }
}

/// A contender as the record keeps it: its profile (name, summary, what it lacks and why) and the layers it is the
/// reference of (`Lineup`'s roles when the run was made).
public struct ContenderRecord: Sendable, Codable, Equatable {
    public var profile: EngineProfile
    /// The layers (`dispatch-objects`, `operation-queues`, `executors`) whose ratios it is taken against by default.
    public var roles: [Capability]
    /// Whether it is the native C floor (Google Benchmark's C++ programs), a limit rather than a contender.
    public var native: Bool

    public init(profile: EngineProfile, roles: [Capability] = [], native: Bool = false) {
        self.profile = profile
        self.roles = roles.sorted()
        self.native = native
    }

    /// The contender's name.
    public var name: String { profile.name }

    // A profile's limits are a dictionary keyed by capability, which JSON would write as an array of pairs in hash
    // order: written here as an object keyed by the capability's name, so a record's bytes repeat.
    // Its deviations are written only where it has some (`deviations`; a record from before they were kept has none).
    enum CodingKeys: String, CodingKey { case name, summary, limits, deviations, roles, native }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var limits: [Capability: String] = [:]
        for (name, reason) in try container.decode([String: String].self, forKey: .limits) {
            guard let capability = Capability(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .limits, in: container, debugDescription: "'\(name)' is not a capability")
            }
            limits[capability] = reason
        }
        profile = EngineProfile(
            name: try container.decode(String.self, forKey: .name), summary: try container.decode(String.self, forKey: .summary),
            limits: limits, deviations: try container.decodeIfPresent([KnownDeviation].self, forKey: .deviations) ?? [])
        roles = try container.decode([Capability].self, forKey: .roles)
        native = try container.decode(Bool.self, forKey: .native)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(profile.name, forKey: .name)
        try container.encode(profile.summary, forKey: .summary)
        try container.encode(Dictionary(uniqueKeysWithValues: profile.limits.map { ($0.key.rawValue, $0.value) }), forKey: .limits)
        if !profile.deviations.isEmpty { try container.encode(profile.deviations, forKey: .deviations) }
        try container.encode(roles, forKey: .roles)
        try container.encode(native, forKey: .native)
    }
}

/// The conformance matrix of a run and how it was made.
public struct ConformanceRecord: Sendable, Codable {
    /// The command line that checked (`arena conform --repeat 3`).
    public var command: String
    /// When it ran (ISO 8601).
    public var date: String
    /// Runs per rule.
    public var repeats: Int
    /// Whether it ran under `--stress`.
    public var stress: Bool
    /// The matrix: rules, contenders and every result.
    public var report: ConformanceReport

    public init(command: String, date: String, repeats: Int, stress: Bool, report: ConformanceReport) {
        self.command = command
        self.date = date
        self.repeats = repeats
        self.stress = stress
        self.report = report
    }
}

/// The benchmarks of a run and how they were made.
public struct BenchmarkRecord: Sendable, Codable {
    /// The command line that measured.
    public var command: String
    /// When it started (ISO 8601).
    public var date: String
    /// The seed of the rounds' orders (`RoundOrder`); `nil` for a run read from files written before records.
    public var seed: UInt64?
    /// How the contenders' repetitions were ordered.
    public var order: TrialOrder
    /// Which processes measured, under the interleaved order.
    public var lifetime: ProcessLifetime
    public var settings: BenchSettings
    /// The spin every process used (`Spinner.stepsPerMicrosecond`, calibrated once by the parent).
    public var spinnerStepsPerMicrosecond: Double?
    /// The contender every ratio was to be taken against (`--reference`); `nil`: each workload's layer's reference.
    public var reference: String?
    /// The workloads measured, in run order.
    public var workloads: [WorkloadRecord]
    /// Every point measured, in run order, with its contenders' results and rounds.
    public var points: [MeasuredPoint]
    /// Workload and engine pairs with no point, and why ("contention on foundation: needs dispatch-objects: …").
    public var omissions: [String]
    /// Wall seconds the benchmarks took so far.
    public var seconds: Double
    /// Whether the run reached its end: `false` while it measures, and so in the record of a run that was stopped (an
    /// interrupt, a time limit), whose points are those finished by then; `nil` in records written before this was kept.
    public var finished: Bool?

    /// Whether the run was stopped before its end (`finished` is `false`).
    public var stopped: Bool { finished == false }

    public init(
        command: String, date: String, seed: UInt64?, order: TrialOrder, lifetime: ProcessLifetime, settings: BenchSettings,
        spinnerStepsPerMicrosecond: Double?, reference: String?, workloads: [WorkloadRecord], points: [MeasuredPoint] = [],
        omissions: [String] = [], seconds: Double = 0, finished: Bool? = nil
    ) {
        self.command = command
        self.date = date
        self.seed = seed
        self.order = order
        self.lifetime = lifetime
        self.settings = settings
        self.spinnerStepsPerMicrosecond = spinnerStepsPerMicrosecond
        self.reference = reference
        self.workloads = workloads
        self.points = points
        self.omissions = omissions
        self.seconds = seconds
        self.finished = finished
    }
}

/// A workload as the record keeps it: what a reader needs without the workload's code (an outside workload's
/// record read by this package's `arena`).
public struct WorkloadRecord: Sendable, Codable, Equatable {
    public var name: String
    public var summary: String
    public var headline: Headline
    /// The layer it measures (`dispatch-objects`, `operation-queues`, `executors`): whose reference its ratios are to.
    public var layer: Capability?
    /// Whether its blocks block their threads where an engine cannot see (`Workload.blocksInBlocks`).
    public var blocksInBlocks: Bool
    /// Its points that need `blocking-in-blocks` (tasks waiting inside an engine's threads), by parameter path.
    public var blockingPoints: [String]

    public init(name: String, summary: String, headline: Headline, layer: Capability?, blocksInBlocks: Bool, blockingPoints: [String]) {
        self.name = name
        self.summary = summary
        self.headline = headline
        self.layer = layer
        self.blocksInBlocks = blocksInBlocks
        self.blockingPoints = blockingPoints
    }

    /// The record of `workload` under `settings`.
    public init(_ workload: any Workload, settings: BenchSettings) {
        self.init(
            name: workload.name, summary: workload.summary, headline: workload.headline,
            // The most specific layer it needs: executors and operation queues stand on GCD where they need it.
            layer: [Capability.executors, .operationQueues, .dispatchObjects].first(where: workload.requirements.contains),
            blocksInBlocks: workload.blocksInBlocks,
            blockingPoints: workload.points(settings).filter { workload.requirements(of: $0).contains(.blockingInBlocks) }
                .map(\.parameterPath))
    }
}

/// The native C floor's points that joined a run.
public struct FloorRecord: Sendable, Codable {
    /// The Google Benchmark JSON they came from, as given to `--floor`.
    public var source: String
    /// Its points that match a point of the run, each as one engine's result (`c-dispatch`, `c-mutex`).
    public var results: [PointResult]

    public init(source: String, results: [PointResult]) {
        self.source = source
        self.results = results
    }
}
