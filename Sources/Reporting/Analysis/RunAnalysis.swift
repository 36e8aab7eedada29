import ArenaContract
import Bench

/// A run record read for reporting: each workload's points with its reference resolved, and the ratios and verdicts
/// every reporter shows. Reporters read this, never a file another reporter wrote, so the console, report.md, the
/// CSV and the plots agree. Making one costs a pass over the record; each ratio is computed when asked.
public struct RunAnalysis: Sendable {
    /// The record.
    public let record: RunRecord
    /// The benchmarks' workloads, in run order (those `restricted(to:)` kept).
    public let workloads: [WorkloadAnalysis]
    /// The contender named to take every ratio against (`--reference`), if one was.
    public let reference: String?
    /// Which points the tables mark `!` (`NoiseMark`: over twice the run's median CV, and over 10%).
    public let noiseMark: NoiseMark

    /// The analysis of `record`. `known` are the workloads this program has the code of (their extra tables come
    /// from it; a workload the record has and the program lacks gets the generic tables). `reference` overrides the
    /// record's own choice; it must be a contender of the record (`ReferenceError` otherwise).
    public init(record: RunRecord, known: [any Workload] = [], reference: String? = nil) throws(ReferenceError) {
        let chosen = reference ?? record.benchmarks?.reference
        if let chosen, record.contender(named: chosen) == nil {
            throw ReferenceError(
                name: chosen, known: record.contenders.filter { !$0.native }.map(\.name))
        }
        self.record = record
        self.reference = chosen
        let benchmarks = record.benchmarks
        let floor = record.floor?.results ?? []
        let order = record.contenders.filter { !$0.native }.map(\.name) + record.contenders.filter(\.native).map(\.name)
        // The noise mark's threshold, from every point's headline CV (each under its own workload's headline).
        let headlines = Dictionary((benchmarks?.workloads ?? []).map { ($0.name, $0.headline) }, uniquingKeysWith: { a, _ in a })
        let cvs = ((benchmarks?.points ?? []).flatMap(\.results) + floor).compactMap { result in
            headlines[result.point.workload].flatMap { PointStatistics(result, headline: $0).headlineSummary?.coefficientOfVariation }
        }
        let noiseMark = NoiseMark(cvs: cvs)
        self.noiseMark = noiseMark
        let measured = record.measuredPoints
        workloads = record.measuredWorkloads.map { entry in
            let points = measured.filter { $0.point.workload == entry.name }
            let measured = Set(points.flatMap { $0.results.map(\.engine) })
            let floors = floor.filter { $0.point.workload == entry.name }
            let present = measured.union(floors.map(\.engine))
            let engines = order.filter(present.contains) + present.subtracting(order).sorted()
            // The reference: the one named, where it measured the workload; else the contender holding the role of
            // the workload's layer, where it did. One with no number at any point (it failed or stopped everywhere)
            // cannot be a ratio's denominator: the first contender with a number stands in for it, and says so.
            let intended =
                chosen.flatMap { measured.contains($0) ? $0 : nil }
                ?? entry.layer.flatMap { layer in
                    record.contenders.first { $0.roles.contains(layer) && measured.contains($0.name) }?.name
                }
            let numbered = Set(points.flatMap { $0.results.filter(\.succeeded).map(\.engine) })
            var resolved = intended
            var unnumbered: String?
            if let intended, !numbered.contains(intended) {
                unnumbered = intended
                resolved = engines.first(where: numbered.contains)
            }
            return WorkloadAnalysis(
                entry: entry, workload: known.first { $0.name == entry.name }, points: points, floor: floors,
                engines: engines, reference: resolved, unnumberedReference: unnumbered, noiseMark: noiseMark)
        }
    }

    private init(record: RunRecord, workloads: [WorkloadAnalysis], reference: String?, noiseMark: NoiseMark) {
        self.record = record
        self.workloads = workloads
        self.reference = reference
        self.noiseMark = noiseMark
    }

    /// The same analysis with only the workloads named in `names`: what a reporter rewriting one workload's files
    /// after a point is handed.
    public func restricted(to names: Set<String>) -> RunAnalysis {
        RunAnalysis(record: record, workloads: workloads.filter { names.contains($0.name) }, reference: reference, noiseMark: noiseMark)
    }

    /// Every contender and floor with a point, in display order: the lineup's order, the C floor last.
    public var engines: [String] {
        var seen: [String] = []
        for workload in workloads { for engine in workload.engines where !seen.contains(engine) { seen.append(engine) } }
        let native = Set(record.contenders.filter(\.native).map(\.name))
        return seen.filter { !native.contains($0) } + seen.filter(native.contains)
    }

    /// The names of the native floor's engines in the record.
    public var floorEngines: [String] { record.contenders.filter(\.native).map(\.name) }

    /// The machine the benchmarks ran on.
    public var machine: MachineContext? { record.machine }

    /// Every failed or timed-out rule and every point without a number the record holds, each with whose it is
    /// (`RunFailures`: what the exit codes follow).
    public var failures: RunFailures { RunFailures(record) }
}

/// A `--reference` that names no contender of the run.
public struct ReferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let known: [String]

    public var description: String {
        "--reference: '\(name)' is not a contender of this run (its contenders: \(known.joined(separator: ", ")))"
    }
}

/// One workload of a run, with its reference: the contender its ratios are taken against.
public struct WorkloadAnalysis: Sendable {
    /// What the record says of the workload.
    public let entry: WorkloadRecord
    /// The workload's code, when this program has it (its extra tables).
    public let workload: (any Workload)?
    /// Its points, in run order, each with its contenders' results and rounds.
    public let points: [MeasuredPoint]
    /// The native floor's points of this workload.
    public let floor: [PointResult]
    /// The contenders and floors with a point here, in display order.
    public let engines: [String]
    /// The contender every ratio of the workload is to, or `nil` when the run has none (no `--reference`, and the
    /// layer's reference did not measure it). Where the reference named or the layer's has no number at any point,
    /// the first contender with one stands in (`unnumberedReference` says whom it stands in for).
    public let reference: String?
    /// The reference the workload would have had (`--reference`, or its layer's), when it has no number at any point
    /// (it failed or stopped at every one) and `reference` stands in for it; `nil` otherwise.
    public let unnumberedReference: String?
    /// The run's noise mark (`RunAnalysis.noiseMark`), which the tables apply.
    public let noiseMark: NoiseMark

    /// The workload's name.
    public var name: String { entry.name }
    /// Its headline.
    public var headline: Headline { entry.headline }

    /// Every result: the measured points' and the floor's, in that order.
    public var results: [PointResult] { points.flatMap(\.results) + floor }

    /// The parameter paths of the points, in run order (the floor's after, where it has others).
    public var paths: [String] {
        var paths: [String] = []
        for result in results where !paths.contains(result.point.parameterPath) { paths.append(result.point.parameterPath) }
        return paths
    }

    /// The result of `engine` at `path`, if it measured it.
    public func result(_ engine: String, at path: String) -> PointResult? {
        results.first { $0.engine == engine && $0.point.parameterPath == path }
    }

    /// The headline of each of `engine`'s repetitions at `path`, by round (a repetition without a round counts as its
    /// position); empty when it failed or did not measure there.
    public func values(_ engine: String, at path: String) -> [Int: Double] {
        result(engine, at: path).map { PointStatistics.headlineValuesByRound(of: $0, under: headline) } ?? [:]
    }

    /// Whether `engine` is the native floor's (measured by another program, so never paired).
    func isFloor(_ engine: String) -> Bool { floor.contains { $0.engine == engine } }

    /// `engine`'s headline over `other`'s at `path`: paired by round between two contenders, unpaired (Welch) where
    /// either is the floor. `nil` when either has no number there, or a value is not positive.
    public func ratio(_ engine: String, to other: String, at path: String) -> RatioEstimate? {
        let a = values(engine, at: path), b = values(other, at: path)
        guard !a.isEmpty, !b.isEmpty else { return nil }
        if isFloor(engine) || isFloor(other) { return RatioEstimate.unpaired(a.inRoundOrder, b.inRoundOrder) }
        return RatioEstimate.paired(a, b)
    }

    /// `engine`'s ratio to the reference at `path`; `nil` without a reference or a number.
    public func ratioToReference(_ engine: String, at path: String) -> RatioEstimate? {
        reference.flatMap { ratio(engine, to: $0, at: path) }
    }

    // MARK: Over the workload

    /// `engine` over `other` across the points both measured: each point's paired (or, with the floor, unpaired)
    /// logarithms combined, every point weighing the same (`RatioEstimate.combined`), with how many points it rests
    /// on. An unstable point counts with its spread, which widens the interval: a contender whose rounds flip between
    /// modes cannot be told apart from anyone there, rather than be left out.
    public func overall(_ engine: String, to other: String) -> (estimate: RatioEstimate, points: Int)? {
        var parts: [LogMean] = []
        for path in paths {
            let a = values(engine, at: path), b = values(other, at: path)
            guard !a.isEmpty, !b.isEmpty else { continue }
            let part: LogMean?
            if isFloor(engine) || isFloor(other) {
                part = RatioEstimate.unpairedLogs(a.inRoundOrder, b.inRoundOrder)
            } else {
                part = RatioEstimate.pairedLogs(a, b)
            }
            if let part { parts.append(part) }
        }
        return RatioEstimate.combined(parts).map { ($0, parts.count) }
    }

    /// One contender's standing: its ratio to the reference over the workload.
    public struct Standing: Sendable, Equatable {
        public let engine: String
        /// Over the reference; the reference's own is exactly 1, without an interval.
        public let ratio: RatioEstimate
        public let points: Int
    }

    /// Each contender's standing, best first in the headline's direction (the reference among them at ×1); the
    /// floor is left out. Empty without a reference.
    public var standings: [Standing] {
        guard let reference else { return [] }
        let floors = Set(floor.map(\.engine))
        let pointCount = paths.filter { !values(reference, at: $0).isEmpty }.count
        // A contender without a number has no standing, the reference included (never a verdict for it).
        guard pointCount > 0 else { return [] }
        var standings = [
            Standing(engine: reference, ratio: RatioEstimate(value: 1, low: nil, high: nil, samples: pointCount), points: pointCount)
        ]
        for engine in engines where engine != reference && !floors.contains(engine) {
            if let overall = overall(engine, to: reference) {
                standings.append(Standing(engine: engine, ratio: overall.estimate, points: overall.points))
            }
        }
        let higher = headline.higherIsBetter
        // A stable sort: equal ratios keep the display order.
        return standings.enumerated().sorted { left, right in
            if left.element.ratio.value != right.element.ratio.value {
                return higher ? left.element.ratio.value > right.element.ratio.value : left.element.ratio.value < right.element.ratio.value
            }
            return left.offset < right.offset
        }.map(\.element)
    }

    /// The workload's answer: the contender with the best standing leads when its paired ratio to every other one
    /// (over the points the two measured, `overall`) has an interval wholly on the better side of 1; otherwise it is a
    /// tie between it and the first contender, in standing order, it cannot be told apart from.
    public enum Verdict: Sendable, Equatable {
        /// `leader` leads every other contender beyond the noise; `margin` is its ratio to the runner-up.
        case leader(String, runnerUp: String, margin: RatioEstimate)
        /// The best and a contender it cannot be told apart from: `margin` (best over that one) has an interval that
        /// includes 1, or none.
        case tie(String, String, margin: RatioEstimate?)
        /// A single contender stands: nothing to compare.
        case alone(String)
        /// No reference measured the workload, so there are no standings.
        case noReference

        /// The leader, when there is one.
        public var leader: String? { if case .leader(let leader, _, _) = self { leader } else { nil } }

        /// Whether `other` gives the same answer: the same leader, a tie in both, or the same contender alone.
        public func agrees(with other: Verdict) -> Bool {
            switch (self, other) {
            case (.leader(let a, _, _), .leader(let b, _, _)): a == b
            case (.tie, .tie), (.noReference, .noReference): true
            case (.alone(let a), .alone(let b)): a == b
            default: false
            }
        }
    }

    /// The verdict and how firmly it stands (`nearEdge`), from one pass over the best contender's comparisons with
    /// every other: what the summary and `arena compare` show.
    public struct Judgement: Sendable, Equatable {
        public let verdict: Verdict
        public let nearEdge: NearEdge?
    }

    /// The judgement from `standings`: the best's ratio to each other contender (`overall`), computed once.
    public var judgement: Judgement {
        let standings = standings
        guard let best = standings.first?.engine else { return Judgement(verdict: .noReference, nearEdge: nil) }
        guard standings.count > 1 else { return Judgement(verdict: .alone(best), nearEdge: nil) }
        let margins = standings.dropFirst().map { (engine: $0.engine, margin: overall(best, to: $0.engine)?.estimate) }
        return Judgement(verdict: verdict(best, margins: margins), nearEdge: nearEdge(best, margins: margins))
    }

    /// The verdict (`judgement.verdict`).
    public var verdict: Verdict { judgement.verdict }

    /// The verdict of `best` from its ratio to each other contender, in standing order.
    private func verdict(_ best: String, margins: [(engine: String, margin: RatioEstimate?)]) -> Verdict {
        for (other, margin) in margins {
            guard let margin, headline.higherIsBetter ? (margin.low ?? 0) > 1 : (margin.high ?? .infinity) < 1 else {
                return .tie(best, other, margin: margin)
            }
        }
        return .leader(best, runnerUp: margins[0].engine, margin: margins[0].margin!)
    }
}

extension Dictionary where Key == Int, Value == Double {
    /// The values by round: a sum over them then comes out the same in every process (a dictionary's own order
    /// follows its hash seed, which differs from one process to the next, and a sum's last digits follow the order).
    fileprivate var inRoundOrder: [Double] { keys.sorted().map { self[$0]! } }
}
