import ArenaContract
import Harness

/// A generated program on an executor layer (`ExecutorLayer`): a tree of contexts, each entered from the one around
/// it, and in each, probes of everything code can observe about where it runs. Made by `ExecutorGenerator` from a seed;
/// run by `ExecutorRun`.
///
/// The contexts: the script (a detached task with no preference), an actor's job on one of the layer's serial
/// executors (an actor method, entered with `await` from anywhere: a hop), a task preferring the layer's pool executor
/// or a serial executor's co-located task executor (`withTaskExecutorPreference`, from a context that is not an
/// actor's), a plain block submitted to a serial executor's queue, and a plain block on the engine's global queue. A
/// probe reads, for every serial executor, `isIsolatingCurrentContext()`, its co-located executor's `isCurrent` and
/// the queue-specific value its queue carries, and the pool executor's `isCurrent`; the context decides each answer
/// (`ExecutorModel`). A job may also start a task isolated to its actor, whose job must run after the current one ends.
public struct ExecutorProgram: Sendable, CustomStringConvertible {
    /// A context and what is done in it.
    public indirect enum Step: Sendable, Equatable, CustomStringConvertible {
        /// Probe every observable here.
        case probe
        /// An actor's job on serial executor `executor`, entered with `await` (a hop), running `steps`.
        case job(Int, [Step])
        /// A task preferring the pool executor, running `steps` (not from inside an actor's job).
        case pool([Step])
        /// A task preferring serial executor `executor`'s co-located task executor, running `steps` (not from inside
        /// an actor's job).
        case colocated(Int, [Step])
        /// A plain block on serial executor `executor`'s queue, running `steps` (probes and plain blocks only); the
        /// context waits for it (only from outside that queue).
        case block(Int, [Step])
        /// A plain block on the engine's global queue, running `steps`; the context waits for it.
        case plain([Step])
        /// From inside an actor's job: two tasks isolated to the same actor, whose jobs must run after this one gives
        /// the actor up, in the order they were made.
        case behind

        public var description: String { render(0) }

        func render(_ depth: Int) -> String {
            let pad = String(repeating: "  ", count: depth)
            func nested(_ head: String, _ steps: [Step]) -> String {
                ([pad + head] + steps.map { $0.render(depth + 1) }).joined(separator: "\n")
            }
            switch self {
            case .probe: return pad + "probe"
            case .job(let executor, let steps): return nested("await a job of the actor on e\(executor):", steps)
            case .pool(let steps): return nested("a task preferring the pool executor:", steps)
            case .colocated(let executor, let steps): return nested("a task preferring e\(executor)'s co-located executor:", steps)
            case .block(let executor, let steps): return nested("a plain block on e\(executor)'s queue:", steps)
            case .plain(let steps): return nested("a plain block on the global queue:", steps)
            case .behind: return pad + "two tasks isolated to this actor (their jobs after this one, in order)"
            }
        }
    }

    /// Serial executors made up front (0 where the layer has none).
    public var executors: Int
    /// The script's steps, each a top-level one (shrinking keeps or drops them).
    public var steps: [Step]

    public var description: String {
        (["\(executors) serial executors"] + steps.enumerated().map { "\($0):\n" + $1.render(1) }).joined(separator: "\n")
    }
}

/// Where a probe runs, as the model knows it.
enum ExecutorPlace: Equatable, Sendable {
    case script
    /// On serial executor `executor`'s queue: its actor's job, a co-located task, or a plain block there.
    case queue(Int)
    case pool
    case global

    /// What a probe must read there, for a layer with `executors` serial executors: each serial executor's
    /// isolation, its co-located executor's `isCurrent` and its queue's specific value, then the pool's `isCurrent`
    /// (nil where the model leaves it open: the script and the global queue of a layer whose pool is Swift's
    /// global executor).
    func expected(executors: Int, colocated: Bool, poolIsDefault: Bool) -> String {
        var parts: [String] = []
        for executor in 0..<executors {
            let here = self == .queue(executor)
            parts.append("e\(executor) isolating \(here)" + (colocated ? ", co-located current \(here)" : ""))
        }
        if case .queue(let executor) = self { parts.append("specific e\(executor)") } else { parts.append("specific none") }
        switch self {
        case .pool: parts.append("pool current true")
        case .queue: parts.append("pool current false")
        case .script, .global: parts.append(poolIsDefault ? "pool current ?" : "pool current false")
        }
        return parts.joined(separator: "; ")
    }
}

/// Makes an `ExecutorProgram` from a seed: 1 to 3 serial executors (none on a layer without), then 2 to 6 top-level
/// steps, contexts nested up to three deep, each with probes.
public struct ExecutorGenerator: Sendable {
    /// What the layer can be asked to do.
    public struct Features: Sendable, Equatable {
        /// Serial executors one can make (`serial-executors`).
        public var serialExecutors: Bool
        /// Co-located task executors (`colocated-executors`).
        public var colocated: Bool

        public init(serialExecutors: Bool = true, colocated: Bool = true) {
            self.serialExecutors = serialExecutors
            self.colocated = colocated
        }

        public init(_ capabilities: [Capability]) {
            serialExecutors = capabilities.contains(.serialExecutors)
            colocated = capabilities.contains(.colocatedExecutors) && serialExecutors
        }
    }

    public let features: Features

    public init(features: Features) { self.features = features }

    public func program(seed: UInt64) -> ExecutorProgram {
        var random = SplitMix64(seed: seed)
        let executors = features.serialExecutors ? Int.random(in: 1...3, using: &random) : 0
        var steps: [ExecutorProgram.Step] = []
        for _ in 0..<Int.random(in: 2...6, using: &random) {
            steps.append(step(depth: 0, in: .script, executors: executors, &random))
        }
        return ExecutorProgram(executors: executors, steps: steps)
    }

    /// Where a step is made, for what may be made there.
    enum Context {
        case script, pool, colocated, job, block
    }

    /// A step made in `context`, `depth` deep. A block waits for its queue with a continuation, never from inside a
    /// job or a co-located task (a continuation there meets docs/FINDINGS.md §11 under a preference); preferences are
    /// given only where no actor is held; a block's body only probes.
    private func step(depth: Int, in context: Context, executors: Int, _ random: inout SplitMix64) -> ExecutorProgram.Step {
        var choices: [Int] = [0, 0]  // probe
        if depth < 3 && context != .block {
            if executors > 0 { choices += [1, 1] }  // job
            if context == .script || context == .pool {
                choices += [2] + (features.colocated && executors > 0 ? [3] : [])  // pool, colocated
                choices += (executors > 0 ? [4] : []) + [5]  // block, plain
            }
        }
        if context == .job { choices.append(6) }  // behind
        func inner(_ context: Context) -> [ExecutorProgram.Step] {
            [.probe]
                + (0..<Int.random(in: 0...2, using: &random)).map { _ in
                    step(depth: depth + 1, in: context, executors: executors, &random)
                } + [.probe]
        }
        switch random.pick(choices)! {
        case 1: return .job(Int.random(in: 0..<executors, using: &random), inner(.job))
        case 2: return .pool(inner(.pool))
        case 3: return .colocated(Int.random(in: 0..<executors, using: &random), inner(.colocated))
        case 4: return .block(Int.random(in: 0..<executors, using: &random), [.probe])
        case 5: return .plain([.probe])
        case 6: return .behind
        default: return .probe
        }
    }
}
