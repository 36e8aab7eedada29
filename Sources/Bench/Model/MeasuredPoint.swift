/// How a run orders the repetitions of a point's contenders.
public enum TrialOrder: String, Sendable, Codable, CaseIterable {
    /// Paired rounds: round r runs repetition r of every contender once, one after another, in an order shuffled per
    /// round (`RoundOrder`); what the machine does meanwhile lands on every contender of the round alike, so each
    /// round's ratio of two contenders is a paired sample.
    case interleaved
    /// Each contender's repetitions back to back, the contenders one after another: the order before paired rounds,
    /// kept to compare the two on one machine.
    case sequential
}

/// Which processes measure a contender at a point, under `TrialOrder.interleaved`.
public enum ProcessLifetime: String, Sendable, Codable, CaseIterable {
    /// A fresh process per contender and round, warmed up before the round's trials: what varies between processes
    /// (memory layout, pool state, the warm-up's luck) varies between rounds too, so the rounds' spread includes it.
    case round
    /// One process per contender for the whole point, waiting (blocked, no CPU) between its turns: cheaper, but every
    /// round shares its process's luck.
    case point
}

/// One round of a point: who ran in what order, and what the others did meanwhile.
public struct RoundRecord: Sendable, Codable, Equatable {
    /// The contenders in the order their repetitions ran.
    public var order: [String]
    /// Wall seconds of the round's trials, one after another.
    public var trialSeconds: Double
    /// CPU seconds every waiting process used while another contender's trial ran (their engines' threads, which
    /// should sleep); `nil` where nothing waited or it could not be read.
    public var waitingCPUSeconds: Double?
    /// How many processes waited during each trial of the round.
    public var waitingProcesses: Int

    public init(order: [String], trialSeconds: Double, waitingCPUSeconds: Double?, waitingProcesses: Int) {
        self.order = order
        self.trialSeconds = trialSeconds
        self.waitingCPUSeconds = waitingCPUSeconds
        self.waitingProcesses = waitingProcesses
    }
}

/// One point of a run with every contender that measured it: each contender's result (its repetitions tagged with
/// their rounds) and the rounds' schedule.
public struct MeasuredPoint: Sendable, Codable {
    /// The workload's point.
    public var point: Point
    /// One result per contender, in lineup order.
    public var results: [PointResult]
    /// The rounds, in order (none for a point whose contenders all failed before their first trial).
    public var rounds: [RoundRecord]
    /// The contenders whose first warm-up cost so much more than a trial that they kept that process for every round
    /// (`PairedPoint.slowStartTrials`); `nil` when none did.
    public var keptProcesses: [String]?

    public init(point: Point, results: [PointResult], rounds: [RoundRecord], keptProcesses: [String]? = nil) {
        self.point = point
        self.results = results
        self.rounds = rounds
        self.keptProcesses = keptProcesses
    }
}
