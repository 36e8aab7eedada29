/// How a benchmark run is sized: what `arena bench` options set, handed to every workload and child process.
public struct BenchSettings: Sendable, Codable, Equatable {
    /// Measured repetitions per point, after the warm-up: the rounds of a point's contenders (a workload of fewer than
    /// `evidencePoints` points gets more: `rounds(forPoints:)`). Where `firstRounds` is fewer, what the run spends: each
    /// point gets its first rounds, and the time the others would have taken goes where it narrows the ratios most.
    public var repetitions: Int
    /// The rounds every point gets before the rest of the run's rounds are shared out by how much they vary
    /// (`RoundAllocation`); `nil`, or at least `repetitions`, gives every point `rounds(forPoints:)`, as records made
    /// before it say.
    public var firstRounds: Int?
    /// The shortest a repetition may be, in seconds: the operation count grows until a trial lasts this long, so the
    /// clock's resolution and the start and stop costs vanish in it.
    public var minimumSeconds: Double
    /// The longest one point may take, warm-up included, before it is stopped and reported as such.
    public var budgetSeconds: Double
    /// Thread counts for the workloads that take one (contention, drain producers, readers, mergers).
    public var threads: [Int]
    /// Shrinks every workload (fewer sizes, smaller counts) so a whole run stays within minutes.
    public var quick: Bool

    public init(
        repetitions: Int = 8, firstRounds: Int? = BenchSettings.defaultFirstRounds, minimumSeconds: Double = 0.1,
        budgetSeconds: Double = 120, threads: [Int] = [1, 2, 4, 8, 16], quick: Bool = false
    ) {
        self.repetitions = repetitions
        self.firstRounds = firstRounds
        self.minimumSeconds = minimumSeconds
        self.budgetSeconds = budgetSeconds
        self.threads = threads
        self.quick = quick
    }

    /// A workload is measured as if it had at least this many points: one of fewer points gets more rounds per point
    /// (`rounds(forPoints:)`), so every workload's verdict rests on about as many rounds (`pingpong`'s one point gets
    /// three times the rounds of `contention`'s eight).
    public static let evidencePoints = 3

    /// The rounds each point of a workload of `points` points gets: `repetitions`, or, for fewer than
    /// `evidencePoints` points, enough that the workload's rounds over its points reach `evidencePoints` times
    /// `repetitions`.
    public func rounds(forPoints points: Int) -> Int {
        let wanted = Self.evidencePoints * repetitions
        return max(repetitions, (wanted + max(points, 1) - 1) / max(points, 1))
    }

    /// Four first rounds: the fewest whose spread says which points vary (a t-interval from three has 2 degrees of
    /// freedom, t = 4.3), leaving about half of a quick run's rounds to go where they narrow the ratios most.
    public static let defaultFirstRounds = 4

    /// Whether the run shares out its later rounds by how much each point varies (`firstRounds` below `repetitions`).
    public var sharesRounds: Bool { firstRounds.map { $0 < repetitions } ?? false }

    /// The rounds every point of a run gets at least: `firstRounds` where the run shares out its later rounds,
    /// `repetitions` otherwise.
    public var leastRounds: Int { sharesRounds ? firstRounds! : repetitions }

    /// The rounds each point of a workload of `points` points gets before the rest are shared out: `firstRounds` as a
    /// share of `rounds(forPoints:)` (a workload of few points gets more of each), at least 2, so that there is a
    /// spread to read; `rounds(forPoints:)` itself when the run shares nothing.
    public func firstRounds(forPoints points: Int) -> Int {
        let all = rounds(forPoints: points)
        guard sharesRounds, let first = firstRounds else { return all }
        return min(all, max(2, (first * all + repetitions - 1) / repetitions))
    }

    /// The sizing `--quick` stands for, keeping what the caller set explicitly.
    public static func quickDefaults() -> BenchSettings {
        // Seven short rounds rather than three longer ones: a round's spread is mostly its process's, whatever its
        // length (20 to 30 ms trials varied alike here), so rounds, not milliseconds, narrow the intervals.
        BenchSettings(repetitions: 7, minimumSeconds: 0.025, budgetSeconds: 30, threads: [1, 2, 4, 8], quick: true)
    }
}
