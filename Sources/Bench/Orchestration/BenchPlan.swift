import ArenaContract

/// What a run measures, in order: each workload, on each engine it measures, at each of its points.
public struct BenchPlan: Sendable {
    /// One point of one workload on one engine.
    public struct Entry: Sendable {
        public let workload: any Workload
        public let engine: String
        public let point: Point

        /// The request a child process gets for this entry.
        public func request(_ settings: BenchSettings) -> PointRequest {
            PointRequest(engine: engine, point: point, settings: settings)
        }
    }

    /// A workload an engine measures none of the points of, and why.
    public struct Omission: Sendable, Equatable, CustomStringConvertible {
        public let workload: String
        public let engine: String
        /// What the engine lacks for the workload's first point ("needs dispatch-objects: …"), or that the workload
        /// does not measure the engine.
        public let reason: String

        /// "contention on foundation: needs dispatch-objects: …".
        public var description: String { "\(workload) on \(engine): \(reason)" }
    }

    public let settings: BenchSettings
    public let entries: [Entry]
    /// Each workload and engine pair with no entry, in plan order: what a run that measures nothing says.
    public let omissions: [Omission]

    /// The plan for `workloads` on the engines `engines` describe, in the order given, leaving out a point on an
    /// engine that lacks one of the point's requirements (`Workload.requirements(of:)`, checked by
    /// `EngineProfile.missing`).
    public init(workloads: [any Workload], engines: [EngineProfile], settings: BenchSettings) {
        self.settings = settings
        var entries: [Entry] = []
        var omissions: [Omission] = []
        for workload in workloads {
            for engine in engines {
                guard workload.measures(engine: engine.name) else {
                    omissions.append(
                        Omission(workload: workload.name, engine: engine.name, reason: "the workload does not measure this engine"))
                    continue
                }
                let points = workload.points(settings)
                let kept = points.filter { engine.has(workload.requirements(of: $0)) }
                entries += kept.map { Entry(workload: workload, engine: engine.name, point: $0) }
                if kept.isEmpty {
                    let lack = points.first.flatMap { engine.missing(workload.requirements(of: $0)) }
                    omissions.append(
                        Omission(workload: workload.name, engine: engine.name, reason: lack.map(String.init(describing:)) ?? "no points"))
                }
            }
        }
        self.entries = entries
        self.omissions = omissions
    }
}

/// Where a run is, for a progress display.
public struct BenchProgress: Sendable {
    /// The entry about to be measured.
    public let entry: BenchPlan.Entry
    /// Its position, from 1, and the number of entries.
    public let index: Int
    public let count: Int
    /// Seconds since the run started.
    public let elapsed: Double
    /// Seconds the rest of the run should take, from the mean time of the points done so far (`nil` before the first).
    public let remaining: Double?
}

/// Runs a plan point by point, one child process at a time (two cores: points in parallel would measure each other).
public struct BenchSession: Sendable {
    public let plan: BenchPlan

    public init(plan: BenchPlan) { self.plan = plan }

    /// Measures every entry with `measure` (a child process in `arena bench`), tells `progress` before each and hands
    /// each result to `record` as soon as it is known, so an interrupted run keeps every finished point.
    public func run(
        measure: (PointRequest) -> PointResult,
        progress: (BenchProgress) -> Void,
        record: (PointResult, any Workload) throws -> Void
    ) rethrows {
        let start = Deadline.now()
        for (offset, entry) in plan.entries.enumerated() {
            let elapsed = (Deadline.now() - start).seconds
            let remaining = offset == 0 ? nil : elapsed / Double(offset) * Double(plan.entries.count - offset)
            progress(BenchProgress(entry: entry, index: offset + 1, count: plan.entries.count, elapsed: elapsed, remaining: remaining))
            try record(result(of: entry, measure: measure), entry.workload)
        }
    }

    /// The result of `entry`: one request; or, for a workload that `needsFreshEngine`, one request per repetition
    /// (each of one repetition and what is left of the point's budget), merged. The first failure ends the point.
    func result(of entry: BenchPlan.Entry, measure: (PointRequest) -> PointResult) -> PointResult {
        let settings = plan.settings
        guard entry.workload.needsFreshEngine, settings.repetitions > 1 else { return measure(entry.request(settings)) }
        let start = Deadline.now()
        var parts: [PointResult] = []
        while parts.count < settings.repetitions {
            let left = settings.budgetSeconds - (Deadline.now() - start).seconds
            guard left > 0 else {
                return PointResult(
                    engine: entry.engine, point: entry.point, settings: settings,
                    failure: Failure(
                        .stopped,
                        "exceeded the time budget of \(settings.budgetSeconds) s after \(parts.count) of \(settings.repetitions) repetitions"
                    ),
                    seconds: (Deadline.now() - start).seconds)
            }
            var single = settings
            single.repetitions = 1
            single.budgetSeconds = left
            let part = measure(PointRequest(engine: entry.engine, point: entry.point, settings: single))
            parts.append(part)
            if !part.succeeded { break }
        }
        return PointResult(merging: parts, settings: settings, seconds: (Deadline.now() - start).seconds)
    }
}
