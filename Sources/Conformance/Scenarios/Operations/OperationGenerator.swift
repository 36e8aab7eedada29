import ArenaContract

/// Makes an `OperationProgram` from a seed (SplitMix64: the same seed, the same program everywhere): 1 to 3 queues of
/// width 1, 2, 3 or unlimited, some suspended, some on a serial underlying queue; 3 to 8 operations of each kind
/// (block, main, asynchronous), some held, some with a priority, a completion block or more execution blocks; then
/// 8 to 24 calls drawn by weight (`OperationCalls.drawn`), each one the model allows and does not find ambiguous, and
/// the run's drain follows (`OperationRun.drain`).
public struct OperationGenerator: Sendable {
    /// What the layer can be asked to do, beyond what every layer does.
    public struct Features: Sendable, Equatable {
        /// Removing a dependency readies the operation (`remove-dependency`).
        public var removeDependency: Bool
        /// A cancelled operation may be added behind a waiting barrier (`cancel-around-barriers`).
        public var cancelAroundBarriers: Bool

        /// A body may block its thread until the script releases it (`blocking-in-blocks`); without it, only
        /// asynchronous operations are held (they hold no thread), and no call is made from inside a body.
        public var blockingInBlocks: Bool

        public init(removeDependency: Bool = true, cancelAroundBarriers: Bool = true, blockingInBlocks: Bool = true) {
            self.removeDependency = removeDependency
            self.cancelAroundBarriers = cancelAroundBarriers
            self.blockingInBlocks = blockingInBlocks
        }

        /// The features of a layer whose contender has `capabilities`.
        public init(_ capabilities: [Capability]) {
            removeDependency = capabilities.contains(.removeDependency)
            cancelAroundBarriers = capabilities.contains(.cancelAroundBarriers)
            // A contender without GCD objects of its own (`LayerContender`) runs its layer on the system engine's
            // threads, which may block; it lacks `blocking-in-blocks` only as it lacks every GCD capability.
            blockingInBlocks = capabilities.contains(.blockingInBlocks) || !capabilities.contains(.dispatchObjects)
        }
    }

    public let features: Features

    public init(features: Features) { self.features = features }

    /// The program of `seed`.
    public func program(seed: UInt64) -> OperationProgram {
        var random = SplitMix64(seed: seed)
        let queues = (0..<Int.random(in: 1...3, using: &random)).map { _ in
            let pinned = random.chance(20)
            return OperationProgram.QueueSpec(
                width: pinned ? 1 : random.pick([1, 1, 2, 3, OperationProgram.unlimited])!, suspended: random.chance(30), pinned: pinned)
        }
        let ops = (0..<Int.random(in: 3...8, using: &random)).map { _ in
            let kind = random.pick([OperationProgram.Kind.block, .main, .async])!
            return OperationProgram.Op(
                kind: kind, held: (kind == .async || features.blockingInBlocks) && random.chance(40),
                priority: random.chance(30) ? random.pick(OperationPriority.allCases)! : .normal,
                completion: random.chance(50), extraBlocks: kind == .block && random.chance(30) ? Int.random(in: 1...2, using: &random) : 0)
        }
        var program = OperationProgram(queues: queues, ops: ops, calls: [])
        if features.blockingInBlocks {
            // The aim's host: op0 a held body, added first to a queue that is running, so a release can call from it.
            program.ops[0].held = true
            if program.ops[0].kind == .async { program.ops[0].kind = .main }
            program.queues[0].suspended = false
        }
        var model = OperationModel(program, features: features)
        // Each program aims at one call from inside a body, the seeds taking them in turn (as the GCD programs aim at
        // the reach matrix's calls), so that every one is made from a body many times over the default budget.
        let inside = OperationCalls.inside.filter { features.removeDependency || $0 != RemoveDependency.self }
        if features.blockingInBlocks {
            model.aim = inside[Int(seed % UInt64(inside.count))]
            let host = Add(op: 0, queue: 0)
            if model.take(host) != nil { program.calls.append(host) }
        }
        let total = OperationCalls.drawn.map(\.weight).reduce(0, +)
        let length = Int.random(in: 8...24, using: &random)
        var tries = 0
        while program.calls.count < length && tries < length * 20 {
            tries += 1
            var roll = Int.random(in: 0..<total, using: &random)
            let kind = OperationCalls.drawn.first {
                roll -= $0.weight; return roll < 0
            }!.call
            guard let call = kind.propose(model, &random), model.take(call) != nil else { continue }
            program.calls.append(call)
        }
        return program
    }
}
