import ArenaContract

/// What the generated operation-queue programs reach: each call (`OperationCalls`), from each place it may be made
/// (the script's thread, or inside an operation's body as it is released), counted over a run of seeds.
public struct OperationReach: Sendable {
    /// A call and where it is made from.
    public struct Call: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        /// Made from inside a running operation's body.
        public let inside: Bool
        public var description: String { inside ? "\(name) (from a body)" : name }
    }

    /// The stage of the operation a call acts on, as the model has it when the call is made.
    public enum Stage: String, CaseIterable, Sendable {
        case onNoQueue = "on no queue"
        case waiting
        case cancelledWaiting = "cancelled, waiting"
        case running
        case finished
    }

    /// A call on an operation in a stage.
    public struct Standing: Hashable, Sendable {
        public let name: String
        public let stage: Stage
    }

    /// Every call a program for a layer like the generator's can make, in `OperationCalls.all`'s order.
    public let possible: [Call]
    /// How many of the programs made each call.
    public let programs: [Call: Int]
    /// How many of the programs made each call that acts on an operation, by the operation's stage.
    public let stages: [Standing: Int]

    /// The reach of the `count` programs from seed `first` on.
    public init(_ generator: OperationGenerator, from first: UInt64, count: Int) {
        possible =
            OperationCalls.all.filter { $0 != ReadCurrent.self && (generator.features.removeDependency || $0 != RemoveDependency.self) }
            .map { Call(name: $0.name, inside: false) }
            + OperationCalls.inside.filter {
                generator.features.blockingInBlocks && (generator.features.removeDependency || $0 != RemoveDependency.self)
            }
            .map { Call(name: $0.name, inside: true) }
        var programs: [Call: Int] = [:]
        var stages: [Standing: Int] = [:]
        for seed in 0..<UInt64(count) {
            let program = generator.program(seed: first &+ seed)
            var model = OperationModel(program, features: generator.features)
            var made: Set<Call> = []
            var stood: Set<Standing> = []
            for call in program.calls + OperationRun.drain {
                made.insert(Call(name: type(of: call).name, inside: false))
                let inner = (call as? Release)?.inner
                if let inner { made.insert(Call(name: type(of: inner).name, inside: true)) }
                for acting in [call] + (inner.map { [$0] } ?? []) {
                    if let op = acting.target { stood.insert(Standing(name: type(of: acting).name, stage: model.stage(of: op))) }
                }
                _ = model.take(call)
            }
            for call in made { programs[call, default: 0] += 1 }
            for standing in stood { stages[standing, default: 0] += 1 }
        }
        self.programs = programs
        self.stages = stages
    }

    /// The possible calls at least one program made.
    public var reached: [Call] { possible.filter { programs[$0, default: 0] > 0 } }
}

extension OperationModel {
    /// The stage of `op` now, for the reach matrix.
    func stage(of op: Int) -> OperationReach.Stage {
        switch ops[op].phase {
        case .created: .onNoQueue
        case .waiting: ops[op].cancelled ? .cancelledWaiting : .waiting
        case .running: .running
        case .finished: .finished
        }
    }
}

extension ScenarioToken.Layer {
    /// The capability a contender needs, of its own, for programs of this layer.
    public var capability: Capability {
        switch self {
        case .dispatch: .dispatchObjects
        case .operations: .operationQueues
        case .executors: .executors
        }
    }

    /// What `arena explore` prints after an engine's name for programs of this layer.
    public var title: String {
        switch self {
        case .dispatch: ""
        case .operations: " (operation queues)"
        case .executors: " (executors)"
        }
    }
}
