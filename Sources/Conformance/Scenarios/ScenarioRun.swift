import ArenaContract
import Harness

/// Runs a scenario's program on an engine, specialised for its type, and checks the trace against the model.
///
/// The calling thread makes the steps; blocks record their start (with the specific value they read), their
/// actions and their end. Every wait has a deadline: 5 s where the model expects success, 20 ms where it expects a
/// timeout or allows either. After the epilogue the run waits up to 5 s for every block owed, cancels the timers
/// still live, waits for their cancel handlers, and watches 5 ms more for blocks that run twice. A run costs the
/// program's blocks plus about a millisecond, and 20 ms for each wait that may time out.
public enum ScenarioRun {
    /// The first way a run of `model` on `engine` broke the contract, or `nil`.
    public static func run<E: Engine>(_ model: ScenarioModel, on engine: E) -> ScenarioDisagreement? {
        ScenarioCheck.check(record(model, on: engine), against: model)
    }

    /// The trace of one run of `model` on `engine`.
    public static func record<E: Engine>(_ model: ScenarioModel, on engine: E) -> [ScenarioEvent] {
        let world = World(engine, model)
        world.play()
        return world.recorder.trace
    }
}

/// One run's objects: the engine's queues, groups, semaphores, items and timers, and the recorder.
private final class World<E: Engine>: @unchecked Sendable {
    let engine: E
    let model: ScenarioModel
    let recorder: ScenarioRecorder
    let key = SpecificKey<Int>("arena.explore")
    var queues: [E.Queue] = []
    let groups: [E.Group]
    let counters: [E.Semaphore]
    let locks: [E.Semaphore]
    let onces: [E.Once]
    var items: [Int: E.WorkItem] = [:]
    var datas: [Int: E.Data] = [:]
    var timers: [Int: E.TimerSource] = [:]
    var cancelled: Set<Int> = []
    /// Where the signallers of the script's own signal steps are numbered from (a block's id is far below).
    static var stepSignaller: Int { 1_000_000 }

    /// The user-data sources of the script, each in a slot made before the run: blocks that merge read their slot
    /// while the script fills others.
    let sources: [SourceSlot<E.UserDataSource>]
    /// The sources made as contexts, kept until the run ends; each is cancelled once its host ended.
    var contextSources: [any EngineSource] = []
    /// Set when a context's host did not end in time: the script stops there, since the host may still make its call
    /// later, beside the script.
    var stopped = false

    init(_ engine: E, _ model: ScenarioModel) {
        self.engine = engine
        self.model = model
        recorder = ScenarioRecorder(owed: model.owed)
        let scenario = model.scenario
        groups = (0..<scenario.groups).map { engine.makeGroup(label: "arena.explore.g\($0)") }
        counters = (0..<scenario.counters).map { _ in engine.makeSemaphore(value: 0)! }
        locks = (0..<scenario.locks).map { _ in engine.makeSemaphore(value: 1)! }
        onces = (0..<scenario.onces).map { engine.makeOnce(label: "arena.explore.o\($0)") }
        let made = model.sources.keys.max().map { $0 + 1 } ?? 0
        sources = (0..<made).map { _ in SourceSlot() }
        for (_, source) in model.sources where source.exact && !source.merged.isEmpty {
            recorder.owe(data: source.total, to: source.handler, merging: source.merge)
        }
        for (index, spec) in scenario.queues.enumerated() {
            let queue = engine.makeQueue(
                label: "arena.explore.q\(index)", kind: spec.kind, qos: spec.qos, startsInactive: spec.inactive,
                target: spec.target.map { queues[$0] } ?? spec.globalClass.map { engine.globalQueue(qos: $0) })
            if let value = spec.specific { queue.setSpecific(key, value) }
            queues.append(queue)
        }
    }

    /// The body of `block` on queue `queue`; `after` runs once its end is recorded (a group's leave).
    func body(_ block: Scenario.Block, _ after: (@Sendable () -> Void)? = nil) -> @Sendable () -> Void {
        { [self] in
            recorder.record(.start, block.id, Int64(engine.currentSpecific(key) ?? -1))
            recorder.record(.qos, block.id, Int64(engine.currentQoS.rank))
            perform(block)
            reread(block.id)
            recorder.record(.end, block.id)
            after?()
        }
    }

    func perform(_ block: Scenario.Block) {
        if block.work > 0 { Timing.spin(.microseconds(block.work)) }
        for action in block.actions {
            switch action {
            case .signal(let n):
                recorder.record(.signal, n, Int64(block.id))
                recorder.record(.signalled, n, Int64(block.id) * 2 + (counters[n].signal() ? 1 : 0))
            case .locked(let n):
                guard locks[n].wait(until: .now() + .seconds(5)) == .success else {
                    recorder.record(.lockTimedOut, n, Int64(block.id))
                    continue
                }
                recorder.record(.enter, n, Int64(block.id))
                Timing.spin(.microseconds(10))
                recorder.record(.leave, n, Int64(block.id))
                locks[n].signal()
            case .nested(let q, let nested):
                queues[q].async(body(Scenario.Block(id: nested)))
            case .nestedSync(let q, let nested):
                queues[q].sync { body(Scenario.Block(id: nested))() }
            case .merge(let u, let value):
                sources[u].source!.merge(value)
            case .once(let n, let nested):
                onces[n].perform { body(Scenario.Block(id: nested, work: 50))() }
                recorder.record(.performed, n, Int64(block.id))
            }
        }
    }

    /// Block `id` of a meeting: records its start, does `first`, waits up to 2 s for a unit of `unit` and records
    /// whether it came, then records its end.
    func waiter(_ id: Int, for unit: E.Semaphore, first: @escaping @Sendable () -> Void = {}) -> @Sendable () -> Void {
        { [self] in
            recorder.record(.start, id, Int64(engine.currentSpecific(key) ?? -1))
            first()
            recorder.record(.handoff, id, unit.wait(until: .now() + .seconds(2)) == .success ? 1 : 0)
            recorder.record(.end, id)
        }
    }

    /// Block `id` that gives a meeting's waiters their units: records its start, signals `unit` `count` times, and
    /// records its end.
    func giver(_ id: Int, of unit: E.Semaphore, count: Int = 1) -> @Sendable () -> Void {
        { [self] in
            recorder.record(.start, id, Int64(engine.currentSpecific(key) ?? -1))
            for _ in 0..<count { unit.signal() }
            recorder.record(.end, id)
        }
    }

    /// Block `id` reads its specific value again as it ends, after its actions and calls (a sync, a perform), which
    /// must have left its thread's queue as they found it.
    func reread(_ id: Int) { recorder.record(.reread, id, Int64(engine.currentSpecific(key) ?? -1)) }

    /// Lets go of every object of the run that holds a queue: the work items, timers, sources, and the queues.
    func release() {
        items = [:]
        timers = [:]
        for slot in sources { slot.source = nil }
        contextSources = []
        queues = []
    }

    /// Submits `context` for a call of the script: its host block `host` records its start (with the specific value it
    /// reads), makes `call` (the first time it runs only) and records its end. The script's submission is marked by
    /// `contextCall` and `contextReturned` events.
    func enter(_ context: Scenario.Context, host: Int, step k: Int, _ call: @escaping @Sendable () -> Void) {
        let hosted: @Sendable () -> Void = { [self] in
            recorder.record(.start, host, Int64(engine.currentSpecific(key) ?? -1))
            recorder.record(.qos, host, Int64(engine.currentQoS.rank))
            if recorder.claim(host) { call() }
            reread(host)
            recorder.record(.end, host)
        }
        recorder.record(.contextCall, k)
        switch context {
        case .block(let q, let barrier):
            if barrier { queues[q].barrierAsync(hosted) } else { queues[q].async(hosted) }
        case .syncInside(let from, let outer, let onto):
            queues[from].async { [self] in
                recorder.record(.start, outer, Int64(engine.currentSpecific(key) ?? -1))
                queues[onto].sync { hosted() }
                reread(outer)
                recorder.record(.end, outer)
            }
        case .handler(.timer, let q):
            let source = engine.makeTimerSource(label: "arena.explore.context", queue: queues[q])
            source.setEventHandler(hosted)
            source.schedule(deadline: .now(), repeating: nil, leeway: .zero)
            source.activate()
            contextSources.append(source)
        case .handler(let handler, let q):
            let source = engine.makeUserDataSource(label: "arena.explore.context", merge: .add, queue: queues[q])
            switch handler {
            case .registration: source.setRegistrationHandler(hosted)
            case .cancel: source.setCancelHandler(hosted)
            default: source.setEventHandler(hosted)
            }
            source.activate()
            if handler == .event { source.merge(1) }
            if handler == .cancel { source.cancel() }
            contextSources.append(source)
        }
        recorder.record(.contextReturned, k)
    }

    func wait(_ step: Int, _ call: (Deadline) -> WaitResult) {
        let limit: Duration = model.waits[step] == .success ? .seconds(5) : .milliseconds(20)
        recorder.record(.mark, step)
        let result = call(.now() + limit)
        recorder.record(.returned, step, result == .success ? 1 : 0)
    }

    func play() {
        for (k, step) in model.program.enumerated() {
            play(step, k)
            if stopped { return }
            if !step.returns { recorder.record(.returned, k) }
        }
        let live = model.timers.filter { !cancelled.contains($0.key) }
        let liveSources = model.sources.filter { !$0.value.cancelled }
        let finalizers = Set(model.finalizers.values.map(\.block))
        let later = live.values.map(\.cancel) + liveSources.values.compactMap(\.cancelHandler)
        let missing = recorder.settle(until: .now() + .seconds(5), leaving: finalizers.union(later))
        for timer in live.keys.sorted() { timers[timer]!.cancel() }
        for source in liveSources.keys.sorted() { sources[source].source!.cancel() }
        if missing.isEmpty && recorder.settle(until: .now() + .seconds(5), leaving: finalizers).isEmpty && !finalizers.isEmpty {
            // Every queue goes, so that the finalizers run: the run's references are the last the program holds.
            release()
            _ = recorder.settle(until: .now() + .seconds(5))
        }
        Timing.pause(.milliseconds(5))
    }

    func play(_ step: Scenario.Step, _ k: Int) {
        switch step {
        case .async(let q, let b):
            recorder.record(.mark, k)
            queues[q].async(body(b))
        case .barrierAsync(let q, let b):
            recorder.record(.mark, k)
            queues[q].barrierAsync(body(b))
        case .sync(let q, let b):
            recorder.record(.mark, k)
            queues[q].sync { body(b)() }
            recorder.record(.returned, k)
        case .barrierSync(let q, let b):
            recorder.record(.mark, k)
            queues[q].barrierSync { body(b)() }
            recorder.record(.returned, k)
        case .after(let q, let b, let delay):
            let deadline = Deadline.now() + .microseconds(delay)
            recorder.record(.mark, k, Int64(deadline.nanoseconds))
            queues[q].asyncAfter(deadline: deadline, body(b))
        case .groupAsync(let g, let q, let b):
            recorder.record(.mark, k)
            groups[g].async(on: queues[q], body(b))
        case .groupEnter(let g, let q, let b):
            recorder.record(.mark, k)
            let group = groups[g]
            group.enter()
            queues[q].async(body(b) { group.leave() })
        case .groupNotify(let g, let q, let b):
            recorder.record(.mark, k)
            groups[g].notify(queue: queues[q], body(b))
        case .groupWait(let g):
            wait(k) { groups[g].wait(until: $0) }
        case .item(let i, let q, let barrier, let b):
            let item = engine.makeWorkItem(label: "arena.explore.i\(i)", flags: barrier ? .barrier : [], body(b))
            items[i] = item
            recorder.record(.mark, k)
            queues[q].async(item)
        case .itemCancel(let i):
            recorder.record(.mark, k)
            items[i]!.cancel()
        case .itemNotify(let i, let q, let b):
            recorder.record(.mark, k)
            items[i]!.notify(queue: queues[q], body(b))
        case .itemWait(let i):
            wait(k) { items[i]!.wait(until: $0) }
        case .semaphoreWait(let n):
            wait(k) { counters[n].wait(until: $0) }
        case .suspend(let q):
            recorder.record(.mark, k)
            queues[q].suspend()
        case .resume(let q):
            recorder.record(.mark, k)
            queues[q].resume()
        case .activate(let q):
            recorder.record(.mark, k)
            queues[q].activate()
        case .retarget(let q, let t):
            recorder.record(.mark, k)
            queues[q].setTarget(t.map { queues[$0] } ?? engine.globalQueue)
        case .timer(let t, let q, let h, let c, let delay):
            let source = engine.makeTimerSource(label: "arena.explore.t\(t)", queue: queues[q])
            let recorder = recorder
            source.setEventHandler { [self, unowned source] in
                recorder.record(.start, h.id, Int64(engine.currentSpecific(key) ?? -1))
                recorder.record(.data, h.id, Int64(source.data))
                perform(h)
                recorder.record(.end, h.id)
            }
            source.setCancelHandler(body(Scenario.Block(id: c)))
            timers[t] = source
            let deadline = Deadline.now() + .microseconds(delay)
            recorder.record(.mark, k, Int64(deadline.nanoseconds))
            source.schedule(deadline: deadline, repeating: nil, leeway: .zero)
            source.activate()
        case .timerCancel(let t):
            recorder.record(.mark, k)
            timers[t]!.cancel()
            cancelled.insert(t)
        case .handoff(let waiters, let giver):
            let units = engine.makeSemaphore(value: 0)!
            recorder.record(.mark, k)
            for waiter in waiters { queues[waiter.queue].async(self.waiter(waiter.block.id, for: units)) }
            queues[giver.queue].async(self.giver(giver.block.id, of: units, count: waiters.count))
        case .apply(let n, let work):
            recorder.record(.mark, k)
            let recorder = recorder
            engine.apply(iterations: n) {
                if work > 0 { Timing.spin(.microseconds(work)) }
                recorder.record(.index, k, Int64($0))
            }
            recorder.record(.returned, k)
        case .pingPong(let q, let b):
            let there = engine.makeSemaphore(value: 0)!
            let back = engine.makeSemaphore(value: 0)!
            wait(k) { deadline in
                queues[q].async(waiter(b.id, for: back) { there.signal() })
                let result = there.wait(until: deadline)
                back.signal()
                return result
            }
        case .syncBeside(let q, let waiter, let reader):
            let unit = engine.makeSemaphore(value: 0)!
            recorder.record(.mark, k)
            queues[q].async(self.waiter(waiter.id, for: unit))
            queues[q].sync(giver(reader.id, of: unit))
            recorder.record(.returned, k)
        case .source(let u, let q, let merge, let h, let r, let c, let inactive):
            let source = engine.makeUserDataSource(label: "arena.explore.u\(u)", merge: merge, queue: queues[q])
            source.setEventHandler { [self, unowned source] in
                recorder.record(.start, h.id, Int64(engine.currentSpecific(key) ?? -1))
                recorder.record(.data, h.id, Int64(truncatingIfNeeded: source.data))
                perform(h)
                reread(h.id)
                recorder.record(.end, h.id)
            }
            if let r { source.setRegistrationHandler(body(Scenario.Block(id: r))) }
            if let c { source.setCancelHandler(body(Scenario.Block(id: c))) }
            sources[u].source = source
            recorder.record(.mark, k)
            if !inactive { source.activate() }
        case .sourceActivate(let u):
            recorder.record(.mark, k)
            sources[u].source!.activate()
        case .sourceSuspend(let u):
            recorder.record(.mark, k)
            sources[u].source!.suspend()
        case .sourceResume(let u):
            recorder.record(.mark, k)
            sources[u].source!.resume()
        case .merge(let u, let value):
            recorder.record(.mark, k)
            sources[u].source!.merge(value)
        case .sourceCancel(let u):
            recorder.record(.mark, k)
            sources[u].source!.cancel()
        case .signal(let n):
            // As a block's signal, with a signaller no block has: the step, past every block's id.
            let signaller = Int64(Self.stepSignaller + k)
            recorder.record(.mark, k)
            recorder.record(.signal, n, signaller)
            recorder.record(.signalled, n, signaller * 2 + (counters[n].signal() ? 1 : 0))
        case .setSpecific(let q, let value):
            recorder.record(.mark, k)
            queues[q].setSpecific(key, value)
        case .data(let d, let operation):
            recorder.record(.mark, k)
            let made: E.Data
            switch operation {
            case .bytes(let first, let count):
                let bytes = (0..<count).map { first &+ UInt8(truncatingIfNeeded: $0) }
                made = bytes.withUnsafeBytes { engine.makeData(copying: $0) }
            case .append(let a, let b): made = datas[a]!.appending(datas[b]!)
            case .subdata(let a, let lower, let upper):
                let count = datas[a]!.count
                made = datas[a]!.subdata(min(lower, count)..<min(upper, count))
            case .contiguous(let a): made = datas[a]!.contiguous()
            }
            datas[d] = made
            recorder.record(.returned, k, ScenarioModel.checksum(made.bytes))
        case .setContext(let q, let value):
            recorder.record(.mark, k)
            queues[q].context = value.map(ContextBox.init)
        case .setFinalizer(let q, let f):
            recorder.record(.mark, k)
            queues[q].setFinalizer { [self] context in
                recorder.record(.start, f, Int64(engine.currentSpecific(key) ?? -1))
                recorder.record(.data, f, Int64((context as? ContextBox)?.value ?? -1))
                recorder.record(.end, f)
            }
        case .getSpecific(let q):
            recorder.record(.mark, k)
            let value = queues[q].getSpecific(key)
            recorder.record(.returned, k, Int64(value ?? -1))
        case .once(let n, let b):
            recorder.record(.mark, k)
            onces[n].perform { body(b)() }
            recorder.record(.performed, n, -1)
        case .within(let context, let host, let inner):
            enter(context, host: host, step: k) { [self] in
                play(inner, k)
                if !inner.returns { recorder.record(.returned, k) }
            }
            stopped = !recorder.waitEnded(host, until: .now() + .seconds(5))
            if case .handler(let handler, _) = context, handler != .cancel { contextSources.last?.cancel() }
        case .barrierOnGlobal(let waiter, let giver, let item):
            let unit = engine.makeSemaphore(value: 0)!
            let global = engine.globalQueue
            recorder.record(.mark, k)
            global.async(self.waiter(waiter.id, for: unit))
            let give = self.giver(giver.id, of: unit)
            if item {
                global.async(engine.makeWorkItem(label: "arena.explore.global-barrier", flags: .barrier, give))
            } else {
                global.barrierAsync(give)
            }
        }
    }
}

/// A user-data source of a run, set by the step that makes it, read by the blocks that merge into it (each submitted
/// after that step, so the engine's submission orders the two).
final class SourceSlot<Source>: @unchecked Sendable {
    var source: Source?
}

/// A queue's context in a run: the value its finalizer must be given.
final class ContextBox: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}
