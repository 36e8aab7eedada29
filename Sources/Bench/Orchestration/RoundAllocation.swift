import Glibc

/// How a run shares out its later rounds once every point has had its first ones: to the points where one more round
/// makes a second run's ratios most likely to agree, per second it costs.
///
/// A round of a point costs what its processes take (starting, warming up, the trials), and what it buys differs from
/// point to point by far: on the 2-core VM the rounds of one quick run spread by under 16% at a quarter of the ratios
/// and by over 45% at another quarter (the standard deviation of a point's per-round log ratios), while `pool-ramp`,
/// a sixth of the run's time, agreed between two runs at every one of its ratios. So every point gets
/// `BenchSettings.firstRounds(forPoints:)` rounds, spread over the first part of the run, and the time its other
/// rounds would have taken is shared out by their spread: Stein's two-stage procedure ("A two-sample test for a linear
/// hypothesis whose power is independent of the variance", Annals of Mathematical Statistics 16, 1945), which sizes a
/// second sample from the first's variance, and Kalibera and Jones's dimensioning of repetitions by the variance seen
/// at each level ("Rigorous benchmarking in reasonable time", ISMM 2013), with the rounds bought greedily by gain per
/// second (the marginal allocation that is optimal for a separable concave gain, Fox, "Discrete optimization via
/// marginal analysis", Management Science 13(3), 1966).
///
/// The gain of a point is over every pair of its contenders, not only the pairs with one reference: a report may take
/// its ratios against any of them (`arena report --reference`), and the verdicts compare the best with every other.
/// The number of rounds depends on the first rounds' spread, never on their mean, so the estimate stays the
/// geometric mean of the rounds and the interval the paired t-interval over all of them. A point whose first rounds
/// happened to spread little keeps an interval from little spread; measured over two back-to-back quick runs, the
/// intervals still overlapped for nearly every ratio (docs/BENCHMARKS.md).
public enum RoundAllocation {
    /// Two runs agree on a ratio when the larger is at most this factor above the smaller (×1.15: 15%): what the
    /// allocation aims at, and what `arena compare` counts.
    public static let agreement = 1.15

    /// A point gets at most this many times its even share of rounds, so that no point takes the run over.
    public static let roundsFactor = 3

    /// A round is taken to cost at least this many seconds (a stand-in process in a test costs nothing).
    public static let leastRoundSeconds = 0.001

    /// What the allocation knows of one point after its first rounds.
    public struct Candidate: Sendable, Equatable {
        /// Rounds measured so far.
        public let rounds: Int
        /// The rounds an even schedule gives the point (`BenchSettings.rounds(forPoints:)`).
        public let evenRounds: Int
        /// What one of its rounds took, in seconds.
        public let secondsPerRound: Double
        /// The standard deviation of the per-round log ratio of each pair of its contenders (`spreads(of:headline:)`);
        /// empty for a point with one contender, or none with two rounds in common.
        public let spreads: [Double]
        /// The most rounds its contenders' time budgets afford (`PairedPoint.roundsWithinBudget`); `nil`: no bound.
        public let mostRounds: Int?

        public init(rounds: Int, evenRounds: Int, secondsPerRound: Double, spreads: [Double], mostRounds: Int? = nil) {
            self.rounds = rounds
            self.evenRounds = evenRounds
            self.secondsPerRound = secondsPerRound
            self.spreads = spreads
            self.mostRounds = mostRounds
        }

        var cost: Double { max(secondsPerRound, RoundAllocation.leastRoundSeconds) }
        var cap: Int { max(rounds, min(RoundAllocation.roundsFactor * evenRounds, mostRounds ?? .max)) }

        /// The expected number of its ratios a second run like this one reproduces within `agreement`, with `rounds`
        /// rounds in each.
        func agreeing(after rounds: Int) -> Double {
            spreads.reduce(0) { $0 + RoundAllocation.reproducibility(spread: $1, rounds: rounds) }
        }
    }

    /// The chance that two runs of `rounds` rounds each give a ratio within `agreement` of each other, where its
    /// per-round logarithms vary with standard deviation `spread`: each run's mean varies by spread / √rounds, their
    /// difference by spread · √(2 / rounds), so the chance is erf(ln(agreement) / (spread · √(2 / rounds)) / √2). 1 for
    /// no spread.
    public static func reproducibility(spread: Double, rounds: Int) -> Double {
        guard spread > 0, rounds > 0 else { return 1 }
        let deviation = spread * (2 / Double(rounds)).squareRoot()
        return erf(log(agreement) / deviation / 2.0.squareRoot())
    }

    /// The standard deviation of the per-round logarithm of each pair of `point`'s contenders' headlines (`headline`),
    /// over the rounds both measured: one value per pair with at least two such rounds and positive headlines.
    public static func spreads(of point: MeasuredPoint, headline: Headline) -> [Double] {
        let values = point.results.filter(\.succeeded).map { result in
            PointStatistics.headlineValuesByRound(of: result, under: headline).filter { $0.value > 0 }.mapValues(log)
        }
        var spreads: [Double] = []
        for (offset, a) in values.enumerated() {
            for b in values[(offset + 1)...] {
                let logs = a.keys.sorted().compactMap { round in b[round].map { a[round]! - $0 } }
                if logs.count > 1, let summary = Summary(logs) { spreads.append(summary.standardDeviation) }
            }
        }
        return spreads
    }

    /// Each candidate's rounds in all: at least those it has; a point without spreads (one contender) its even share;
    /// the others their rounds plus what the even schedule's remaining seconds buy, a round at a time to the point
    /// whose next round raises its expected agreeing ratios most per second, up to `roundsFactor` times its even share
    /// and what its contenders' budgets afford (`mostRounds`).
    /// Spends at most what the even schedule would have on the points with spreads. Costs a pass over the candidates
    /// per round given; each candidate's gain is computed again only when it got the round.
    public static func rounds(for candidates: [Candidate]) -> [Int] {
        var rounds = candidates.map { $0.spreads.isEmpty ? max($0.rounds, $0.evenRounds) : $0.rounds }
        let shared = candidates.indices.filter { !candidates[$0].spreads.isEmpty }
        var left = shared.reduce(0) { $0 + Double(max(0, candidates[$1].evenRounds - candidates[$1].rounds)) * candidates[$1].cost }
        /// What the candidate's next round adds to its expected agreeing ratios, per second.
        func gain(_ index: Int) -> Double {
            let candidate = candidates[index]
            return (candidate.agreeing(after: rounds[index] + 1) - candidate.agreeing(after: rounds[index])) / candidate.cost
        }
        var gains = Dictionary(uniqueKeysWithValues: shared.map { ($0, gain($0)) })
        while true {
            var best: (index: Int, gain: Double)?
            for index in shared where rounds[index] < candidates[index].cap && candidates[index].cost <= left + 1e-9 {
                if gains[index]! > 0 && gains[index]! > (best?.gain ?? 0) { best = (index, gains[index]!) }
            }
            guard let chosen = best else { return rounds }
            rounds[chosen.index] += 1
            left -= candidates[chosen.index].cost
            gains[chosen.index] = gain(chosen.index)
        }
    }
}
