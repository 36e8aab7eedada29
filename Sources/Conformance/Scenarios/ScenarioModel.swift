import ArenaContract

/// What the contract allows a `Scenario` to do, worked out by running the script on paper: a sequential model of
/// the calling thread's steps (which queues are held at each step, what each wait must return) and, where the
/// contract leaves the order free, constraints every allowed trace meets rather than a list of traces: which blocks
/// run exactly once, at most once or never; which events must come before which; which blocks must never overlap;
/// the value each block reads. A trace is allowed when it meets them all (`ScenarioCheck`).
///
/// The model also ends the script: every queue still suspended is resumed and every inactive one activated
/// (`epilogue`), so whatever must run can.
public struct ScenarioModel: Sendable {
    /// How often a block must run.
    public enum Runs: Sendable, Equatable {
        case once
        /// Zero or one time: a work item or timer cancelled while it may already have started.
        case atMostOnce
        /// Never: cancelled while everything above it was held.
        case never
        /// Any number of times: a source's event handler, whose merges coalesce.
        case anyTimes
    }

    /// A user-data source: its handlers, and what was merged into it.
    public struct SourceInfo: Sendable {
        public let handler: Int
        public let merge: DataMerge
        public let cancelHandler: Int?
        /// The values merged by the script and by blocks that run for sure, in the script's order (blocks' merges
        /// after the script's).
        public var merged: [UInt] = []
        /// The values merged by blocks that may not run.
        public var mayMerge: [UInt] = []
        /// Whether the script cancelled it (the run cancels every other one once everything owed has run).
        public var cancelled = false
        /// Whether blocks merge into it (their order among the script's merges is free).
        public var blockMerges = false
        /// Its suspensions: from the return of the suspend that held it to the resume that freed it, with how many
        /// handler calls may still start then (one delivery may be in flight as it is suspended; none if it was
        /// inactive).
        public var suspensions: [(from: Point, to: Point, inFlight: Int)] = []

        /// Whether every merge reaches the handler: the source is cancelled only at the end, every merge is sure, and,
        /// replacing, every merge is the script's (so the last one is known).
        public var exact: Bool {
            !cancelled && mayMerge.isEmpty && (merge != .replace || !blockMerges && !merged.contains(0))
        }

        /// What the handler's data comes to over all its calls, when `exact`: the sum, the OR or the last value.
        public var total: UInt {
            switch merge {
            case .add: merged.reduce(0, +)
            case .or: merged.reduce(0, |)
            case .replace: merged.last ?? 0
            }
        }
    }

    /// What a wait must return.
    public enum Expected: Sendable, Equatable {
        case success, timedOut
        /// Either: what it waits for may or may not have run before a queue was held again.
        case either
    }

    /// A point of the trace: a block's start or end, a step's mark (recorded just before the step's call) or
    /// return (just after it), or for a step made in a context, the script's submission of the context and its return.
    public enum Point: Hashable, Sendable, CustomStringConvertible {
        case start(Int)
        case end(Int)
        case mark(Int)
        case returned(Int)
        case contextCall(Int)
        case contextReturned(Int)

        public var description: String {
            switch self {
            case .start(let b): "b\(b) started"
            case .end(let b): "b\(b) ended"
            case .mark(let s): "step \(s) began"
            case .returned(let s): "step \(s) returned"
            case .contextCall(let s): "step \(s)'s context was submitted"
            case .contextReturned(let s): "step \(s)'s context submission returned"
            }
        }
    }

    /// `before` must precede `after` whenever both happened.
    public struct Order: Sendable {
        public let before: Point
        public let after: Point
        public let key: Outcome
        public let why: String
    }

    /// Blocks no two of which may overlap; with `alone`, only that block may overlap none of the others.
    public struct Exclusion: Sendable {
        public let blocks: [Int]
        public var alone: Int? = nil
        public let why: String
    }

    /// A block submitted to a queue somewhere between two points of the trace: a step's mark and return, or its
    /// parent block's start and end.
    public struct Submission: Sendable {
        public let block: Int
        public let from: Point
        public let to: Point
    }

    /// Blocks submitted to one queue whose chain has a serial link: they start one at a time, so in the order they
    /// were submitted, and a submission that ended before another began came first.
    public struct FIFO: Sendable {
        public let queue: Int
        public let submissions: [Submission]
    }

    /// The queue index of a block submitted straight to the engine's global queue.
    public static let global = -1

    /// A block that runs through a queue: where it runs and what it reads.
    public struct BlockInfo: Sendable {
        /// The program's queue it is submitted to, or `ScenarioModel.global`.
        public let queue: Int
        public var runs: Runs
        /// The specific values it may read (`nil` among them: none set up its chain): the one its chain has when it
        /// is submitted and every one it has later, while it may still start; `nil` for a block that runs on its
        /// caller's thread (a once's body), which reads whatever its caller would.
        public let specifics: Set<Int?>?
        /// The class it must run at (`nil`: unchecked, a block run on its caller's thread: a sync's, a once's body).
        public var qos: QoSClass? = nil
        /// The specific values it may read as it ends, after its calls: those its chain has from its submission on
        /// (a context's call may have changed its own queue's).
        public var specificsAtEnd: Set<Int?>? = nil
        /// The step whose mark records the deadline it must not start before, for `asyncAfter` and timers.
        public let deadlineStep: Int?
        /// A timer's handler: each call must see data 1.
        public let isTimerHandler: Bool

        /// The queue as messages name it: `q1`, or `global`.
        public var queueName: String { queue == ScenarioModel.global ? "global" : "q\(queue)" }
    }

    public let scenario: Scenario
    /// Steps the runner makes after the script: resumes and activations until nothing is held.
    public let epilogue: [Scenario.Step]
    public private(set) var blocks: [Int: BlockInfo] = [:]
    public private(set) var orders: [Order] = []
    public private(set) var exclusions: [Exclusion] = []
    public private(set) var fifo: [FIFO] = []
    /// What each wait step must return, by step.
    public private(set) var waits: [Int: Expected] = [:]
    /// The points that must precede a wait's return when it succeeded, by step.
    public private(set) var onSuccess: [Int: [Point]] = [:]
    /// The steps that are `apply`, with their iterations.
    public private(set) var applies: [Int: Int] = [:]
    /// Semaphore waits, by step: the semaphore.
    public private(set) var semaphoreWaits: [Int: Int] = [:]
    /// Timers by index: their handler and cancel handler.
    public private(set) var timers: [Int: (handler: Int, cancel: Int)] = [:]
    /// Blocks that wait inside (up to 2 s) for a unit someone gives them while they wait (handoff waiters, ping-pong
    /// and sync-beside blocks), each with who gives it, as the check's message names it.
    public private(set) var handoffs: [Int: String] = [:]

    /// The queues (and sources) before each step of `program`, and after its last.
    let states: [QueueStates]
    /// The steps made in a context, each with its host block.
    public private(set) var hosts: [Int: Int] = [:]
    /// The user-data sources, by index.
    public private(set) var sources: [Int: SourceInfo] = [:]
    /// The queues given a finalizer: its block, and the context it must be given (`nil`: it must not run, the context
    /// being nil when the run releases the queue).
    public private(set) var finalizers: [Int: (block: Int, context: Int?)] = [:]
    /// The bytes each `data` step makes, by step.
    public private(set) var datas: [Int: [UInt8]] = [:]
    /// What each `getSpecific` step must return, by step.
    public private(set) var reads: [Int: Int?] = [:]
    /// The once-objects performed: the bodies of their performs (one of which runs), and whether a perform certainly
    /// happens (one made by the script, or by a block that runs for sure).
    public private(set) var onces: [Int: (bodies: [Int], certain: Bool)] = [:]

    /// The whole program the runner makes: the script, then the epilogue.
    public var program: [Scenario.Step] { scenario.steps + epilogue }

    /// The blocks that must have run before the run may stop (every `once` block).
    public var owed: Set<Int> { Set(blocks.filter { $0.value.runs == .once }.keys) }

    /// The model of `scenario`, which must be valid (`Scenario.normalized()`).
    public init(_ scenario: Scenario) {
        self.scenario = scenario
        var states = [QueueStates(scenario)]
        for step in scenario.steps {
            var next = states[states.count - 1]
            next.apply(step)
            states.append(next)
        }
        var epilogue: [Scenario.Step] = []
        let last = states[states.count - 1]
        for queue in scenario.queues.indices {
            epilogue += Array(repeating: .resume(queue), count: last.suspended[queue])
            if last.inactive[queue] { epilogue.append(.activate(queue)) }
        }
        for (u, count) in last.sourceSuspensions.sorted(by: { $0.key < $1.key }) {
            epilogue += Array(repeating: .sourceResume(source: u), count: count)
        }
        epilogue += last.inactiveSources.sorted().map { .sourceActivate(source: $0) }
        for step in epilogue {
            var next = states[states.count - 1]
            next.apply(step)
            states.append(next)
        }
        self.epilogue = epilogue
        self.states = states
        var builder = Builder(scenario: scenario, epilogue: epilogue, states: states, finalTargets: last.target)
        builder.build()
        blocks = builder.blocks
        orders = builder.orders
        exclusions = builder.exclusions
        fifo = builder.fifo
        waits = builder.waits
        onSuccess = builder.onSuccess
        applies = builder.applies
        semaphoreWaits = builder.semaphoreWaits
        timers = builder.timers
        handoffs = builder.handoffs
        reads = builder.reads
        var bytes: [Int: [UInt8]] = [:]
        for (k, step) in scenario.steps.enumerated() {
            guard case .data(let d, let operation) = step.call else { continue }
            switch operation {
            case .bytes(let first, let count): bytes[d] = (0..<count).map { first &+ UInt8(truncatingIfNeeded: $0) }
            case .append(let a, let b): bytes[d] = bytes[a]! + bytes[b]!
            case .subdata(let a, let lower, let upper):
                let all = bytes[a]!
                bytes[d] = Array(all[min(lower, all.count)..<min(upper, all.count)])
            case .contiguous(let a): bytes[d] = bytes[a]!
            }
            datas[k] = bytes[d]
        }
        for (q, block) in last.finalizers { finalizers[q] = (block, last.contexts[q]) }
        sources = builder.sources
        for (u, source) in sources where source.merge == .replace && source.merged.last == 0 && builder.heldMerges[u] == true {
            if builder.blockMerges[u] == nil { blocks[source.handler]!.runs = .never }
        }
        for (u, merges) in builder.blockMerges {
            for (value, parent) in merges {
                sources[u]!.blockMerges = true
                if builder.blocks[parent]!.runs == .once { sources[u]!.merged.append(value) } else { sources[u]!.mayMerge.append(value) }
            }
        }
        for (n, performs) in builder.performs {
            let certain = performs.contains { $0.parent.map { builder.blocks[$0]!.runs == .once } ?? true }
            onces[n] = (performs.map(\.body), certain)
        }
        for (k, step) in scenario.steps.enumerated() { if case .within(_, let host, _) = step { hosts[k] = host } }
    }
}

// MARK: - The queues' state, step by step

/// Which queues are suspended, inactive, and where each points, before one step of the script.
struct QueueStates: Sendable {
    var suspended: [Int]
    var inactive: [Bool]
    var target: [Int?]
    /// Each queue's own specific value.
    var specifics: [Int?]
    /// The user-data sources made inactive and not yet activated.
    var inactiveSources: Set<Int> = []
    /// How many times each user-data source is suspended.
    var sourceSuspensions: [Int: Int] = [:]
    /// Each queue's context value, and its finalizer block.
    var contexts: [Int: Int] = [:]
    var finalizers: [Int: Int] = [:]

    init(_ scenario: Scenario) {
        suspended = Array(repeating: 0, count: scenario.queues.count)
        inactive = scenario.queues.map(\.inactive)
        target = scenario.queues.map(\.target)
        specifics = scenario.queues.map(\.specific)
    }

    mutating func apply(_ step: Scenario.Step) {
        switch step {
        case .within(_, _, let inner): apply(inner)
        case .suspend(let q): suspended[q] += 1
        case .resume(let q): suspended[q] -= 1
        case .activate(let q): inactive[q] = false
        case .source(let u, _, _, _, _, _, true): inactiveSources.insert(u)
        case .sourceActivate(let u): inactiveSources.remove(u)
        case .setContext(let q, let value): contexts[q] = value
        case .setFinalizer(let q, let block): finalizers[q] = block
        case .sourceSuspend(let u): sourceSuspensions[u, default: 0] += 1
        case .sourceResume(let u): sourceSuspensions[u, default: 0] -= 1
        case .retarget(let q, let t): target[q] = t
        case .setSpecific(let q, let value): specifics[q] = value
        default: break
        }
    }

    /// `queue` and every queue above it, with `targets` (the chain blocks run through).
    static func chain(_ queue: Int, _ targets: [Int?]) -> [Int] {
        var links = [queue]
        var next = targets[queue]
        while let link = next {
            links.append(link)
            next = targets[link]
        }
        return links
    }

    /// Whether `queue` itself is suspended or inactive.
    func holds(_ queue: Int) -> Bool { suspended[queue] > 0 || inactive[queue] }

    /// Whether anything along `queue`'s chain holds its blocks back.
    func held(_ queue: Int) -> Bool { Self.chain(queue, target).contains(where: holds) }
}

// MARK: - Validity

extension Scenario {
    /// The script with every step the contract does not allow at its point left out: a resume with nothing suspended,
    /// a retarget of an active queue or to a later one, a sync onto a held queue (it would wait for good), a use of a
    /// work item or timer not made before, a wait on a cancelled item, a second wait on an item unless its own queue
    /// held it through the first (which then timed out for sure), a reference out of range. What the generator makes is valid already; shrinking removes steps and relies on this to keep the rest
    /// meaningful.
    public func normalized() -> Scenario {
        var result = self
        result.steps = validSteps().map { steps[$0] }
        return result
    }

    /// The indices of the steps `normalized()` keeps.
    public func validSteps() -> [Int] {
        var indices = Array(steps.indices)
        while true {
            let (kept, states) = validInOrder(indices)
            let deadlocking = Set(
                kept.enumerated().filter {
                    !syncsAreSafe(steps[$0.element], at: $0.offset, states, after: kept[..<$0.offset].map { steps[$0] })
                        || !handoffIsSafe(steps[$0.element], at: $0.offset, states)
                        || !meetingIsSafe(steps[$0.element], at: $0.offset, states)
                }
                .map(\.element))
            if deadlocking.isEmpty { return kept }
            indices = kept.filter { !deadlocking.contains($0) }
        }
    }

    /// Whether every sync a block of `step` (the `position`th kept step, `states` before each kept step and after the
    /// last) makes onto another queue is sure to finish: the two chains share no queue (so no serial link or barrier
    /// between them waits for the block), the target chain's root comes later than the caller's (so no two blocks
    /// sync onto each other's chains), and nothing holds the target chain from this step on (a held target would
    /// keep the block, and whatever waits for it, waiting).
    func syncsAreSafe(_ step: Step, at position: Int, _ states: [QueueStates], after earlier: [Step]) -> Bool {
        let targets = states[states.count - 1].target
        for (a, block) in step.placed {
            for case .nestedSync(let b, _) in block.actions {
                guard a != ScenarioModel.global else { return false }
                let from = QueueStates.chain(a, targets)
                let onto = QueueStates.chain(b, targets)
                if !Set(from).isDisjoint(with: onto) || onto.last! <= from.last! { return false }
                if states[position...].contains(where: { $0.held(b) }) { return false }
            }
        }
        return contextIsSafe(step, targets, after: earlier)
    }

    /// Whether a step made in a context can finish there: a `sync` made inside a context goes onto a chain that shares
    /// no queue with the chains the context runs through and whose root comes later (as a sync from a block), or,
    /// from a plain block, onto a chain of concurrent links only that no barrier of the steps `earlier` holds (a sync
    /// onto a concurrent queue the caller runs on runs beside it; a barrier submitted while the caller runs would wait
    /// for it, but the script submits nothing until the context's host has ended).
    func contextIsSafe(_ step: Step, _ targets: [Int?], after earlier: [Step]) -> Bool {
        guard case .within(let context, _, let inner) = step else { return true }
        let r: Int
        switch inner {
        case .sync(let q, _), .barrierSync(let q, _): r = q
        default: return true
        }
        let onto = QueueStates.chain(r, targets)
        let hosts = context.chains(targets)
        if hosts.allSatisfy({ Set($0).isDisjoint(with: onto) && onto.last! > $0.last! }) { return true }
        guard case .block(_, barrier: false) = context, case .sync = inner else { return false }
        let concurrent = onto.allSatisfy { queues[$0].kind == .concurrent } && hosts.joined().allSatisfy { queues[$0].kind == .concurrent }
        return concurrent && !Self.barriers(earlier).contains { onto.contains($0) }
    }

    /// The queues a barrier of `steps` is submitted to (a barrier step, a work item flagged barrier, a barrier
    /// context).
    static func barriers(_ steps: [Step]) -> Set<Int> {
        var queues: Set<Int> = []
        for step in steps {
            switch step {
            case .barrierAsync(let q, _), .barrierSync(let q, _), .item(_, let q, true, _): queues.insert(q)
            case .within(let context, _, let inner):
                if case .block(let q, true) = context { queues.insert(q) }
                switch inner {
                case .barrierAsync(let q, _), .barrierSync(let q, _), .item(_, let q, true, _): queues.insert(q)
                default: break
                }
            default: break
            }
        }
        return queues
    }

    /// Whether a handoff's giver is sure to run while its waiters wait: its chain shares no queue with a waiter's, its
    /// root comes later than theirs (so every block that waits inside, for a sync or a handoff, waits for a chain with
    /// a later root, and no two chains wait for each other), and nothing holds any of their chains from this step on.
    func handoffIsSafe(_ step: Step, at position: Int, _ states: [QueueStates]) -> Bool {
        guard case .handoff(let waiters, let giver) = step else { return true }
        let targets = states[states.count - 1].target
        let giverChain = QueueStates.chain(giver.queue, targets)
        let gives = Set(giverChain)
        for waiter in waiters {
            let chain = QueueStates.chain(waiter.queue, targets)
            if !gives.isDisjoint(with: chain) || chain.last! >= giverChain.last! { return false }
        }
        let queues = waiters.map(\.queue) + [giver.queue]
        return !states[position...].contains { state in queues.contains { state.held($0) } }
    }

    /// Whether the block of a ping-pong or a sync beside is sure to meet the script: nothing holds its queue's chain
    /// from this step on, and beside a sync every link of the chain is concurrent (a serial one would make the sync
    /// wait for the block that waits for it).
    func meetingIsSafe(_ step: Step, at position: Int, _ states: [QueueStates]) -> Bool {
        let queue: Int
        switch step {
        case .pingPong(let q, _): queue = q
        case .syncBeside(let q, _, _):
            queue = q
            if QueueStates.chain(q, states[states.count - 1].target).contains(where: { queues[$0].kind == .serial }) {
                return false
            }
        default: return true
        }
        return !states[position...].contains { $0.held(queue) }
    }

    /// The steps of `indices` the contract allows in order, and the queues' state before each and after the last.
    private func validInOrder(_ indices: [Int]) -> (kept: [Int], states: [QueueStates]) {
        var state = QueueStates(self)
        var states: [QueueStates] = []
        // Per item: cancelled; waited (a wait that may have succeeded: a second would be misuse); and whether its
        // own queue has held it since it was submitted (a wait now certainly times out, so it may be waited again).
        var items: [Int: (cancelled: Bool, waited: Bool, queue: Int, held: Bool)] = [:]
        var timers: [Int: Bool] = [:]  // cancelled
        var made: [Int: Bool] = [:]  // user-data source → cancelled
        var datas: Set<Int> = []
        var kept: [Int] = []
        let queueCount = queues.count
        func fits(_ q: Int) -> Bool { q >= 0 && q < queueCount }
        func fits(_ block: Block) -> Bool {
            block.actions.allSatisfy {
                switch $0 {
                case .signal(let n): n >= 0 && n < counters
                case .locked(let n): n >= 0 && n < locks
                case .nested(let q, _), .nestedSync(let q, _): fits(q)
                case .once(let n, _): n >= 0 && n < onces
                case .merge(let u, _): made[u] != nil
                }
            }
        }
        func allowed(_ step: Step) -> Bool {
            var valid: Bool
            switch step {
            case .async(let q, let b), .barrierAsync(let q, let b), .after(let q, let b, _):
                valid = fits(q) && fits(b)
            case .sync(let q, let b), .barrierSync(let q, let b):
                valid = fits(q) && fits(b) && !state.held(q)
            case .groupAsync(let g, let q, let b), .groupEnter(let g, let q, let b), .groupNotify(let g, let q, let b):
                valid = g >= 0 && g < groups && fits(q) && fits(b)
            case .groupWait(let g): valid = g >= 0 && g < groups
            case .item(let i, let q, _, let b):
                valid = items[i] == nil && fits(q) && fits(b)
                if valid { items[i] = (false, false, q, state.holds(q)) }
            case .itemCancel(let i):
                valid = items[i] != nil
                if valid { items[i]!.cancelled = true }
            case .itemNotify(let i, let q, let b): valid = items[i] != nil && fits(q) && fits(b)
            case .itemWait(let i):
                valid = items[i].map { !$0.cancelled && !$0.waited } ?? false
                if valid && !items[i]!.held { items[i]!.waited = true }
            case .semaphoreWait(let n), .signal(let n): valid = n >= 0 && n < counters
            case .suspend(let q), .activate(let q): valid = fits(q)
            case .resume(let q): valid = fits(q) && state.suspended[q] > 0
            case .retarget(let q, let t): valid = fits(q) && state.inactive[q] && (t.map { $0 >= 0 && $0 < q } ?? true)
            case .timer(let t, let q, let h, _, _):
                valid = timers[t] == nil && fits(q) && fits(h)
                if valid { timers[t] = false }
            case .timerCancel(let t):
                valid = timers[t] == false
                if valid { timers[t] = true }
            case .apply(let n, let work): valid = n >= 0 && work >= 0
            case .pingPong(let q, let b): valid = fits(q) && b.actions.isEmpty
            case .syncBeside(let q, let waiter, let reader):
                valid = fits(q) && waiter.actions.isEmpty && reader.actions.isEmpty && !state.held(q)
            case .barrierOnGlobal(let waiter, let giver, _): valid = waiter.actions.isEmpty && giver.actions.isEmpty
            case .handoff(let waiters, let giver):
                valid = !waiters.isEmpty && (waiters + [giver]).allSatisfy { fits($0.queue) && $0.block.actions.isEmpty }
            case .setSpecific(let q, _), .getSpecific(let q), .setContext(let q, _): valid = fits(q)
            case .data(let d, let operation):
                switch operation {
                case .bytes(_, let count): valid = count >= 0
                case .append(let a, let b): valid = datas.contains(a) && datas.contains(b)
                case .subdata(let a, let lower, let upper): valid = datas.contains(a) && 0 <= lower && lower <= upper
                case .contiguous(let a): valid = datas.contains(a)
                }
                valid = valid && !datas.contains(d)
                if valid { datas.insert(d) }
            case .setFinalizer(let q, _): valid = fits(q) && state.finalizers[q] == nil
            case .source(let u, let q, _, let h, _, _, _):
                valid = made[u] == nil && fits(q) && h.actions.allSatisfy { if case .merge = $0 { false } else { true } } && fits(h)
                if valid { made[u] = false }
            case .merge(let u, _): valid = made[u] != nil
            case .sourceCancel(let u):
                valid = made[u] == false
                if valid { made[u] = true }
            case .sourceActivate(let u): valid = made[u] != nil && state.inactiveSources.contains(u)
            case .sourceSuspend(let u): valid = made[u] != nil
            case .sourceResume(let u): valid = made[u] != nil && state.sourceSuspensions[u, default: 0] > 0
            case .once(let n, let body): valid = n >= 0 && n < onces && body.actions.isEmpty
            case .within(let context, _, let inner):
                switch context {
                case .block(let q, _), .handler(_, let q): valid = fits(q) && !state.held(q)
                case .syncInside(let from, _, let onto): valid = fits(from) && fits(onto) && !state.held(from) && !state.held(onto)
                }
                switch inner {
                case .within, .handoff, .pingPong, .syncBeside, .barrierOnGlobal: valid = false
                default: valid = valid && allowed(inner)
                }
            }
            return valid
        }
        for index in indices {
            let step = steps[index]
            if allowed(step) {
                states.append(state)
                state.apply(step)
                kept.append(index)
                for (item, entry) in items where entry.held && !state.holds(entry.queue) { items[item]!.held = false }
            }
        }
        return (kept, states + [state])
    }
}

// MARK: - Building the constraints

private struct Builder {
    let scenario: Scenario
    /// `states[k]`: the queues before step k of the program (script and epilogue); one more than the steps.
    let states: [QueueStates]
    let finalTargets: [Int?]

    var blocks: [Int: ScenarioModel.BlockInfo] = [:]
    var orders: [ScenarioModel.Order] = []
    var exclusions: [ScenarioModel.Exclusion] = []
    var fifo: [ScenarioModel.FIFO] = []
    /// Blocks submitted from inside other blocks, by queue.
    var nestedSubmissions: [Int: [ScenarioModel.Submission]] = [:]
    var waits: [Int: ScenarioModel.Expected] = [:]
    var onSuccess: [Int: [ScenarioModel.Point]] = [:]
    var applies: [Int: Int] = [:]
    var semaphoreWaits: [Int: Int] = [:]
    var timers: [Int: (handler: Int, cancel: Int)] = [:]
    var handoffs: [Int: String] = [:]
    var reads: [Int: Int?] = [:]
    var sources: [Int: ScenarioModel.SourceInfo] = [:]
    /// Merges made by blocks, by source: (value, the block).
    var blockMerges: [Int: [(value: UInt, parent: Int)]] = [:]
    var sourceSteps: [Int: (step: Int, queue: Int, registration: Int?, cancelHandler: Int?)] = [:]
    /// Whether every merge into a source so far was made while it could deliver nothing (inactive or suspended).
    var heldMerges: [Int: Bool] = [:]
    /// The step that activates each source made inactive (the script's or the epilogue's).
    var activations: [Int: Int] = [:]
    /// Every perform of each once-object: its body, and the block that makes it (`nil`: the script).
    var performs: [Int: [(body: Int, parent: Int?)]] = [:]

    /// Blocks submitted straight to a queue by the script (or by a call made in a context), in program order:
    /// (block, step, barrier, the points around the submitting call).
    var direct: [Int: [(block: Int, step: Int, barrier: Bool, from: ScenarioModel.Point, to: ScenarioModel.Point)]] = [:]
    /// The queues whose blocks the context of a step keeps from starting while its call is made, by step.
    var contextHolds: [Int: Set<Int>] = [:]
    /// Every queue of the chains the context of a step runs through, by step.
    var contextChains: [Int: Set<Int>] = [:]
    /// The blocks submitted as barriers (to a concurrent queue).
    var barrierBlocks: Set<Int> = []
    /// Group members by group: (block, step).
    var members: [Int: [(block: Int, step: Int)]] = [:]
    /// Top-level blocks that signal, by semaphore: (block, step, signals).
    var signallers: [Int: [(block: Int, step: Int, count: Int)]] = [:]
    /// The steps that signal a counting semaphore themselves, by semaphore.
    var stepSignals: [Int: Int] = [:]
    var items: [Int: (block: Int, step: Int, queue: Int)] = [:]
    var timerSteps: [Int: (step: Int, queue: Int)] = [:]

    /// Queues that get blocks at moments the script does not fix: from blocks, notifications, timers, `asyncAfter`.
    let dynamicQueues: Set<Int>
    /// Every block the script submits itself, by queue and step.
    let directSubmissions: [(queue: Int, step: Int)]

    init(scenario: Scenario, epilogue: [Scenario.Step], states: [QueueStates], finalTargets: [Int?]) {
        self.scenario = scenario
        for (k, step) in (scenario.steps + epilogue).enumerated() {
            if case .sourceActivate(let u) = step.call { activations[u] = k }
        }
        self.states = states
        self.finalTargets = finalTargets
        var dynamic: Set<Int> = []
        var submissions: [(queue: Int, step: Int)] = []
        func collect(_ step: Scenario.Step, _ k: Int) {
            switch step {
            case .async(let q, _), .barrierAsync(let q, _), .sync(let q, _), .barrierSync(let q, _), .groupAsync(_, let q, _),
                .groupEnter(_, let q, _), .item(_, let q, _, _):
                submissions.append((q, k))
            case .handoff(let waiters, let giver):
                for placed in waiters + [giver] { submissions.append((placed.queue, k)) }
            case .pingPong(let q, _), .syncBeside(let q, _, _):
                submissions.append((q, k))
            case .after(let q, _, _), .groupNotify(_, let q, _), .itemNotify(_, let q, _), .timer(_, let q, _, _, _),
                .source(_, let q, _, _, _, _, _):
                dynamic.insert(q)
            case .within(let context, _, let inner):
                switch context {
                case .block(let q, _), .syncInside(let q, _, _): submissions.append((q, k))
                case .handler(_, let q): dynamic.insert(q)
                }
                collect(inner, k)
            default: break
            }
        }
        for (k, step) in scenario.steps.enumerated() {
            for block in step.blocks {
                for action in block.actions { if let submitted = action.submits { dynamic.insert(submitted.queue) } }
            }
            collect(step, k)
        }
        dynamicQueues = dynamic
        directSubmissions = submissions
    }

    /// `queue`'s chain; none for the global queue, which the program does not make.
    func chain(_ queue: Int) -> [Int] { queue == ScenarioModel.global ? [] : QueueStates.chain(queue, finalTargets) }

    /// The class a block on `queue` runs at. On an engine with `queue-class-under-target` (`Scenario.nearestClass`):
    /// the nearest class up its chain, else that of the global queue its root targets, else `.default`. Otherwise: the
    /// one class of its chain's root (its own, or the global queue's it targets), else `.default`, and `nil`
    /// (unchecked) where the chain has two classes or a class on a link below the root (libdispatch on Linux ignores
    /// it there: the system engine's limits). `nil` too where a link was retargeted.
    func qos(_ queue: Int) -> QoSClass? {
        guard queue != ScenarioModel.global else { return nil }
        let links = chain(queue)
        // Retargeted, a queue with a class ran at the new target's (measured: seed 196): left unchecked too.
        let retargeted = Set(scenario.steps.compactMap { if case .retarget(let q, _) = $0.call { q } else { nil } })
        if !retargeted.isDisjoint(with: links) { return nil }
        if scenario.nearestClass {
            // An engine with `queue-class-under-target`: the nearest class up the chain, else the root's global one.
            if let nearest = links.lazy.compactMap({ self.scenario.queues[$0].qos }).first { return nearest }
            return links.last.flatMap { scenario.queues[$0].globalClass } ?? .default
        }
        if links.dropLast().contains(where: { scenario.queues[$0].qos != nil }) { return nil }
        var classes = links.compactMap { scenario.queues[$0].qos }
        if let root = links.last, let global = scenario.queues[root].globalClass { classes.append(global) }
        return classes.count > 1 ? nil : classes.first ?? .default
    }

    /// The specific value a block on `queue` reads with the queues as they are before step `step`.
    func specific(_ queue: Int, at step: Int) -> Int? { chain(queue).lazy.compactMap { self.states[step].specifics[$0] }.first }

    /// The specific values a block on `queue` submitted at `step` may read: those of every step from then on, or only
    /// that step's for a block the step runs before it returns (`exact`: a sync's block, a context's host).
    func specifics(_ queue: Int, from step: Int, exact: Bool = false) -> Set<Int?> {
        Set((exact ? step...step : step...(states.count - 1)).map { specific(queue, at: $0) })
    }

    /// The links of `queue`'s chain that hold back a block submitted at `step`, each with the step that releases it
    /// (its last resume or its activation): the queue itself when suspended or inactive, an inactive queue above it,
    /// and a suspended queue above it when nothing can be draining the queues between. libdispatch goes on draining
    /// a queue it already runs on a target after the target was suspended (measured: `explore --engine system`), so
    /// a suspended target holds back only a chain that had no work in flight: no block submitted to a queue between
    /// before the target's suspension, and none submitted there from a block, a notification or a timer at all.
    func gates(of queue: Int, at step: Int) -> [(link: Int, release: Int)] {
        let links = chain(queue)
        return links.enumerated().compactMap { position, link in
            guard states[step].holds(link) else { return nil }
            if position > 0 && !states[step].inactive[link] {
                let between = links[..<position]
                guard between.allSatisfy({ !dynamicQueues.contains($0) }) else { return nil }
                let suspended = (0..<step).last { states[$0].suspended[link] == 0 } ?? 0
                let inFlight = directSubmissions.contains { submission in
                    submission.step < suspended + 1 && chain(submission.queue).contains { between.contains($0) }
                }
                guard !inFlight else { return nil }
            }
            for later in step..<(states.count - 1) where !states[later + 1].holds(link) { return (link, later) }
            return nil  // cannot happen: the epilogue frees everything
        }
    }

    /// Whether a block submitted at `step` to `queue` has run, or will, while the script waits at `wait`: it will
    /// when nothing along its chain is held then; it cannot have when a link held at its submission is held still.
    func runsBy(_ wait: Int, queue: Int, submitted step: Int, block: Int) -> ScenarioModel.Expected {
        if !states[wait].held(queue) {
            // In a context, the block may wait behind the caller: it runs through a serial link or barrier the context
            // holds, or syncs onto a chain that does, or is itself a barrier on a queue the context runs through, or
            // runs through such a queue where an earlier barrier (which waits for the context) may still wait.
            if let held = contextHolds[wait], let through = contextChains[wait] {
                var needs = Set(chain(queue))
                for case .nestedSync(let q, _) in blockActions(block) { needs.formUnion(chain(q)) }
                let barriered = through.filter { c in direct[c, default: []].contains { $0.barrier && $0.step < wait } }
                if !held.isDisjoint(with: needs) || barrierBlocks.contains(block) && through.contains(queue)
                    || !barriered.isDisjoint(with: needs)
                {
                    return .either
                }
            }
            return .success
        }
        return heldThrough(queue, from: step, to: wait) ? .timedOut : .either
    }

    /// Whether a link of `queue`'s chain held at `from` is held at every step up to `to`.
    func heldThrough(_ queue: Int, from: Int, to: Int) -> Bool {
        gates(of: queue, at: from).contains { $0.release >= to }
    }

    mutating func add(
        _ block: Scenario.Block, queue: Int, step: Int, runs: ScenarioModel.Runs, deadline: Int? = nil, timer: Bool = false,
        exact: Bool = false
    ) {
        blocks[block.id] = .init(
            queue: queue, runs: runs, specifics: specifics(queue, from: step, exact: exact), deadlineStep: deadline, isTimerHandler: timer)
        blocks[block.id]!.specificsAtEnd = specifics(queue, from: step)
        blocks[block.id]!.qos = qos(queue)
        for gate in gates(of: queue, at: step) {
            orders.append(
                .init(
                    before: .mark(gate.release), after: .start(block.id), key: .ranWhileHeld,
                    why: "b\(block.id) (q\(queue)) was submitted at step \(step) while q\(gate.link) was held until step \(gate.release)"))
        }
        for action in block.actions {
            switch action {
            case .nested(let q, let nested):
                blocks[nested] = .init(queue: q, runs: runs, specifics: specifics(q, from: step), deadlineStep: nil, isTimerHandler: false)
                orders.append(.init(before: .start(block.id), after: .start(nested), key: .early, why: "b\(block.id) submits b\(nested)"))
                nestedSubmissions[q, default: []].append(.init(block: nested, from: .start(block.id), to: .end(block.id)))
            case .nestedSync(let q, let nested):
                blocks[nested] = .init(queue: q, runs: runs, specifics: specifics(q, from: step), deadlineStep: nil, isTimerHandler: false)
                nestedSubmissions[q, default: []].append(.init(block: nested, from: .start(block.id), to: .end(block.id)))
                orders.append(.init(before: .start(block.id), after: .start(nested), key: .early, why: "b\(block.id) syncs b\(nested)"))
                orders.append(
                    .init(
                        before: .end(nested), after: .end(block.id), key: .early, why: "b\(block.id)'s sync returns after b\(nested) ended")
                )
            case .merge(let u, let value): blockMerges[u, default: []].append((value, block.id))
            case .once(let n, let body):
                blocks[body] = .init(
                    queue: ScenarioModel.global, runs: .atMostOnce, specifics: nil, deadlineStep: nil, isTimerHandler: false)
                performs[n, default: []].append((body, block.id))
                orders.append(
                    .init(before: .start(block.id), after: .start(body), key: .early, why: "b\(block.id) performs o\(n) with b\(body)"))
            case .signal, .locked: break
            }
        }
    }

    mutating func direct(
        _ block: Scenario.Block, queue: Int, step: Int, barrier: Bool, runs: ScenarioModel.Runs = .once,
        between from: ScenarioModel.Point? = nil, and to: ScenarioModel.Point? = nil, exact: Bool = false
    ) {
        add(block, queue: queue, step: step, runs: runs, exact: exact)
        if barrier { barrierBlocks.insert(block.id) }
        direct[queue, default: []].append((block.id, step, barrier, from ?? .mark(step), to ?? .returned(step)))
    }

    mutating func signals(_ block: Scenario.Block, step: Int) {
        var counts: [Int: Int] = [:]
        for case .signal(let n) in block.actions { counts[n, default: 0] += 1 }
        for (n, count) in counts { signallers[n, default: []].append((block.id, step, count)) }
    }

    mutating func build() {
        for (k, step) in scenario.steps.enumerated() { model(step, k) }
        // The run cancels the sources the script left live once everything owed has run, after the epilogue.
        for (u, made) in sourceSteps where !sources[u]!.cancelled {
            if let c = made.cancelHandler { add(Scenario.Block(id: c), queue: made.queue, step: states.count - 1, runs: .once) }
        }
        // The run releases the queues last: each finalizer runs on its queue's target, given the context, after every
        // block through the queue; without a context, never.
        let end = states[states.count - 1]
        for (q, f) in end.finalizers.sorted(by: { $0.key < $1.key }) {
            let target = end.target[q] ?? ScenarioModel.global
            blocks[f] = .init(
                queue: target, runs: end.contexts[q] == nil ? .never : .once,
                specifics: [target == ScenarioModel.global ? nil : specific(target, at: states.count - 1)], deadlineStep: nil,
                isTimerHandler: false)
            for (id, block) in blocks where id != f && chain(block.queue).contains(q) {
                orders.append(
                    .init(before: .end(id), after: .start(f), key: .early, why: "q\(q)'s finalizer b\(f) follows its block b\(id)"))
            }
        }
        orderQueues()
    }

    /// The units of each counting semaphore the script's earlier waits took: at least `low`, at most `high`.
    var consumed: [Int: (low: Int, high: Int)] = [:]

    /// The constraints of step `k`.
    mutating func model(_ step: Scenario.Step, _ k: Int) {
        switch step {
        case .async(let q, let b):
            direct(b, queue: q, step: k, barrier: false)
            signals(b, step: k)
        case .barrierAsync(let q, let b):
            direct(b, queue: q, step: k, barrier: true)
            signals(b, step: k)
        case .sync(let q, let b), .barrierSync(let q, let b):
            var barrier = false
            if case .barrierSync = step { barrier = true }
            direct(b, queue: q, step: k, barrier: barrier, exact: true)
            blocks[b.id]!.qos = nil  // a sync's block runs on its caller's thread, at the caller's class
            signals(b, step: k)
            orders.append(.init(before: .mark(k), after: .start(b.id), key: .early, why: "sync runs b\(b.id) after its call"))
            orders.append(.init(before: .end(b.id), after: .returned(k), key: .early, why: "sync returns after b\(b.id) finished"))
        case .after(let q, let b, _):
            add(b, queue: q, step: k, runs: .once, deadline: k)
            signals(b, step: k)
        case .groupAsync(let g, let q, let b), .groupEnter(let g, let q, let b):
            direct(b, queue: q, step: k, barrier: false)
            signals(b, step: k)
            members[g, default: []].append((b.id, k))
        case .groupNotify(let g, let q, let b):
            add(b, queue: q, step: k, runs: .once)
            for member in members[g] ?? [] {
                orders.append(
                    .init(
                        before: .end(member.block), after: .start(b.id), key: .early,
                        why: "g\(g)'s notify b\(b.id) (step \(k)) follows its member b\(member.block)"))
            }
        case .groupWait(let g):
            let expected = (members[g] ?? []).map { runsBy(k, queue: blocks[$0.block]!.queue, submitted: $0.step, block: $0.block) }
            waits[k] = combine(expected)
            onSuccess[k] = (members[g] ?? []).map { .end($0.block) }
        case .item(let i, let q, let barrier, let b):
            direct(b, queue: q, step: k, barrier: barrier && scenario.queues[q].kind == .concurrent)
            items[i] = (b.id, k, q)
        case .itemCancel(let i):
            let item = items[i]!
            cancel(item.block, heldThrough(item.queue, from: item.step, to: k) ? .never : .atMostOnce)
        case .itemNotify(let i, let q, let b):
            add(b, queue: q, step: k, runs: .once)
            orders.append(
                .init(before: .end(items[i]!.block), after: .start(b.id), key: .early, why: "i\(i)'s notify b\(b.id) follows it"))
        case .itemWait(let i):
            let item = items[i]!
            waits[k] = runsBy(k, queue: item.queue, submitted: item.step, block: item.block)
            onSuccess[k] = [.end(item.block)]
        case .semaphoreWait(let n):
            semaphoreWaits[k] = n
            var low = stepSignals[n] ?? 0
            var high = low
            for signaller in signallers[n] ?? [] {
                switch runsBy(k, queue: blocks[signaller.block]!.queue, submitted: signaller.step, block: signaller.block) {
                case .success:
                    low += signaller.count
                    high += signaller.count
                case .either: high += signaller.count
                case .timedOut: break
                }
            }
            let used = consumed[n] ?? (0, 0)
            let expected: ScenarioModel.Expected =
                low - used.high >= 1 ? .success : (high - used.low <= 0 ? .timedOut : .either)
            waits[k] = expected
            switch expected {
            case .success: consumed[n] = (used.low + 1, used.high + 1)
            case .either: consumed[n] = (used.low, used.high + 1)
            case .timedOut: break
            }
        case .timer(let t, let q, let h, let c, _):
            add(h, queue: q, step: k, runs: .once, deadline: k, timer: true)
            add(Scenario.Block(id: c), queue: q, step: k, runs: .once)
            orders.append(
                .init(before: .end(h.id), after: .start(c), key: .early, why: "t\(t)'s cancel handler follows its last handler call"))
            timers[t] = (h.id, c)
            timerSteps[t] = (k, q)
        case .timerCancel(let t):
            let timer = timerSteps[t]!
            cancel(timers[t]!.handler, heldThrough(timer.queue, from: timer.step, to: k) ? .never : .atMostOnce)
        case .apply(let n, _):
            applies[k] = n
        case .handoff(let waiters, let giver):
            for waiter in waiters {
                direct(waiter.block, queue: waiter.queue, step: k, barrier: false)
                handoffs[waiter.block.id] = "b\(giver.block.id) gives, on a chain of its own"
            }
            direct(giver.block, queue: giver.queue, step: k, barrier: false)
        case .pingPong(let q, let b):
            direct(b, queue: q, step: k, barrier: false)
            waits[k] = .success
            onSuccess[k] = [.start(b.id)]
            handoffs[b.id] = "the script gives as soon as its wait at step \(k), which b\(b.id) signalled, returns"
        case .syncBeside(let q, let waiter, let reader):
            direct(waiter, queue: q, step: k, barrier: false)
            direct(reader, queue: q, step: k, barrier: false)
            blocks[reader.id]!.qos = nil
            orders.append(.init(before: .mark(k), after: .start(reader.id), key: .early, why: "sync runs b\(reader.id) after its call"))
            orders.append(
                .init(before: .end(reader.id), after: .returned(k), key: .early, why: "sync returns after b\(reader.id) finished"))
            handoffs[waiter.id] = "b\(reader.id) gives, a sync beside it on concurrent q\(q)"
        case .barrierOnGlobal(let waiter, let giver, _):
            for block in [waiter, giver] {
                blocks[block.id] = .init(
                    queue: ScenarioModel.global, runs: .once, specifics: [nil], deadlineStep: nil, isTimerHandler: false)
            }
            handoffs[waiter.id] = "b\(giver.id) gives, a barrier on the global queue, which has none"
        case .within(let context, let host, let inner):
            let points = (ScenarioModel.Point.contextCall(k), ScenarioModel.Point.contextReturned(k))
            switch context {
            case .block(let q, let barrier):
                direct(
                    Scenario.Block(id: host), queue: q, step: k, barrier: barrier && scenario.queues[q].kind == .concurrent,
                    between: points.0, and: points.1, exact: true)
            case .syncInside(let from, let outer, let onto):
                direct(
                    Scenario.Block(id: outer, actions: [.nestedSync(queue: onto, block: host)]), queue: from, step: k, barrier: false,
                    between: points.0, and: points.1)
            case .handler(_, let q):
                add(Scenario.Block(id: host), queue: q, step: k, runs: .once, exact: true)
            }
            orders.append(.init(before: .start(host), after: .mark(k), key: .early, why: "the call of step \(k) is made in b\(host)"))
            contextHolds[k] = holds(context)
            contextChains[k] = Set(context.chains(finalTargets).joined())
            model(inner, k)
        case .getSpecific(let q):
            reads[k] = states[k].specifics[q]
        case .source(let u, let q, let merge, let h, let r, let c, let inactive):
            add(h, queue: q, step: k, runs: .anyTimes)
            sources[u] = .init(handler: h.id, merge: merge, cancelHandler: c)
            sourceSteps[u] = (k, q, r, c)
            if let r {
                add(Scenario.Block(id: r), queue: q, step: k, runs: .once)
                orders.append(
                    .init(
                        before: .end(r), after: .start(h.id), key: .early, why: "u\(u)'s registration handler runs before its event handler"
                    ))
            }
            if inactive, let activation = activations[u] {
                for handler in [h.id, r, c].compactMap({ $0 }) {
                    orders.append(
                        .init(
                            before: .mark(activation), after: .start(handler), key: .ranWhileHeld,
                            why: "u\(u) was inactive until step \(activation)"))
                }
            }
        case .merge(let u, let value):
            sources[u]!.merged.append(value)
            // A replace by zero empties the pending data: made while the source could deliver nothing yet (inactive
            // or suspended), after every other merge, it leaves the handler nothing to be called with.
            let held = states[k].inactiveSources.contains(u) || states[k].sourceSuspensions[u, default: 0] > 0
            heldMerges[u] = heldMerges[u, default: true] && held
        case .sourceCancel(let u):
            // Its cancel handler runs once, after the event handler's last call (`ScenarioCheck` checks every call).
            if !sources[u]!.cancelled, let made = sourceSteps[u], let c = made.cancelHandler {
                add(Scenario.Block(id: c), queue: made.queue, step: k, runs: .once)
            }
            // Cancelled before its registration ran, a source never runs it; after, it ran. Cancelled while inactive, or
            // while its queue was held ever since it was activated, it runs neither its registration nor its event
            // handler (nothing of it could start).
            let made = sourceSteps[u]!
            let activated = activations[u].map { min($0, k) } ?? made.step
            if states[k].inactiveSources.contains(u) || heldThrough(made.queue, from: activated, to: k) {
                for handler in [made.registration, sources[u]!.handler].compactMap({ $0 }) { blocks[handler]!.runs = .never }
            } else if let r = made.registration, blocks[r]?.runs == .once {
                blocks[r]!.runs = .atMostOnce
            }
            sources[u]!.cancelled = true
        case .once(let n, let body):
            blocks[body.id] = .init(
                queue: ScenarioModel.global, runs: .atMostOnce, specifics: nil, deadlineStep: nil, isTimerHandler: false)
            performs[n, default: []].append((body.id, nil))
        case .signal(let n):
            stepSignals[n, default: 0] += 1
        case .sourceSuspend(let u) where states[k].sourceSuspensions[u, default: 0] == 0:
            // Held until the first step after which it is suspended no more (the epilogue resumes it at the latest).
            if let free = (k + 1..<states.count).first(where: { states[$0].sourceSuspensions[u, default: 0] == 0 }) {
                let inFlight = states[k].inactiveSources.contains(u) ? 0 : 1
                sources[u]!.suspensions.append((.returned(k), .mark(free - 1), inFlight))
            }
        case .sourceSuspend, .sourceResume:
            break
        case .suspend, .resume, .activate, .retarget, .setSpecific, .sourceActivate, .setContext, .setFinalizer, .data:
            break
        }
    }

    /// The queues whose blocks `context` keeps from starting while its call is made: every serial link of the chains
    /// its blocks run through, and a barrier's queue.
    func holds(_ context: Scenario.Context) -> Set<Int> {
        var held = Set(context.chains(finalTargets).joined().filter { scenario.queues[$0].kind == .serial })
        if case .block(let q, true) = context { held.insert(q) }
        return held
    }

    /// A cancelled block runs `runs`, and so do the blocks it would submit.
    mutating func cancel(_ block: Int, _ runs: ScenarioModel.Runs) {
        blocks[block]!.runs = runs
        for action in blockActions(block) { if let submitted = action.submits { blocks[submitted.block]!.runs = runs } }
    }

    func blockActions(_ id: Int) -> [Scenario.Action] {
        for step in scenario.steps { for block in step.blocks where block.id == id { return block.actions } }
        return []
    }

    func combine(_ expected: [ScenarioModel.Expected]) -> ScenarioModel.Expected {
        if expected.contains(.timedOut) { return .timedOut }
        return expected.contains(.either) ? .either : .success
    }

    /// Exclusion along serial links and around barriers, submission order on queues whose blocks are exclusive (for
    /// the script's blocks and those blocks submit), and a
    /// barrier's place among its queue's blocks.
    mutating func orderQueues() {
        let ids = blocks.keys.sorted()
        for (q, spec) in scenario.queues.enumerated() {
            let through = ids.filter { chain(blocks[$0]!.queue).contains(q) }
            if spec.kind == .serial {
                if through.count > 1 {
                    exclusions.append(.init(blocks: through, why: "blocks running through serial q\(q)"))
                }
            } else {
                for entry in direct[q] ?? [] where entry.barrier {
                    exclusions.append(
                        .init(
                            blocks: through, alone: entry.block,
                            why: "barrier b\(entry.block) on concurrent q\(q) runs alone among the blocks running through q\(q)"))
                }
            }
            // Submission order: on a queue whose chain has a serial link, blocks start one at a time, in order.
            let exclusive = chain(q).contains { scenario.queues[$0].kind == .serial }
            let submitted = direct[q] ?? []
            if exclusive {
                var entries = submitted.map { ScenarioModel.Submission(block: $0.block, from: $0.from, to: $0.to) }
                entries += nestedSubmissions[q] ?? []
                if entries.count > 1 { fifo.append(.init(queue: q, submissions: entries)) }
            }
            if spec.kind == .concurrent {
                for (index, entry) in submitted.enumerated() where entry.barrier {
                    for earlier in submitted[..<index] {
                        orders.append(
                            .init(
                                before: .end(earlier.block), after: .start(entry.block), key: .early,
                                why: "barrier b\(entry.block) on q\(q) starts after b\(earlier.block), submitted before it, ended"))
                    }
                    for later in submitted[(index + 1)...] {
                        orders.append(
                            .init(
                                before: .end(entry.block), after: .start(later.block), key: .early,
                                why: "b\(later.block) on q\(q) starts after barrier b\(entry.block), submitted before it, ended"))
                    }
                }
            }
        }
    }
}

extension Scenario.Context {
    /// The chains the context's blocks run through, with `targets`: the block's or handler's queue, or for a sync made
    /// from a block, the caller's and the sync's.
    func chains(_ targets: [Int?]) -> [[Int]] {
        switch self {
        case .block(let q, _), .handler(_, let q): [QueueStates.chain(q, targets)]
        case .syncInside(let from, _, let onto): [QueueStates.chain(from, targets), QueueStates.chain(onto, targets)]
        }
    }
}

extension ScenarioModel {
    /// A checksum of `bytes` a data step records and the check compares (FNV-1a, 64 bits, folded to 62 so that it is
    /// never negative): equal bytes give equal sums, and a byte changed or moved changes it.
    public static func checksum(_ bytes: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        hash ^= UInt64(bytes.count)
        return Int64(hash >> 2)
    }
}
