/// How a benchmark run is sized: what `arena bench` options set, handed to every workload and child process.
public struct BenchSettings: Sendable, Codable, Equatable {
    /// Measured repetitions per point, after the warm-up: the rounds of a point's contenders (a workload of fewer than
    /// `evidencePoints` points gets more: `rounds(forPoints:)`).
    public var repetitions: Int
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
        repetitions: Int = 8, minimumSeconds: Double = 0.1, budgetSeconds: Double = 120,
        threads: [Int] = [1, 2, 4, 8, 16], quick: Bool = false
    ) {
        self.repetitions = repetitions
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

    /// The sizing `--quick` stands for, keeping what the caller set explicitly.
    public static func quickDefaults() -> BenchSettings {
        // Seven short rounds rather than three longer ones: a round's spread is mostly its process's, whatever its
        // length (20 to 30 ms trials varied alike here), so rounds, not milliseconds, narrow the intervals.
        BenchSettings(repetitions: 7, minimumSeconds: 0.025, budgetSeconds: 30, threads: [1, 2, 4, 8], quick: true)
    }
}
