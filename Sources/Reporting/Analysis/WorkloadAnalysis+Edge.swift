import Glibc

// MARK: - How firmly a verdict stands

extension WorkloadAnalysis {
    /// A verdict near the edge: the best contender and those whose comparisons with it decide the verdict, and how
    /// far the deciding interval's near end lies from 1.
    public struct NearEdge: Sendable, Equatable {
        /// The best contender first, then those whose comparison with it decides the verdict.
        public let contenders: [String]
        /// How far the deciding comparison's interval's near end lies from 1, in half-widths of the interval (on the
        /// logarithms): 0 where it touches 1, below `nearEdgeWithin` here.
        public let distance: Double
    }

    /// A verdict whose deciding interval's near end lies closer to 1 than this many half-widths is near the edge: a
    /// second run would reach it with a probability below about 87%. With an estimate of standard error s and an
    /// interval of half-width t·s (t about 2 here), a second run's estimate differs from this one by about √2·s, so it
    /// keeps a leader whose interval clears 1 by d half-widths with probability Φ(d·t/√2) ≈ Φ(1.4·d): 87% at d = 0.8,
    /// 50% at d = 0 (an interval that just clears 1 is a coin toss to clear it again: Goodman, "A comment on
    /// replication, p-values and evidence", Statistics in Medicine 11, 1992). The same holds for a tie the other way.
    public static let nearEdgeWithin = 0.8

    /// The verdict's deciding comparisons, if it is near the edge (`nearEdgeWithin`); `judgement.nearEdge`. A leader
    /// rests on its comparison with every other contender, so the nearest one decides; a tie becomes a leader only if
    /// every comparison whose interval includes 1 clears it, so the farthest of those decides. `nil` when the verdict
    /// is firm, or there is none.
    public var nearEdge: NearEdge? { judgement.nearEdge }

    /// The near-edge reading of `best`'s ratios to the other contenders (`margins`, in standing order).
    func nearEdge(_ best: String, margins: [(engine: String, margin: RatioEstimate?)]) -> NearEdge? {
        // Each comparison's distance: its near end's from 1, in half-widths; negative where the interval includes 1.
        var distances: [(engine: String, distance: Double)] = []
        for (other, margin) in margins {
            guard let margin, let low = margin.low, let high = margin.high, low > 0, high > low, margin.value > 0 else { continue }
            let half = (log(high) - log(low)) / 2
            let toward = headline.higherIsBetter ? log(margin.value) : -log(margin.value)
            distances.append((other, toward / half - 1))
        }
        let open = distances.filter { $0.distance <= 0 }
        let deciding: [(engine: String, distance: Double)]
        let distance: Double
        if open.isEmpty {
            guard let nearest = distances.min(by: { $0.distance < $1.distance }) else { return nil }
            deciding = distances.filter { $0.distance < Self.nearEdgeWithin }
            distance = nearest.distance
        } else {
            deciding = open
            distance = open.map { -$0.distance }.max()!
        }
        guard distance < Self.nearEdgeWithin else { return nil }
        return NearEdge(contenders: [best] + deciding.map(\.engine), distance: distance)
    }
}
