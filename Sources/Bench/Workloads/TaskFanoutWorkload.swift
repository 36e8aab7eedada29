import ArenaContract
import Harness

/// `task-fanout`: a task preferring the engine's task executor (`Engine.executors.poolExecutor`) runs a task group of
/// M child tasks per round, each returning its index, which the parent adds up: fanout's fork-join in Swift
/// concurrency, the children inheriting the parent's preference, so each is a job of the engine's pool.
///
/// An operation is one round; the headline is child tasks per second (M per round). The answer checked: every
/// round's sum is 0 + 1 + … + (M − 1), so every child ran once and its result arrived; and every child ran on the
/// pool (`poolExecutor.isCurrent`, asked inside each child).
public struct TaskFanoutWorkload: Workload {
    public let name = "task-fanout"
    public let summary = "a task group of M child tasks on the engine's pool, each returning its index to the parent's sum, per round"
    public let headline = Headline.throughput(unit: "child tasks/s")
    public let figure = PlotFigure.bundled("task-fanout.gp")
    public var requirements: Set<Capability> { [.executors] }

    public init() {}

    /// The child tasks M per round.
    static let childCounts = [100, 10_000]

    /// children: M ∈ {100, 10,000}.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.integer("children", Self.childCounts)] }

    /// M ∈ {100, 10,000}: a round dominated by the group's fixed costs, and one dominated by the children.
    public func points(_ settings: BenchSettings) -> [Point] {
        Self.childCounts.map { children in Point(workload: name, parameters: [Parameter("children", children)]) }
    }

    /// About 2,000 children in all, at least one round, as fanout.
    public func initialOperations(_ point: Point) -> Int { max(1, 2_000 / point.integer("children")) }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let children = point.integer("children")
        let pool = engine.executors.poolExecutor
        let expected = children * (children - 1) / 2
        let run = try AsyncTrial.run(
            preferring: pool, until: context.deadline,
            waitingFor: "\(operations) rounds of \(children) child tasks"
        ) { () async -> FanoutRun in
            var run = FanoutRun()
            let watch = Stopwatch()
            for round in 0..<operations {
                let (sum, offPool) = await withTaskGroup(of: (Int, Bool).self, returning: (Int, Int).self) { group in
                    for index in 0..<children {
                        group.addTask { (index, pool.isCurrent) }
                    }
                    var sum = 0
                    var offPool = 0
                    for await (index, onPool) in group {
                        sum &+= index
                        if !onPool { offPool &+= 1 }
                    }
                    return (sum, offPool)
                }
                if sum != expected && run.wrongRound == nil { run.wrongRound = (round, sum) }
                run.offPool &+= offPool
            }
            run.elapsed = watch.read()
            return run
        }
        if let (round, sum) = run.wrongRound {
            throw WorkloadError("the sum of round \(round)'s \(children) children is \(sum), expected \(expected)")
        }
        try WorkloadError.check("child tasks that ran off the pool", run.offPool, expected: 0)
        return Trial(operations: operations, items: operations * children, elapsed: run.elapsed)
    }
}

/// What the task of a task-fanout trial saw.
@usableFromInline struct FanoutRun: Sendable {
    @usableFromInline var elapsed = Stopwatch.Reading(wallNanoseconds: 0, cpuNanoseconds: 0)
    /// The first round whose sum was wrong, with that sum.
    @usableFromInline var wrongRound: (Int, Int)?
    @usableFromInline var offPool = 0

    @inlinable init() {}
}
