import ArenaContract

/// A small program over the GCD contract, made by `ScenarioGenerator` from a seed and checked against
/// `ScenarioModel` (`arena explore`): queues of both kinds in target chains, and a script of steps the calling thread
/// runs one after another (submissions of every kind, suspension, activation, retargeting, waits on groups,
/// semaphores and work items, timers, apply), each made from the script's thread or from inside a context (`Context`:
/// a block, a barrier, a `sync` made from a block, a source's handler). Blocks record what they see (`ScenarioTrace`);
/// the model says which traces the contract allows.
///
/// Plain data: a program is printed (`description`) and replayed from its `ScenarioToken`, never stored.
public struct Scenario: Sendable, Equatable, CustomStringConvertible {
    /// A queue made before the script starts.
    public struct QueueSpec: Sendable, Equatable {
        public var kind: QueueKind
        /// The queue it targets at creation, always one made earlier (a lower index); `nil` for the global queue.
        public var target: Int?
        /// Whether it is made inactive.
        public var inactive: Bool
        /// The specific value set on it at creation, if any; blocks read the nearest one up their chain.
        public var specific: Int?
        /// The class it is made with, if any; blocks run at the nearest class up their chain.
        public var qos: QoSClass?
        /// With no target of the program, the class of the global queue it targets (`nil`: the default one).
        public var globalClass: QoSClass?

        public init(
            kind: QueueKind, target: Int? = nil, inactive: Bool = false, specific: Int? = nil, qos: QoSClass? = nil,
            globalClass: QoSClass? = nil
        ) {
            self.kind = kind
            self.target = target
            self.inactive = inactive
            self.specific = specific
            self.qos = qos
            self.globalClass = globalClass
        }
    }

    /// What a block does between recording its start and its end.
    public enum Action: Sendable, Equatable {
        /// Signals counting semaphore `n` (recorded just before the call).
        case signal(Int)
        /// Takes lock semaphore `n` (value 1) with a deadline, spins a little inside, and gives it back; the critical
        /// section is recorded.
        case locked(Int)
        /// Submits `block`, a plain block of its own, to queue `queue`.
        case nested(queue: Int, block: Int)
        /// Runs `block` with `sync` on queue `queue` (made only where it cannot deadlock: `Scenario.validSteps()`).
        case nestedSync(queue: Int, block: Int)
        /// Performs once-object `once` with a body of its own, block `block` (spinning 50 µs, so that racing performs
        /// find it running), which runs only if this perform is the once's first.
        case once(Int, block: Int)
        /// Merges `value` into user-data source `source`, made at an earlier step.
        case merge(source: Int, value: UInt)
    }

    /// A block: its identity in the trace, the microseconds it spins, and its actions.
    public struct Block: Sendable, Equatable {
        public var id: Int
        public var work: Int
        public var actions: [Action]

        public init(id: Int, work: Int = 0, actions: [Action] = []) {
            self.id = id
            self.work = work
            self.actions = actions
        }
    }

    /// A block and the queue it is submitted to.
    public struct Placed: Sendable, Equatable {
        public var queue: Int
        public var block: Block

        public init(queue: Int, block: Block) {
            self.queue = queue
            self.block = block
        }
    }

    /// How a step makes dispatch data (`Step.data`), from bytes or from data made by earlier steps.
    public enum DataOperation: Sendable, Equatable {
        /// A copy of `count` bytes counting up from `first`.
        case bytes(first: UInt8, count: Int)
        /// `data` followed by `other`.
        case append(Int, Int)
        /// The bytes of `data` in `lower..<upper` (clamped to its count).
        case subdata(Int, lower: Int, upper: Int)
        /// `data` in one region.
        case contiguous(Int)
    }

    /// A source handler a context runs in (`Context.handler`).
    public enum Handler: String, Sendable, Equatable, CaseIterable {
        /// The event handler of a one-shot timer due at once.
        case timer
        /// The event handler of a user-data source (adding), after one merge.
        case event
        /// The registration handler of a user-data source, run as it is activated.
        case registration
        /// The cancel handler of a user-data source, cancelled as soon as it is activated.
        case cancel
    }

    /// Where a step's call is made when not from the script's thread (`Step.within`). The script submits the context
    /// and waits (up to 5 s) until the context's block, the host, has ended: the call is still one step of a sequential
    /// script, made from a thread the engine chose, inside what the context holds (its queue's chain, a barrier, a
    /// source's serial delivery).
    public enum Context: Sendable, Equatable {
        /// A block submitted to `queue` with `async`, or with `barrierAsync` when `barrier`.
        case block(queue: Int, barrier: Bool)
        /// Inside the block of a `sync` onto `onto`, made from block `outer` submitted to `from`.
        case syncInside(from: Int, outer: Int, onto: Int)
        /// A handler of a source made on `queue` for the call.
        case handler(Handler, queue: Int)

        /// The queue the script submits to: the block's, the sync's caller's, the source's.
        public var queue: Int {
            switch self {
            case .block(let q, _), .syncInside(let q, _, _), .handler(_, let q): q
            }
        }
    }

    /// One step of the script, made by the calling thread.
    public enum Step: Sendable, Equatable {
        case async(queue: Int, Block)
        case barrierAsync(queue: Int, Block)
        /// `sync` from the calling thread; made only onto a queue nothing holds (else it would wait for good).
        case sync(queue: Int, Block)
        case barrierSync(queue: Int, Block)
        /// `asyncAfter` with a deadline `delay` µs from now (negative: in the past).
        case after(queue: Int, Block, delay: Int)
        case groupAsync(group: Int, queue: Int, Block)
        /// `enter()` on the calling thread, then a block that calls `leave()` once it recorded its end.
        case groupEnter(group: Int, queue: Int, Block)
        case groupNotify(group: Int, queue: Int, Block)
        /// `wait` on a group: 5 s where the model expects success, 20 ms where it may or must time out.
        case groupWait(group: Int)
        /// A new work item (`barrier` flag or none), submitted with `async(item)`.
        case item(item: Int, queue: Int, barrier: Bool, Block)
        case itemCancel(item: Int)
        case itemNotify(item: Int, queue: Int, Block)
        case itemWait(item: Int)
        /// Waits for one unit of counting semaphore `n`, which blocks signal.
        case semaphoreWait(Int)
        /// Signals counting semaphore `n` (from the script, or from a context).
        case signal(Int)
        case suspend(Int)
        case resume(Int)
        case activate(Int)
        /// `setTarget` on an inactive queue, to an earlier queue or (`nil`) the global queue.
        case retarget(Int, to: Int?)
        /// A one-shot timer source on `queue`, due `delay` µs from now, activated at once: `handler` is its event
        /// handler, block `cancelHandler` (no actions) its cancel handler.
        case timer(timer: Int, queue: Int, handler: Block, cancelHandler: Int, delay: Int)
        case timerCancel(timer: Int)
        /// `apply` with `iterations` from the calling thread; each index spins `work` µs, then records itself.
        case apply(iterations: Int, work: Int)
        /// Blocks that each wait (up to 2 s) on a new semaphore, then a block on another chain that signals it once for
        /// each: the waiters hold their threads until the giver runs, so an engine must find it a thread.
        case handoff(waiters: [Placed], giver: Placed)
        /// A block on `queue` signals a new semaphore the script waits on, then waits (up to 2 s) on a second one,
        /// which the script signals as soon as its own wait returns: each signal must wake its sleeper by itself.
        case pingPong(queue: Int, Block)
        /// A block on concurrent `queue` that waits (up to 2 s) on a new semaphore, then `sync` onto the same queue of
        /// a block that signals it: a sync onto a concurrent queue runs beside the blocks already running there.
        case syncBeside(queue: Int, waiter: Block, reader: Block)
        /// A block on the global queue that waits (up to 2 s) on a new semaphore, then a barrier on the global queue
        /// that signals it (`barrierAsync`, or with `item` a work item flagged barrier): the global queue has no
        /// barriers, so it runs beside the block.
        case barrierOnGlobal(waiter: Block, giver: Block, item: Bool)
        /// `step` made from inside `context`, in its block `host`: the script submits the context, then waits until
        /// `host` has ended. Never nested, never a meeting (`handoff`, `pingPong`, `syncBeside`, `barrierOnGlobal`).
        indirect case within(Context, host: Int, Step)
        /// `setSpecific` on `queue`: its own value becomes `value` (`nil` removes it).
        case setSpecific(queue: Int, value: Int?)
        /// `getSpecific` on `queue`: its own value, not its chain's.
        case getSpecific(queue: Int)
        /// Makes dispatch data `data` by `operation`; the step returns a checksum of its bytes.
        case data(Int, DataOperation)
        /// Sets `queue`'s context to a box holding `value` (`nil`: no context).
        case setContext(queue: Int, value: Int?)
        /// Sets `queue`'s finalizer: block `block`, which records the context it is given. The run releases every queue
        /// at its end; the finalizer then runs on the queue's target if the context is set.
        case setFinalizer(queue: Int, block: Int)
        /// Performs once-object `once` with `body`, which runs only if this perform is the once's first.
        case once(Int, body: Block)
        /// A user-data source on `queue` merging with `merge`, activated at once unless `inactive`: `handler` is its
        /// event handler (it records the data it reads), block `registration` its registration handler and block
        /// `cancelHandler` its cancel handler, where given.
        case source(
            source: Int, queue: Int, merge: DataMerge, handler: Block, registration: Int?, cancelHandler: Int?, inactive: Bool)
        case sourceActivate(source: Int)
        case sourceSuspend(source: Int)
        case sourceResume(source: Int)
        /// Merges `value` into user-data source `source`.
        case merge(source: Int, value: UInt)
        case sourceCancel(source: Int)
    }

    public var queues: [QueueSpec]
    /// How many groups the script uses.
    public var groups: Int
    /// How many counting semaphores (value 0) blocks signal and the script waits on.
    public var counters: Int
    /// How many lock semaphores (value 1) blocks take around critical sections.
    public var locks: Int
    /// How many once-objects the script and its blocks perform.
    public var onces: Int
    public var steps: [Step]
    /// Whether the engine applies a queue's own class below a target with another (`queue-class-under-target`): the
    /// model then checks the nearest class up a chain wherever one is set; otherwise only a chain with one class.
    public var nearestClass: Bool

    public init(
        queues: [QueueSpec], groups: Int = 0, counters: Int = 0, locks: Int = 0, onces: Int = 0, steps: [Step],
        nearestClass: Bool = false
    ) {
        self.queues = queues
        self.groups = groups
        self.counters = counters
        self.locks = locks
        self.onces = onces
        self.steps = steps
        self.nearestClass = nearestClass
    }

    /// The program as a reader follows it: the queues, then one numbered line per step.
    public var description: String {
        var lines: [String] = []
        for (index, queue) in queues.enumerated() {
            var line = "q\(index) = \(queue.kind) queue, target \(queue.target.map { "q\($0)" } ?? "global")"
            if queue.inactive { line += ", inactive" }
            if let specific = queue.specific { line += ", specific \(specific)" }
            if let qos = queue.qos { line += ", class \(qos.rawValue)" }
            if let global = queue.globalClass, queue.target == nil { line += ", on the \(global.rawValue) global queue" }
            lines.append(line)
        }
        for (index, step) in steps.enumerated() { lines.append("\(index): \(Self.describe(step))") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ block: Block) -> String {
        var text = "b\(block.id)"
        var parts: [String] = []
        if block.work > 0 { parts.append("spin \(block.work) µs") }
        for action in block.actions {
            switch action {
            case .signal(let n): parts.append("signal s\(n)")
            case .locked(let n): parts.append("lock l\(n)")
            case .nested(let queue, let nested): parts.append("async q\(queue) b\(nested)")
            case .nestedSync(let queue, let nested): parts.append("sync q\(queue) b\(nested)")
            case .once(let n, let body): parts.append("o\(n).perform b\(body)")
            case .merge(let source, let value): parts.append("u\(source).merge(\(value))")
            }
        }
        if !parts.isEmpty { text += " { " + parts.joined(separator: "; ") + " }" }
        return text
    }

    static func describe(_ step: Step) -> String {
        switch step {
        case .async(let q, let b): "q\(q).async \(describe(b))"
        case .barrierAsync(let q, let b): "q\(q).barrierAsync \(describe(b))"
        case .sync(let q, let b): "q\(q).sync \(describe(b))"
        case .barrierSync(let q, let b): "q\(q).barrierSync \(describe(b))"
        case .after(let q, let b, let delay): "q\(q).asyncAfter(now \(delay >= 0 ? "+" : "")\(delay) µs) \(describe(b))"
        case .groupAsync(let g, let q, let b): "g\(g).async(q\(q)) \(describe(b))"
        case .groupEnter(let g, let q, let b): "g\(g).enter; q\(q).async \(describe(b)) then g\(g).leave"
        case .groupNotify(let g, let q, let b): "g\(g).notify(q\(q)) \(describe(b))"
        case .groupWait(let g): "g\(g).wait"
        case .item(let i, let q, let barrier, let b): "i\(i) = item\(barrier ? "(barrier)" : "") \(describe(b)); q\(q).async(i\(i))"
        case .itemCancel(let i): "i\(i).cancel"
        case .itemNotify(let i, let q, let b): "i\(i).notify(q\(q)) \(describe(b))"
        case .itemWait(let i): "i\(i).wait"
        case .semaphoreWait(let n): "s\(n).wait"
        case .signal(let n): "s\(n).signal"
        case .suspend(let q): "q\(q).suspend"
        case .resume(let q): "q\(q).resume"
        case .activate(let q): "q\(q).activate"
        case .retarget(let q, let t): "q\(q).setTarget(\(t.map { "q\($0)" } ?? "global"))"
        case .timer(let t, let q, let h, let c, let delay):
            "t\(t) = timer on q\(q), due now +\(delay) µs, handler \(describe(h)), cancel handler b\(c); t\(t).activate"
        case .timerCancel(let t): "t\(t).cancel"
        case .apply(let n, let work): "apply(\(n))" + (work > 0 ? ", each index spins \(work) µs" : "")
        case .handoff(let waiters, let giver):
            "handoff: " + waiters.map { "q\($0.queue).async \(describe($0.block)) waits" }.joined(separator: ", ")
                + "; q\(giver.queue).async \(describe(giver.block)) gives \(waiters.count)"
        case .pingPong(let q, let b): "ping-pong: q\(q).async \(describe(b)) signals, then waits for the script's answer"
        case .syncBeside(let q, let waiter, let reader):
            "q\(q).async \(describe(waiter)) waits; q\(q).sync \(describe(reader)) gives it a unit"
        case .barrierOnGlobal(let waiter, let giver, let item):
            "global.async \(describe(waiter)) waits; global.\(item ? "async(item(barrier))" : "barrierAsync") \(describe(giver)) gives it a unit"
        case .within(let context, let host, let inner): "in \(describe(context, host: host)): \(describe(inner))"
        case .setSpecific(let q, let value): "q\(q).setSpecific(\(value.map(String.init) ?? "nil"))"
        case .getSpecific(let q): "q\(q).getSpecific"
        case .setContext(let q, let value): "q\(q).context = \(value.map(String.init) ?? "nil")"
        case .data(let d, .bytes(let first, let count)): "d\(d) = data of \(count) bytes from \(first)"
        case .data(let d, .append(let a, let b)): "d\(d) = d\(a) + d\(b)"
        case .data(let d, .subdata(let a, let lower, let upper)): "d\(d) = d\(a)[\(lower)..<\(upper)]"
        case .data(let d, .contiguous(let a)): "d\(d) = d\(a) contiguous"
        case .setFinalizer(let q, let block): "q\(q).setFinalizer(b\(block))"
        case .once(let n, let body): "o\(n).perform \(describe(body))"
        case .source(let u, let q, let merge, let h, let r, let c, let inactive):
            "u\(u) = \(merge.rawValue) source on q\(q), handler \(describe(h))" + (r.map { ", registration b\($0)" } ?? "")
                + (c.map { ", cancel handler b\($0)" } ?? "") + (inactive ? ", inactive" : "; u\(u).activate")
        case .sourceActivate(let u): "u\(u).activate"
        case .sourceSuspend(let u): "u\(u).suspend"
        case .sourceResume(let u): "u\(u).resume"
        case .merge(let u, let value): "u\(u).merge(\(value))"
        case .sourceCancel(let u): "u\(u).cancel"
        }
    }

    static func describe(_ context: Context, host: Int) -> String {
        switch context {
        case .block(let q, let barrier): "q\(q).\(barrier ? "barrierAsync" : "async") b\(host)"
        case .syncInside(let from, let outer, let onto): "q\(from).async b\(outer) { sync q\(onto) b\(host) }"
        case .handler(let handler, let q): "the \(handler.rawValue) handler b\(host) of a source on q\(q)"
        }
    }
}

extension Scenario.Action {
    /// The queue and block an action submits (`nested` or `nestedSync`); `nil` for the others.
    var submits: (queue: Int, block: Int)? {
        switch self {
        case .nested(let q, let b), .nestedSync(let q, let b): (q, b)
        case .signal, .locked, .once, .merge: nil
        }
    }
}

extension Scenario.Step {
    /// Whether the runner records the step's return itself (with a wait's result); every other step's return is
    /// recorded after its call.
    var returns: Bool {
        switch self {
        case .sync, .barrierSync, .groupWait, .itemWait, .semaphoreWait, .apply, .pingPong, .syncBeside, .within, .getSpecific,
            .data:
            true
        default: false
        }
    }

    /// The queue the step's block runs on, for the steps that submit one.
    var queue: Int? {
        switch self {
        case .async(let q, _), .barrierAsync(let q, _), .sync(let q, _), .barrierSync(let q, _), .after(let q, _, _),
            .groupAsync(_, let q, _), .groupEnter(_, let q, _), .groupNotify(_, let q, _), .item(_, let q, _, _),
            .itemNotify(_, let q, _), .timer(_, let q, _, _, _), .pingPong(let q, _), .syncBeside(let q, _, _),
            .source(_, let q, _, _, _, _, _):
            q
        case .within(_, _, let inner): inner.queue
        default: nil
        }
    }

    /// The step's call itself: the step, or the step a context wraps.
    public var call: Scenario.Step {
        if case .within(_, _, let inner) = self { return inner }
        return self
    }

    /// Blocks the step submits with the queue each is submitted to, the context's blocks first (nested blocks are
    /// their parents' actions; `ScenarioModel.global` for the global queue's).
    var placed: [(queue: Int, block: Scenario.Block)] {
        switch self {
        case .within(let context, let host, let inner):
            let hosts: [(queue: Int, block: Scenario.Block)] =
                switch context {
                case .block(let q, _), .handler(_, let q): [(q, Scenario.Block(id: host))]
                case .syncInside(let from, let outer, let onto):
                    [(from, Scenario.Block(id: outer, actions: [.nestedSync(queue: onto, block: host)]))]
                }
            return hosts + inner.placed
        case .handoff(let waiters, let giver): return (waiters + [giver]).map { ($0.queue, $0.block) }
        case .barrierOnGlobal(let waiter, let giver, _): return [waiter, giver].map { (ScenarioModel.global, $0) }
        case .once(_, let body): return [(ScenarioModel.global, body)]
        default: return blocks.map { (queue!, $0) }
        }
    }

    /// The blocks this step submits itself (nested blocks are their parents' actions).
    var blocks: [Scenario.Block] {
        switch self {
        case .async(_, let b), .barrierAsync(_, let b), .sync(_, let b), .barrierSync(_, let b), .after(_, let b, _),
            .groupAsync(_, _, let b), .groupEnter(_, _, let b), .groupNotify(_, _, let b), .item(_, _, _, let b),
            .itemNotify(_, _, let b), .pingPong(_, let b):
            [b]
        case .syncBeside(_, let waiter, let reader): [waiter, reader]
        case .barrierOnGlobal(let waiter, let giver, _): [waiter, giver]
        case .timer(_, _, let h, let c, _): [h, Scenario.Block(id: c)]
        case .source(_, _, _, let h, let r, let c, _): [h] + [r, c].compactMap { $0.map { Scenario.Block(id: $0) } }
        case .handoff(let waiters, let giver): waiters.map(\.block) + [giver.block]
        case .within: placed.map(\.block)
        case .once(_, let body): [body]
        default: []
        }
    }
}
