/// How a benchmark run is sized: what `arena bench` options set, handed to every workload and child process.
public struct BenchSettings: Sendable, Codable, Equatable {
    /// Measured repetitions per point, after the warm-up.
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
        repetitions: Int = 5, minimumSeconds: Double = 0.2, budgetSeconds: Double = 120,
        threads: [Int] = [1, 2, 4, 8, 16], quick: Bool = false
    ) {
        self.repetitions = repetitions
        self.minimumSeconds = minimumSeconds
        self.budgetSeconds = budgetSeconds
        self.threads = threads
        self.quick = quick
    }

    /// The sizing `--quick` stands for, keeping what the caller set explicitly.
    public static func quickDefaults() -> BenchSettings {
        BenchSettings(repetitions: 3, minimumSeconds: 0.05, budgetSeconds: 30, threads: [1, 2, 4, 8], quick: true)
    }
}
