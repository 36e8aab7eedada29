import ArenaContract

/// What a run measures, in order: each workload, on each engine it measures, at each of its points.
public struct BenchPlan: Sendable {
    /// One point of one workload on one engine.
    public struct Entry: Sendable {
        public let workload: any Workload
        public let engine: String
        public let point: Point

    }

    /// One point of one workload with every engine that measures it, in lineup order: what a run measures as a unit,
    /// its contenders' repetitions paired in rounds (`PairedPoint`).
    public struct Group: Sendable {
        public let workload: any Workload
        public let point: Point
        public let engines: [String]
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

    /// The plan for `workloads` on the engines `engines` describe, in the order given, at the points `selection`
    /// keeps (every point by default), leaving out a point on an engine that lacks one of the point's requirements
    /// (`Workload.requirements(of:)`, checked by `EngineProfile.missing`). A workload the selection keeps no point of
    /// is left out with no omission: the caller chose so (`PointSelection.check` says when that leaves nothing).
    public init(
        workloads: [any Workload], engines: [EngineProfile], settings: BenchSettings, selection: PointSelection = .all
    ) {
        self.settings = settings
        var entries: [Entry] = []
        var omissions: [Omission] = []
        for workload in workloads {
            let points = workload.points(settings).filter(selection.keeps)
            if points.isEmpty && !selection.conditions.isEmpty { continue }
            for engine in engines {
                guard workload.measures(engine: engine.name) else {
                    omissions.append(
                        Omission(workload: workload.name, engine: engine.name, reason: "the workload does not measure this engine"))
                    continue
                }
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

    /// The entries grouped by point, in plan order: each workload's points in its order, each with the engines that
    /// measure it in lineup order.
    public var groups: [Group] {
        var groups: [Group] = []
        for entry in entries {
            if let index = groups.firstIndex(where: { $0.workload.name == entry.workload.name && $0.point == entry.point }) {
                groups[index] = Group(workload: entry.workload, point: entry.point, engines: groups[index].engines + [entry.engine])
            } else {
                groups.append(Group(workload: entry.workload, point: entry.point, engines: [entry.engine]))
            }
        }
        // The plan lists a workload's engines one after another; its points come in the workload's order.
        return groups.sorted { left, right in
            let workloads = entries.map(\.workload.name)
            let (a, b) = (workloads.firstIndex(of: left.workload.name)!, workloads.firstIndex(of: right.workload.name)!)
            if a != b { return a < b }
            let points = left.workload.points(settings)
            return (points.firstIndex(of: left.point) ?? 0) < (points.firstIndex(of: right.point) ?? 0)
        }
    }
}

/// Where a run is, for a progress display.
public struct BenchProgress: Sendable {
    /// The point about to be measured, with its contenders.
    public let group: BenchPlan.Group
    /// The round about to run (from 0), or `nil` when the point's rounds run back to back.
    public let round: Int?
    /// Its position, from 1, and the number of steps (points, or points times rounds where the rounds are spread).
    public let index: Int
    public let count: Int
    /// Seconds since the run started.
    public let elapsed: Double
    /// Seconds the rest of the run should take, from the mean time of the steps done so far (`nil` before the first).
    public let remaining: Double?
}

/// Runs a plan: each point's contenders in paired rounds (`PairedPoint`), one process measuring at a time (two cores:
/// processes measuring side by side would measure each other).
///
/// With a fresh process per round (the default), the rounds are spread over the whole run: round 0 of every point,
/// then round 1 of every point, and so on, first up to each point's first rounds (`BenchSettings.firstRounds`), then,
/// where the run shares out its later rounds, each point's share of the rest (`RoundAllocation`), spread in the same
/// way over the rest of the run. A point's rounds then meet what the machine does over minutes, not over the
/// seconds one point takes, so the spread of its rounds, and the interval built from it, includes the drift a second
/// run would meet (measured here: a contender 8% slower for minutes at a time); the cost is the same, every round
/// starting its processes anyway. A point whose processes live for the point (`--process-per point`) or the
/// sequential order takes its rounds back to back, and so does a point where a contender's start-up proved so slow
/// that it keeps its process (`PairedPoint.keepsSlowStarter`).
public struct BenchSession: Sendable {
    public let plan: BenchPlan
    public let order: TrialOrder
    public let lifetime: ProcessLifetime
    /// The seed every point's round orders come from (`RoundOrder`).
    public let seed: UInt64

    public init(plan: BenchPlan, order: TrialOrder = .interleaved, lifetime: ProcessLifetime = .round, seed: UInt64) {
        self.plan = plan
        self.order = order
        self.lifetime = lifetime
        self.seed = seed
    }

    /// Measures every point, starting each contender's processes with `start` (a child of this program in `arena
    /// bench`), tells `progress` before each step and hands each point to `record` after each of its rounds (`done`
    /// after its last), so that the caller can keep every finished round (`RecordWriter` writes them at checkpoints).
    public func run(
        start: (TrialRequest) -> any TrialProcess,
        spinner: Spinner,
        progress: (BenchProgress) -> Void,
        record: (MeasuredPoint, any Workload, _ done: Bool) throws -> Void
    ) rethrows {
        let began = Deadline.now()
        let groups = plan.groups
        let points = Dictionary(groups.map { ($0.workload.name, 1) }, uniquingKeysWith: +)
        var schedules = groups.map { group in
            PairedPoint(
                point: group.point, workload: group.workload, engines: group.engines, settings: plan.settings, order: order,
                lifetime: lifetime, seed: seed, rounds: plan.settings.rounds(forPoints: points[group.workload.name]!))
        }
        func request(_ group: BenchPlan.Group, _ engine: String, _ budget: Double) -> TrialRequest {
            TrialRequest(
                engine: engine, point: group.point, settings: plan.settings,
                spinnerStepsPerMicrosecond: spinner.stepsPerMicrosecond, budgetSeconds: budget,
                // Waiting for the other contenders' turns included, with room to start and answer.
                lifetimeSeconds: plan.settings.budgetSeconds * Double(group.engines.count + 1) + 60)
        }
        let spread = schedules.map { order == .interleaved && !$0.keepsProcesses }
        var steps = zip(spread, schedules).reduce(0) { $0 + ($1.0 ? $1.1.rounds : 1) }
        var step = 0
        func tell(_ group: BenchPlan.Group, round: Int?) {
            let elapsed = (Deadline.now() - began).seconds
            let remaining = step == 0 ? nil : elapsed / Double(step) * Double(steps - step)
            step += 1
            progress(BenchProgress(group: group, round: round, index: step, count: steps, elapsed: elapsed, remaining: remaining))
        }
        // The points that take their rounds back to back, in plan order, before the spread ones' rounds.
        for (index, group) in groups.enumerated() where !spread[index] {
            tell(group, round: nil)
            try record(schedules[index].run { start(request(group, $0, $1)) }, group.workload, true)
        }
        /// Runs the spread points' rounds up to `targets` (by point), in passes: a point with k rounds to go has its
        /// j-th in pass j·passes/k, so that every point's rounds spread over the passes, however many it has.
        func passes(upTo targets: [Int]) throws {
            let starts = schedules.map(\.nextRound)
            let counts = schedules.indices.map { spread[$0] && !schedules[$0].isDone ? max(0, targets[$0] - starts[$0]) : 0 }
            let passes = counts.max() ?? 0
            for pass in 0..<passes {
                for (index, group) in groups.enumerated() where counts[index] > 0 && !schedules[index].isDone {
                    let next = schedules[index].nextRound
                    guard next < targets[index], (next - starts[index]) * passes / counts[index] <= pass else { continue }
                    tell(group, round: next)
                    schedules[index].runRound { start(request(group, $0, $1)) }
                    // A contender that kept its slow-starting process: the point's other rounds at once, while it is warm.
                    while schedules[index].keepsSlowStarter && !schedules[index].isDone {
                        tell(group, round: schedules[index].nextRound)
                        schedules[index].runRound { start(request(group, $0, $1)) }
                    }
                    let done = schedules[index].isDone
                    try record(done ? schedules[index].finish() : schedules[index].measured, group.workload, done)
                }
            }
        }
        // Every point's first rounds (all of them, when the run shares none out), then the rest where they narrow the
        // ratios most (`RoundAllocation`), spread over the rest of the run in the same way.
        let first = groups.indices.map { plan.settings.firstRounds(forPoints: points[groups[$0].workload.name]!) }
        try passes(upTo: first)
        let open = schedules.indices.filter { spread[$0] && !schedules[$0].isDone }
        guard !open.isEmpty else { return }
        let candidates = open.map { index in
            RoundAllocation.Candidate(
                rounds: schedules[index].nextRound, evenRounds: schedules[index].rounds,
                secondsPerRound: schedules[index].secondsPerRound ?? 0,
                spreads: RoundAllocation.spreads(of: schedules[index].measured, headline: groups[index].workload.headline),
                mostRounds: schedules[index].roundsWithinBudget)
        }
        for (index, total) in zip(open, RoundAllocation.rounds(for: candidates)) {
            steps += total - schedules[index].rounds
            schedules[index].plan(rounds: total)
            if schedules[index].isDone { try record(schedules[index].finish(), groups[index].workload, true) }
        }
        try passes(upTo: schedules.map(\.rounds))
    }
}
