import ArenaContract

/// A benchmark workload: a pattern of GCD use, measured on any engine, that checks its own answer.
///
/// `trial` is generic over the engine, so every engine call in the timed region is direct (specialised), never
/// through an existential. A trial that finds a wrong answer (a block dropped, an index run twice, a total off)
/// throws: a wrong engine gets an error, never a number.
public protocol Workload: Sendable {
    /// The registry name (`contention`, `apply`, …); the first segment of every benchmark name.
    var name: String { get }

    /// One sentence on what is measured.
    var summary: String { get }

    /// What the headline of each point is, for tables and CSV.
    var headline: Headline { get }

    /// The points to measure under `settings`.
    func points(_ settings: BenchSettings) -> [Point]

    /// The parameters of the points under `settings`, in the order the points list them, each with its kind and
    /// the values the points take (`.choice(Mode.self)`, `.integer("threads", settings.threads)`,
    /// `.duration("work", …)`): what `arena bench --point` and a child's point request are checked against, and what
    /// `arena list --workloads` shows. The default derives them from `points(settings)`.
    func parameters(_ settings: BenchSettings) -> [ParameterDeclaration]

    /// Whether the workload measures `engine` (most measure every engine).
    func measures(engine: String) -> Bool

    /// The capabilities an engine needs for this workload: the layer it measures (`dispatch-objects` for the GCD
    /// workloads, the default; `operation-queues`, `executors`) and anything else it uses.
    var requirements: Set<Capability> { get }

    /// The capabilities an engine needs for `point`: `requirements`, and whatever that point alone uses (a point
    /// measuring a serial queue's `sync` beside actors and locks needs `dispatch-objects`). A run leaves out the point
    /// on an engine lacking one, and measures the workload's other points there.
    func requirements(of point: Point) -> Set<Capability>

    /// The operation count of the first trial; the runner grows it until a trial lasts `minimumSeconds`.
    func initialOperations(_ point: Point) -> Int

    /// Whether every repetition must meet the engine as a process starts it, untouched by earlier trials (a pool's
    /// threads outlive a trial, so a second trial would meet the threads the first one grew). `arena bench` then
    /// measures each repetition in a child process of its own, and the runner runs no warm-up: every trial performs
    /// `initialOperations`. Run in one process (the tests), later repetitions meet what the earlier ones left.
    var needsFreshEngine: Bool { get }

    /// Whether the workload's blocks block their thread where the engine cannot see (a sleep, blocking I/O), so that
    /// a pool rightly starts threads for them. The others should keep an engine within `cores + 2` threads
    /// (`ThreadReport`).
    var blocksInBlocks: Bool { get }

    /// The figure `arena plot` draws from the workload's results CSV. `.generic` (the default): a layout chosen from
    /// the points' parameters; a built-in workload names the script it carries (`.bundled("contention.gp")`), and an
    /// outside one may bring a gnuplot script of its own as text (`.script(…)`).
    var figure: PlotFigure { get }

    /// The parameter on the x axis of the generic plot (`figure` `.generic`): a numeric one, such as `threads`. `nil`
    /// (the default): the numeric parameter with the most values.
    var plotAxis: String? { get }

    /// Performs about `operations` of the point's operation on `engine`, times the part that matters and checks
    /// the answer. Waits end at `context.deadline` with an error rather than hang.
    func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial

    /// Tables a report shows beside the workload's headline table, made from its results: what is special about the
    /// workload (`actor-contention`'s guards, `pool-ramp`'s verdicts) stays with it, and no report names a workload.
    /// Formats what was measured; measures nothing. Default: none.
    func extraTables(_ results: WorkloadResults) -> [ResultTable]

    /// A paragraph the report's summary gives for this workload beside its verdict, answering the question the
    /// workload asks (`actor-contention`: queue, actor or lock?); `nil` (the default) for none.
    func summaryAnswer(_ results: WorkloadResults) -> String?

    /// The same work without any engine (a plain loop on one thread), for workloads that report a speedup: its wall
    /// nanoseconds per operation at `operations`, measured once per point after the warm-up. `nil`: no baseline.
    func baseline(_ point: Point, operations: Int, context: TrialContext) throws(WorkloadError) -> Double?
}

extension Workload {
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        ParameterDeclaration.derived(from: points(settings))
    }
    public func measures(engine: String) -> Bool { true }
    public var requirements: Set<Capability> { [.dispatchObjects] }
    public func requirements(of point: Point) -> Set<Capability> { requirements }
    public func initialOperations(_ point: Point) -> Int { 1 }
    public var needsFreshEngine: Bool { false }
    public var blocksInBlocks: Bool { false }
    public var figure: PlotFigure { .generic }
    public var plotAxis: String? { nil }
    public func baseline(_ point: Point, operations: Int, context: TrialContext) throws(WorkloadError) -> Double? { nil }
}

/// What the headline number of a point is.
public enum Headline: Sendable, Equatable, Codable {
    /// Items per second (higher is better); `unit` names the item, as in "ops/s".
    case throughput(unit: String)
    /// Wall time per operation in nanoseconds (lower is better).
    case timePerOperation
    /// A counter the workload reports, with its unit (for example lateness in µs); `lowerIsBetter` says which way.
    case counter(name: String, unit: String, lowerIsBetter: Bool)

    /// Whether a larger headline number is the better one.
    public var higherIsBetter: Bool {
        switch self {
        case .throughput: true
        case .timePerOperation: false
        case .counter(_, _, let lowerIsBetter): !lowerIsBetter
        }
    }

    /// The column title of the headline in tables.
    public var title: String {
        switch self {
        case .throughput(let unit): unit
        case .timePerOperation: "ns/op"
        case .counter(let name, let unit, _): "\(name) (\(unit))"
        }
    }
}

/// The figure `arena plot` draws from a workload's results CSV (`Workload.figure`); every script it runs gets the
/// variables Sources/Reporting/Plots/Scripts/README.md lists (the CSV, the output folder, the engines in their order,
/// the parameters' values, `scriptdir`).
public enum PlotFigure: Sendable, Equatable {
    /// The generic plot: `generic.gp` over a layout chosen from the CSV (`PlotLayout`), with `plotAxis` as the x axis
    /// when it names a numeric parameter.
    case generic
    /// A script `arena plot` carries, by file name (`contention.gp`; Sources/Reporting/Plots/Scripts in a checkout),
    /// or the file of that name in the folder `arena plot --scripts` names instead.
    case bundled(String)
    /// A gnuplot script of the workload's own, as text. `arena plot` writes it into a temporary folder and runs it
    /// with the same variables as the bundled scripts, `scriptdir` among them (the folder holding `common.gp`,
    /// `roundtrip.gp` and `panelbars.gp`, which it may load); it writes `outdir/<workload>.png` and `.svg`.
    case script(String)
}

/// A wrong answer or a wedged engine, found by a workload: the point gets this message instead of a number.
public struct WorkloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// Whether the point ran out of time (a wait passed `TrialContext.deadline`), rather than computing wrongly.
    public let timedOut: Bool
    /// What the workload diagnosed, when it can tell: a contender that declares the symptom as a documented deviation
    /// of its own (`Engine.deviations`) has the failure named as such in reports.
    public let symptom: Symptom?

    public init(_ message: String, timedOut: Bool = false, symptom: Symptom? = nil) {
        self.message = message
        self.timedOut = timedOut
        self.symptom = symptom
    }

    /// Checks a total: throws "`what` is `actual`, expected `expected`" when they differ.
    public static func check<T: Equatable>(_ what: String, _ actual: T, expected: T) throws(WorkloadError) {
        if actual != expected { throw WorkloadError("\(what) is \(actual), expected \(expected)") }
    }

    /// Throws a timed-out error naming `what` unless `result` is success.
    public static func check(_ result: WaitResult, waitingFor what: String) throws(WorkloadError) {
        if result == .timedOut { throw WorkloadError("timed out waiting for \(what)", timedOut: true) }
    }

    public var description: String { message }
}

/// What a trial gets besides its point: the time it must end by, and a calibrated spin for simulated work.
public struct TrialContext: Sendable {
    /// Every wait inside a trial ends here; the point's time budget.
    public let deadline: Deadline
    /// Busy work of a given length, calibrated once per process.
    public let spinner: Spinner

    public init(deadline: Deadline, spinner: Spinner) {
        self.deadline = deadline
        self.spinner = spinner
    }
}

/// What one trial measured.
public struct Trial: Sendable {
    /// Operations performed (Google Benchmark's `iterations`); real and CPU time are reported per operation.
    public var operations: Int
    /// Items processed (for `items_per_second`); often equal to `operations`.
    public var items: Int
    /// Wall and CPU time of the timed region.
    public var elapsed: Stopwatch.Reading
    /// Per-operation latencies, for workloads that time single operations.
    public var latencies: LatencyRecorder?
    /// Extra figures, reported as Google Benchmark counters (for example `speedup`, `handler_calls_per_merge`).
    public var counters: [String: Double]

    public init(
        operations: Int, items: Int? = nil, elapsed: Stopwatch.Reading, latencies: LatencyRecorder? = nil,
        counters: [String: Double] = [:]
    ) {
        self.operations = operations
        self.items = items ?? operations
        self.elapsed = elapsed
        self.latencies = latencies
        self.counters = counters
    }
}
