import ArenaContract

/// The model of an operation-queue program (`OperationProgram`): Foundation's `OperationQueue` contract as a
/// simulation that runs each step to quiescence.
///
/// The script makes one call a step (`OperationCall`), then waits until the layer has done everything that call lets
/// happen without a further call: every operation ready, with room on a queue that is not suspended, has started;
/// every one that is not held (`OperationProgram.Op.held`: its body waits for the script's `release`) has finished and
/// run its completion block. The model predicts that state exactly: in which step each operation starts and finishes,
/// what each read returns, when each waiter returns. A step whose quiescent state depends on timing (an operation made
/// ready by another's finish in the same step, on a queue with no room for every candidate; several operations added
/// one by one to a running queue without room for all) is `ambiguous`, and the generator does not make it. Within a
/// step, the model also fixes what the contract orders: a dependency ends before its dependent starts, a barrier
/// after every earlier operation and before every later one, and a queue one wide starts the operations that were
/// waiting in order of priority, then of addition.
///
/// Cheap: a settle is quadratic in the operations of a queue (a dozen at most).
public struct OperationModel: Sendable {
    /// What an operation is doing.
    public enum Phase: Sendable, Equatable {
        /// Made, on no queue.
        case created
        /// On a queue, not started.
        case waiting
        /// Its body started and waits for `release` (held).
        case running
        case finished
    }

    /// An operation as the model sees it.
    public struct Op: Sendable {
        public var spec: OperationProgram.Op
        public var phase: Phase = .created
        /// The queue it was added to; nil until added, or for one started by hand.
        public var queue: Int?
        /// Order of addition to its queue, over the whole program.
        public var added: Int?
        /// The operations it depends on, in the order added (`LayerOperation.dependencies`).
        public var dependencies: [Int] = []
        /// The barriers of its queue it waits for (added before it, unfinished when it was added); for a barrier, the
        /// members added before it.
        public var implicit: [Int] = []
        public var priority: OperationPriority
        /// Whether its priority changed after it was added: among operations of its new priority, the reference
        /// (swift-corelibs-foundation) files it as newly added, where the contract keeps the order of addition
        /// (`arena explore`, seed op:91), so the model leaves its place among them open.
        public var reprioritized = false
        public var cancelled = false
        /// Whether `release` was called: the body's gate is open.
        public var released = false
        /// The step its body started in; nil while it has not, and for good when it never runs (cancelled first).
        public var started: Int?
        /// The step it finished in.
        public var finished: Int?
        /// For an operation cancelled before it started: the first step it may finish in, once on a queue. A layer
        /// may finish it at once or when its queue gets to it (`finished`); until then its state is not predicted.
        public var mayFinishFrom: Int?
        /// What the body reads from `isCancelled` as it ends (a held body reads after its release).
        public var seesCancelled = false
        /// The operations whose ends its start must follow: its dependencies and barriers when it started.
        public var after: [Int] = []

        init(spec: OperationProgram.Op) {
            self.spec = spec
            priority = spec.priority
        }

        /// Whether the model cannot tell yet whether it finished: cancelled on a queue, not finished in the model.
        var uncertain: Bool { mayFinishFrom != nil && phase != .finished }
        /// The first step it may have finished in.
        var earliestFinish: Int? { mayFinishFrom.map { min($0, finished ?? $0) } ?? finished }
    }

    /// A queue as the model sees it.
    public struct Queue: Sendable {
        public var width: Int
        public var suspended: Bool
        /// Everything added, barriers included, in order of addition.
        public var members: [Int] = []
        /// Whether its operations run on a serial dispatch queue of the engine (`underlyingQueue`); its width stays 1.
        public let pinned: Bool
    }

    /// A thread blocked in a wait the script started (`OperationCall` waiters).
    public struct Waiter: Sendable {
        /// The operations it waits for.
        public let targets: [Int]
        /// The queue it waits to see empty (`waitUntilAllOperationsAreFinished`): what was added while it waited
        /// counts too, in the reference as in the default layer.
        public let queue: Int?
        /// The step it returns in at the latest; nil while a target is unfinished.
        public var returned: Int?
        /// The first step it may return in: a queue's wait may leave out a barrier block that waits (the reference
        /// does: `arena explore`, seed op:182; the default layer waits for it), so it may return once every operation
        /// but the barriers finished.
        public var mayReturnFrom: Int?
    }

    public internal(set) var ops: [Op]
    public internal(set) var queues: [Queue]
    public internal(set) var waiters: [Waiter] = []
    /// The step being modelled (0 before the first call).
    public internal(set) var step = 0
    /// Orders within a step that the contract fixes: `first` starts before `then`.
    public internal(set) var startsBefore: [(first: Int, then: Int, step: Int)] = []
    /// Additions counted over the program (`Op.added`).
    var additions = 0
    /// Set by a settle whose outcome depends on timing; the generator drops such a step.
    public internal(set) var ambiguous: String?

    /// What the layer can be asked to do.
    public let features: OperationGenerator.Features
    /// The call the generator aims to make from inside a body, when a release offers one (`OperationGenerator`).
    var aim: (any OperationCall.Type)?

    /// The model of `program` before its first call: its queues, and one more that no call names, where the drain adds
    /// what is left (`OperationRun.drain`).
    public init(_ program: OperationProgram, features: OperationGenerator.Features) {
        self.features = features
        ops = program.ops.map(Op.init)
        queues = (program.queues + [OperationProgram.drainQueue]).map {
            Queue(width: $0.pinned ? 1 : $0.width, suspended: $0.suspended, pinned: $0.pinned)
        }
    }

    /// The queues the calls may name: all but the drain's.
    var queueIndices: [Int] { Array(queues.indices.dropLast()) }

    /// Whether adding `op` to `queue` would put a cancelled operation behind a barrier that waits, where the layer
    /// cannot take that (`cancel-around-barriers`).
    func cancelledBehindBarrier(_ op: Int, _ queue: Int) -> Bool { ops[op].cancelled && barrierWaits(queue) }

    /// Whether a barrier waits on `queue` and the layer cannot take cancelled operations around one
    /// (`cancel-around-barriers`).
    func barrierWaits(_ queue: Int) -> Bool {
        !features.cancelAroundBarriers && queues[queue].members.contains { ops[$0].spec.kind == .barrier && ops[$0].phase != .finished }
    }

    // MARK: - Questions the calls ask

    /// Whether every dependency of `op` finished (or it has none left): `isReady` for an operation not cancelled.
    func dependenciesFinished(_ op: Int) -> Bool { ops[op].dependencies.allSatisfy { ops[$0].phase == .finished } }

    /// Whether `op` may start: cancelled (which ignores what it waits for: dependencies and barriers alike, both
    /// dependencies in Foundation), or all it waits for finished.
    func ready(_ op: Int) -> Bool {
        ops[op].cancelled || (ops[op].dependencies + ops[op].implicit).allSatisfy { ops[$0].phase == .finished }
    }

    /// Whether `op` depends, directly or through others, on `other`.
    func dependsOn(_ op: Int, _ other: Int) -> Bool {
        var seen: Set<Int> = []
        var stack = [op]
        while let next = stack.popLast() {
            for dependency in ops[next].dependencies + ops[next].implicit where seen.insert(dependency).inserted {
                if dependency == other { return true }
                stack.append(dependency)
            }
        }
        return false
    }

    /// The members of `queue` not finished: what `operationCount` counts (barriers excluded) and `operations` lists.
    func unfinished(_ queue: Int, barriers: Bool = false) -> [Int] {
        queues[queue].members.filter { ops[$0].phase != .finished && (barriers || ops[$0].spec.kind != .barrier) }
    }

    /// Whether a member of `queue` has a finish the model cannot tell yet.
    func hasUncertain(_ queue: Int) -> Bool { queues[queue].members.contains { ops[$0].uncertain } }

    // MARK: - Running a step to quiescence

    /// Opens step `step + 1`: calls act on the model between `begin` and `settle`.
    mutating func begin() {
        step += 1
        ambiguous = nil
        readyAtStart = Set(ops.indices.filter { ops[$0].phase == .waiting && ready($0) })
    }

    /// The waiting operations that were ready before this step's call changed anything.
    private var readyAtStart: Set<Int> = []

    /// Runs the step to quiescence: starts what may start, queue by queue, in order of priority then addition,
    /// finishes what is not held, until nothing changes; then returns the waiters whose targets all finished.
    mutating func settle() {
        var candidates: [Int: Set<Int>] = [:]
        var orderedStarts: [Int: [Int]] = [:]
        var changed = true
        while changed {
            changed = false
            for queue in queues.indices where !queues[queue].suspended {
                var running = queues[queue].members.filter { ops[$0].phase == .running }.count
                let now = queues[queue].members.filter { ops[$0].phase == .waiting && ready($0) }
                    .sorted { (ops[$0].priority, -ops[$0].added!) > (ops[$1].priority, -ops[$1].added!) }
                candidates[queue, default: []].formUnion(now)
                for candidate in now {
                    guard running < queues[queue].width else { break }
                    start(candidate)
                    if ops[candidate].phase == .running { running += 1 }
                    if queues[queue].width == 1 && readyAtStart.contains(candidate) && ops[candidate].started == step {
                        orderedStarts[queue, default: []].append(candidate)
                    }
                    changed = true
                }
            }
        }
        for (queue, competing) in candidates where competing.count > 1 && !roomForAll(queue, competing) {
            if !competing.isSubset(of: readyAtStart) {
                ambiguous = "q\(queue): an operation made ready within the step competes for room with others"
            }
            if competing.contains(where: { op in
                ops[op].reprioritized && competing.contains { $0 != op && ops[$0].priority == ops[op].priority }
            }) {
                ambiguous = "q\(queue): an operation whose priority changed competes for room with others of that priority"
            }
        }
        for pending in ops.indices where ops[pending].uncertain {
            if let dependent = ops.indices.first(where: {
                ops[$0].phase != .finished && !ops[$0].cancelled && (ops[$0].dependencies + ops[$0].implicit).contains(pending)
            }) {
                ambiguous = "op\(dependent) waits for op\(pending), cancelled: a layer may finish that one at once"
            }
        }
        for (_, starts) in orderedStarts {
            for (index, first) in starts.enumerated() {
                for then in starts[(index + 1)...]
                where ops[first].priority > ops[then].priority || !ops[first].reprioritized && !ops[then].reprioritized {
                    startsBefore.append((first, then, step))
                }
            }
        }
        for index in waiters.indices where waiters[index].returned == nil {
            let targets = waiters[index].targets
            guard targets.allSatisfy({ ops[$0].phase == .finished || ops[$0].spec.kind == .barrier }) else { continue }
            if waiters[index].queue.map({ unfinished($0).isEmpty }) ?? true, waiters[index].mayReturnFrom == nil {
                waiters[index].mayReturnFrom = step
            }
            let emptied = waiters[index].queue.map { unfinished($0, barriers: true).isEmpty } ?? true
            if emptied && targets.allSatisfy({ ops[$0].phase == .finished }) { waiters[index].returned = step }
        }
    }

    /// Whether `queue` had room in this step for every operation in `competing` at once, whatever order they became
    /// ready in (a single one starts or waits whatever the timing): each held one keeps a slot, the rest need one between them, beside what ran before the step and runs
    /// on.
    private func roomForAll(_ queue: Int, _ competing: Set<Int>) -> Bool {
        let width = queues[queue].width
        guard width != OperationProgram.unlimited else { return true }
        let others = queues[queue].members.filter { ops[$0].phase == .running && !competing.contains($0) }.count
        let held = competing.filter { ops[$0].spec.held && !ops[$0].released && !ops[$0].cancelled }.count
        let passing = competing.count > held ? 1 : 0
        return others + held + passing <= width
    }

    /// Starts `op` now: a cancelled one finishes without its body; a held one runs until released.
    private mutating func start(_ op: Int) {
        if ops[op].cancelled {
            finish(op)
            return
        }
        ops[op].started = step
        ops[op].after = (ops[op].dependencies + ops[op].implicit).filter { ops[$0].started != nil }
        if ops[op].spec.held && !ops[op].released {
            ops[op].phase = .running
        } else {
            ops[op].seesCancelled = ops[op].cancelled
            finish(op)
        }
    }

    /// Marks `op` finished in this step.
    mutating func finish(_ op: Int) {
        ops[op].phase = .finished
        ops[op].finished = step
    }

    // MARK: - Changes the calls make

    /// Adds `op` to `queue`: it waits for the unfinished barriers added before it; a barrier waits for every member
    /// added before it.
    mutating func add(_ op: Int, to queue: Int) {
        ops[op].queue = queue
        ops[op].added = additions
        additions += 1
        ops[op].phase = .waiting
        if ops[op].cancelled { ops[op].mayFinishFrom = step }
        if ops[op].spec.kind == .barrier {
            ops[op].implicit = queues[queue].members.filter { ops[$0].phase != .finished }
        } else {
            ops[op].implicit = queues[queue].members.filter { ops[$0].spec.kind == .barrier && ops[$0].phase != .finished }
        }
        queues[queue].members.append(op)
    }

    /// Cancels `op`: nothing for a finished one; one that waits finishes without its body, at once or when its queue
    /// gets to it; a running one reads `isCancelled` true as it ends.
    mutating func cancel(_ op: Int) {
        guard ops[op].phase != .finished else { return }
        ops[op].cancelled = true
        if ops[op].phase == .waiting { ops[op].mayFinishFrom = step }
    }

    /// Opens the gate of `op`: a running one finishes now; one not started yet runs straight through.
    mutating func release(_ op: Int) {
        ops[op].released = true
        if ops[op].phase == .running {
            ops[op].seesCancelled = ops[op].cancelled
            finish(op)
        }
    }

    /// Adds a waiter for `targets`, and for `queue` to be empty if given.
    mutating func wait(for targets: [Int], emptying queue: Int? = nil) -> Int {
        waiters.append(Waiter(targets: targets, queue: queue))
        return waiters.count - 1
    }

    /// Marks `op` started and finished by hand (`start()`) in this step.
    mutating func startByHand(_ op: Int) {
        if !ops[op].cancelled {
            ops[op].started = step
            ops[op].after = ops[op].dependencies.filter { ops[$0].started != nil }
        }
        finish(op)
    }

    mutating func setWidth(_ width: Int, of queue: Int) { queues[queue].width = width }
    mutating func setSuspended(_ suspended: Bool, _ queue: Int) { queues[queue].suspended = suspended }
    mutating func setPriority(_ priority: OperationPriority, of op: Int) {
        if ops[op].phase == .waiting && priority != ops[op].priority { ops[op].reprioritized = true }
        ops[op].priority = priority
    }
    mutating func addDependency(_ op: Int, on other: Int) { ops[op].dependencies.append(other) }
    mutating func removeDependency(_ op: Int, on other: Int) { ops[op].dependencies.removeAll { $0 == other } }

    /// A new barrier operation, on no queue yet (`addBarrierBlock` makes one): its index.
    mutating func makeBarrier() -> Int {
        ops.append(Op(spec: .init(kind: .barrier, held: false, priority: .normal, completion: false, extraBlocks: 0)))
        return ops.count - 1
    }
}
