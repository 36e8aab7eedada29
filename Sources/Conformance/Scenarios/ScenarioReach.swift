import ArenaContract

/// What the generated programs reach: each operation of the contract the generator speaks, from each place a call
/// can be made, on its object in each state. Counted from the models of the programs (`ScenarioModel`), never from a
/// run: a program that agrees with the model made every call it holds (a context's host must end before the script
/// goes on), so the count over the programs an engine agreed on is the engine's reach.
///
/// The operations are declared once here, each with the places and states the model never lets a program reach and
/// why; `arena explore` prints every engine's reach, and docs/RULES.md shows the matrix over the default budget
/// (`CatalogReport`).
public struct ScenarioReach: Sendable, Equatable {
    /// An operation of the contract as the generator calls it.
    public enum Operation: String, CaseIterable, Sendable {
        case async, barrierAsync, sync, barrierSync, asyncAfter, suspend, resume, activate, setTarget, setSpecific,
            getSpecific
        case groupAsync = "group async"
        case groupEnter = "group enter/leave"
        case groupNotify = "group notify"
        case
            groupWait = "group wait"
        case itemAsync = "work item async"
        case itemCancel = "work item cancel"
        case itemNotify = "work item notify"
        case
            itemWait = "work item wait"
        case semaphoreSignal = "semaphore signal"
        case semaphoreWait = "semaphore wait"
        case timer = "timer schedule and activate"
        case timerCancel = "timer cancel"
        case apply
        case once = "once perform"
        case sourceMake = "user-data source make"
        case sourceActivate = "user-data source activate"
        case sourceMerge = "user-data source merge"
        case sourceCancel = "user-data source cancel"
        case dataMake = "data make"
        case dataAppend = "data append"
        case dataSubdata = "data subrange"
        case
            dataContiguous = "data contiguous"
        case setContext = "set context"
        case setFinalizer = "set finalizer"
        case sourceSuspend = "user-data source suspend"
        case sourceResume = "user-data source resume"

        /// Whether the call acts on a queue of the program (its own, or the queue of the object it acts on), so that
        /// a block's call can be on the same queue or chain as the block.
        public var hasQueue: Bool {
            switch self {
            case .groupWait, .semaphoreSignal, .semaphoreWait, .apply, .once, .dataMake, .dataAppend, .dataSubdata, .dataContiguous:
                false
            default: true
            }
        }

        /// Whether the call may block its caller: a block may make it only on an engine with `blocking-in-blocks`.
        public var blocks: Bool {
            switch self {
            case .sync, .barrierSync, .groupWait, .itemWait, .semaphoreWait, .apply, .once: true
            default: false
            }
        }

        /// Why the model never lets a program make this call from `place`, or `nil` where it does.
        public func forbidden(from place: Place) -> String? {
            switch (self, place) {
            case (.barrierSync, .sameQueue), (.barrierSync, .sameChain):
                "a barrier sync onto a chain its caller runs through waits for the caller"
            case (.activate, .sameQueue), (.setTarget, .sameQueue):
                "only an inactive queue is activated or retargeted, and it runs no block"
            case (.resume, .sameQueue):
                "a suspended queue runs no block, and a context makes one call"
            default: nil
            }
        }
    }

    /// Where a call is made from: the script's thread, or a context (`Scenario.Context`), or a block's action.
    public enum Place: String, CaseIterable, Sendable {
        case thread = "plain thread"
        case sameQueue = "block of the same queue"
        case sameChain = "block of the same chain"
        case otherQueue = "block of another queue"
        case barrier = "barrier"
        case syncInside = "inside a sync from a block"
        case timerHandler = "timer handler"
        case eventHandler = "source event handler"
        case registrationHandler = "registration handler"
        case cancelHandler = "cancel handler"
    }

    /// The state of the object a call acts on, as the model knows it at the call (several may hold at once).
    public enum State: String, CaseIterable, Sendable {
        /// A queue not held, targeting the global queue; an active source.
        case idle
        case inactive
        case suspended
        /// A queue whose own link is free but a link above it holds its blocks.
        case heldAbove = "held above"
        /// A queue targeting another queue of the program.
        case targeted
        /// A queue the call is made from (its block runs the call).
        case running
        /// A work item or source cancelled before the call.
        case cancelled
        /// A work item its queue still holds back.
        case waiting
        /// A work item whose wait succeeded before the call.
        case finished
    }

    /// An operation made from a place: a cell of the matrix's first table.
    public struct Call: Hashable, Sendable {
        public let operation: Operation
        public let place: Place

        public init(operation: Operation, place: Place) {
            self.operation = operation
            self.place = place
        }
    }

    /// An operation on its object in a state: a cell of the matrix's second table.
    public struct Standing: Hashable, Sendable {
        public let operation: Operation
        public let state: State

        public init(operation: Operation, state: State) {
            self.operation = operation
            self.state = state
        }
    }

    /// How many programs made each call, from each place.
    public private(set) var calls: [Call: Int] = [:]
    /// How many programs made each call on an object in each state (the script's and contexts' calls, whose moment
    /// the model fixes; a block's actions are left out).
    public private(set) var states: [Standing: Int] = [:]
    /// How many programs were counted.
    public private(set) var programs = 0

    public init() {}

    /// The reach of `count` programs of `generator` from seed `first` on.
    public init(_ generator: ScenarioGenerator, from first: UInt64, count: Int) {
        for seed in first..<(first &+ UInt64(count)) { add(ScenarioModel(generator.scenario(seed: seed))) }
    }

    /// Counts one program.
    public mutating func add(_ model: ScenarioModel) {
        var seen = Walk(model)
        seen.walk()
        programs += 1
        for call in seen.calls { calls[call, default: 0] += 1 }
        for standing in seen.standings { states[standing, default: 0] += 1 }
    }

    /// How many of `calls` (by default every call the model allows) some program made.
    public func reached(of calls: [Call] = ScenarioReach.allowedCalls) -> Int {
        calls.filter { self.calls[$0, default: 0] > 0 }.count
    }

    /// Every call the model allows.
    public static var allowedCalls: [Call] {
        Operation.allCases.flatMap { operation in
            Place.allCases.filter { place in
                operation.forbidden(from: place) == nil
                    && (operation.hasQueue || (place != .sameQueue && place != .sameChain))
            }
            .map { Call(operation: operation, place: $0) }
        }
    }
}

// MARK: - Walking a program

/// Collects the calls of one program, with their places and states.
private struct Walk {
    let model: ScenarioModel
    let scenario: Scenario
    var calls: Set<ScenarioReach.Call> = []
    var standings: Set<ScenarioReach.Standing> = []
    /// The queues before each step, and after the last (the model's).
    var states: [QueueStates] { model.states }
    /// Items: their queue; cancelled; waited with success.
    var items: [Int: (queue: Int, cancelled: Bool, finished: Bool)] = [:]
    var timerQueues: [Int: Int] = [:]
    var sourceQueues: [Int: Int] = [:]
    var sourcesCancelled: Set<Int> = []

    init(_ model: ScenarioModel) {
        self.model = model
        scenario = model.scenario
    }

    func chain(_ q: Int) -> [Int] { q < 0 ? [] : QueueStates.chain(q, states[states.count - 1].target) }

    mutating func walk() {
        for (k, step) in scenario.steps.enumerated() {
            if case .within(let context, _, let inner) = step {
                let place: ScenarioReach.Place
                var host: [Int] = []
                switch context {
                case .block(let q, let barrier):
                    place = barrier && scenario.queues[q].kind == .concurrent ? .barrier : .otherQueue
                    host = [q]
                case .syncInside(let from, _, let onto):
                    place = .syncInside
                    host = [onto, from]
                case .handler(.timer, let q): (place, host) = (.timerHandler, [q])
                case .handler(.event, let q): (place, host) = (.eventHandler, [q])
                case .handler(.registration, let q): (place, host) = (.registrationHandler, [q])
                case .handler(.cancel, let q): (place, host) = (.cancelHandler, [q])
                }
                call(inner, k, place: place, host: host)
            } else {
                call(step, k, place: .thread, host: [])
            }
            for (queue, block) in step.placed { actions(of: block, on: queue, step: step) }
        }
    }

    /// Counts the call of `step` (the `k`th) made from `place`, inside blocks running on `host` (innermost first).
    mutating func call(_ step: Scenario.Step, _ k: Int, place: ScenarioReach.Place, host: [Int]) {
        guard let (operation, queue) = Self.operation(of: step, items: items, timers: timerQueues, sources: sourceQueues) else {
            return track(step, k)
        }
        calls.insert(.init(operation: operation, place: relate(place, queue, host)))
        for state in self.states(of: step, queue, k, host: host) { standings.insert(.init(operation: operation, state: state)) }
        track(step, k)
    }

    /// A plain block's place, refined by how the call's queue relates to the block's: the same queue, the same
    /// chain (one runs through the other), or another.
    func relate(_ place: ScenarioReach.Place, _ queue: Int?, _ host: [Int]) -> ScenarioReach.Place {
        guard place == .otherQueue, let queue, let inner = host.first else { return place }
        if queue == inner { return .sameQueue }
        let (a, b) = (chain(queue), chain(inner))
        return a.contains(inner) || b.contains(queue) ? .sameChain : .otherQueue
    }

    /// The states of the object of `step`'s call before the `k`th step.
    func states(of step: Scenario.Step, _ queue: Int?, _ k: Int, host: [Int]) -> [ScenarioReach.State] {
        let state = states[k]
        switch step {
        case .itemCancel(let i), .itemNotify(let i, _, _), .itemWait(let i):
            guard let item = items[i] else { return [] }
            var found: [ScenarioReach.State] = []
            if item.cancelled { found.append(.cancelled) }
            if item.finished { found.append(.finished) }
            if state.held(item.queue) { found.append(.waiting) }
            return found
        case .merge(let u, _), .sourceCancel(let u), .sourceActivate(let u), .sourceSuspend(let u), .sourceResume(let u):
            var found: [ScenarioReach.State] = []
            if sourcesCancelled.contains(u) { found.append(.cancelled) }
            if state.inactiveSources.contains(u) { found.append(.inactive) }
            if state.sourceSuspensions[u, default: 0] > 0 { found.append(.suspended) }
            return found.isEmpty ? [.idle] : found
        default:
            guard let queue, queue >= 0, step.actsOnQueue else { return [] }
            var found: [ScenarioReach.State] = []
            if state.inactive[queue] { found.append(.inactive) }
            if state.suspended[queue] > 0 { found.append(.suspended) }
            if !state.holds(queue) && state.held(queue) { found.append(.heldAbove) }
            if state.target[queue] != nil { found.append(.targeted) }
            if host.contains(where: { chain($0).contains(queue) }) { found.append(.running) }
            return found.isEmpty ? [.idle] : found
        }
    }

    /// Follows the objects a step makes or changes, for the states of later calls.
    mutating func track(_ step: Scenario.Step, _ k: Int) {
        switch step {
        case .item(let i, let q, _, _): items[i] = (q, false, false)
        case .itemCancel(let i): items[i]?.cancelled = true
        case .itemWait(let i): if model.waits[k] == .success { items[i]?.finished = true }
        case .timer(let t, let q, _, _, _): timerQueues[t] = q
        case .source(let u, let q, _, _, _, _, _): sourceQueues[u] = q
        case .sourceCancel(let u): sourcesCancelled.insert(u)
        default: break
        }
    }

    /// The calls of `block`'s actions, submitted to `queue` by `step`.
    mutating func actions(of block: Scenario.Block, on queue: Int, step: Scenario.Step) {
        let place: ScenarioReach.Place
        switch step.call {
        case .barrierAsync, .barrierSync: place = queue >= 0 && scenario.queues[queue].kind == .concurrent ? .barrier : .otherQueue
        case .item(_, _, true, _): place = scenario.queues[queue].kind == .concurrent ? .barrier : .otherQueue
        case .timer(_, _, let h, _, _) where h.id == block.id: place = .timerHandler
        case .source(_, _, _, let h, _, _, _) where h.id == block.id: place = .eventHandler
        default: place = .otherQueue
        }
        for action in block.actions {
            let made: (ScenarioReach.Operation, Int?)
            switch action {
            case .signal: made = (.semaphoreSignal, nil)
            case .locked: made = (.semaphoreWait, nil)
            case .nested(let q, _): made = (.async, q)
            case .nestedSync(let q, _): made = (.sync, q)
            case .once: made = (.once, nil)
            case .merge(let u, _): made = (.sourceMerge, sourceQueues[u])
            }
            calls.insert(.init(operation: made.0, place: relate(place, made.1, [queue])))
        }
    }

    /// The operation of a step's call and the queue it acts on (its own, or its object's), or `nil` for a step that
    /// is no single call (a meeting of threads).
    static func operation(
        of step: Scenario.Step, items: [Int: (queue: Int, cancelled: Bool, finished: Bool)], timers: [Int: Int], sources: [Int: Int]
    )
        -> (ScenarioReach.Operation, Int?)?
    {
        switch step {
        case .async(let q, _): (.async, q)
        case .barrierAsync(let q, _): (.barrierAsync, q)
        case .sync(let q, _): (.sync, q)
        case .barrierSync(let q, _): (.barrierSync, q)
        case .after(let q, _, _): (.asyncAfter, q)
        case .suspend(let q): (.suspend, q)
        case .resume(let q): (.resume, q)
        case .activate(let q): (.activate, q)
        case .retarget(let q, _): (.setTarget, q)
        case .setSpecific(let q, _): (.setSpecific, q)
        case .getSpecific(let q): (.getSpecific, q)
        case .setContext(let q, _): (.setContext, q)
        case .data(_, .bytes): (.dataMake, nil)
        case .data(_, .append): (.dataAppend, nil)
        case .data(_, .subdata): (.dataSubdata, nil)
        case .data(_, .contiguous): (.dataContiguous, nil)
        case .setFinalizer(let q, _): (.setFinalizer, q)
        case .groupAsync(_, let q, _): (.groupAsync, q)
        case .groupEnter(_, let q, _): (.groupEnter, q)
        case .groupNotify(_, let q, _): (.groupNotify, q)
        case .groupWait: (.groupWait, nil)
        case .item(_, let q, _, _): (.itemAsync, q)
        case .itemCancel(let i): (.itemCancel, items[i]?.queue)
        case .itemNotify(let i, _, _): (.itemNotify, items[i]?.queue)
        case .itemWait(let i): (.itemWait, items[i]?.queue)
        case .semaphoreWait: (.semaphoreWait, nil)
        case .signal: (.semaphoreSignal, nil)
        case .timer(_, let q, _, _, _): (.timer, q)
        case .timerCancel(let t): (.timerCancel, timers[t])
        case .apply: (.apply, nil)
        case .once: (.once, nil)
        case .source(_, let q, _, _, _, _, _): (.sourceMake, q)
        case .sourceActivate(let u): (.sourceActivate, sources[u])
        case .merge(let u, _): (.sourceMerge, sources[u])
        case .sourceCancel(let u): (.sourceCancel, sources[u])
        case .sourceSuspend(let u): (.sourceSuspend, sources[u])
        case .sourceResume(let u): (.sourceResume, sources[u])
        case .handoff, .pingPong, .syncBeside, .barrierOnGlobal, .within: nil
        }
    }
}

extension Scenario.Step {
    /// Whether the call acts on its queue itself (a submission, suspension, activation, retargeting, specific value),
    /// so that the queue's state is the object's.
    var actsOnQueue: Bool {
        switch self {
        case .async, .barrierAsync, .sync, .barrierSync, .after, .suspend, .resume, .activate, .retarget, .setSpecific,
            .getSpecific, .groupAsync, .groupEnter, .groupNotify, .item, .timer, .source, .setContext, .setFinalizer:
            true
        default: false
        }
    }
}
