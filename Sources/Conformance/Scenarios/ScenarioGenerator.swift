import ArenaContract

/// Makes a `Scenario` from a seed: the same seed and features give the same program on every machine (SplitMix64,
/// no global randomness). Programs are small (1 to 4 queues, up to 30 steps) so that a disagreement shrinks to a few
/// lines; what varies is the shape: chains up to four deep, queues made inactive and retargeted before activation,
/// suspensions at every point of a queue's life, waits that must succeed, must time out or may do either, threads
/// that meet (a block and the script, a block and a sync beside it), and bursts of calls that race the blocks they
/// start.
/// Each step is chosen among those the contract allows at its point (a resume only after a suspend, a sync only onto
/// a queue nothing holds), tracked with the model's own `QueueStates`.
public struct ScenarioGenerator: Sendable {
    /// What the engine can be asked to do, beyond what every engine does.
    public struct Features: Sendable, Equatable {
        /// Blocks may block their thread (here: wait on a lock semaphore), `blocking-in-blocks`.
        public var blockingInBlocks: Bool

        /// A queue's own class applies below a target with another (`queue-class-under-target`): chains may then have
        /// a class on any link, and the nearest decides.
        public var classUnderTarget: Bool

        public init(blockingInBlocks: Bool, classUnderTarget: Bool = false) {
            self.blockingInBlocks = blockingInBlocks
            self.classUnderTarget = classUnderTarget
        }

        /// The features of an engine with `capabilities`.
        public init(_ capabilities: [Capability]) {
            blockingInBlocks = capabilities.contains(.blockingInBlocks)
            classUnderTarget = capabilities.contains(.queueClassUnderTarget)
        }
    }

    public let features: Features

    public init(features: Features) {
        self.features = features
        aimable = ScenarioReach.allowedCalls.filter { call in
            features.blockingInBlocks || (call.place == .thread || !call.operation.blocks) && call.place != .syncInside
        }
    }

    /// The program of `seed`.
    public func scenario(seed: UInt64) -> Scenario {
        var making = Making(random: SplitMix64(seed: seed), features: features)
        return making.make(aiming: aims(seed: seed))
    }

    /// How many programs `arena explore` runs on each engine unless told otherwise: enough that every call of the reach
    /// matrix is aimed at several times (docs/RULES.md counts its reach over them).
    public static let defaultBudget = 400

    /// How many calls of the reach matrix each program aims at.
    static let aimsPerProgram = 4

    /// Every call the model allows that an engine with these features can make (`ScenarioReach.allowedCalls`, less
    /// those that would block a block where blocks may not block), in the matrix's order. Worked out once, at `init`.
    public let aimable: [ScenarioReach.Call]

    /// The calls program `seed` aims at: seeds take the aimable calls in turn, `aimsPerProgram` each, so that any run
    /// of consecutive seeds a quarter as long as `aimable` aims at every one (lincheck's lesson: generate every
    /// combination, not only those chance finds).
    func aims(seed: UInt64) -> [ScenarioReach.Call] {
        let first = Int(seed % UInt64(aimable.count))
        return (0..<Self.aimsPerProgram).map { aimable[(first * Self.aimsPerProgram + $0) % aimable.count] }
    }
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): one addition
/// and three multiply-xorshift rounds per number, and every seed a full-period stream.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `values` at random; nil for none.
    mutating func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[Int.random(in: 0..<values.count, using: &self)] }

    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

private struct Making {
    var random: SplitMix64
    let features: Features
    typealias Features = ScenarioGenerator.Features

    var nextBlock = 0
    var queues: [Scenario.QueueSpec] = []
    var state: QueueStates!
    /// The program so far.
    var script = Scenario(queues: [], steps: [])
    var items: [Int: Bool] = [:]  // item → cancelled
    var timers: [Int: Bool] = [:]  // timer → cancelled
    var sources: [Int: (merge: DataMerge, cancelled: Bool, inactive: Bool)] = [:]
    var sourceSuspensions: [Int: Int] = [:]
    /// How many data the script made (their indices count up from 0).
    var datas = 0
    /// The queues given a finalizer (once each).
    var finalized: Set<Int> = []
    /// Steps made together, taken before the next draw (a burst of syncs).
    var pending: [Scenario.Step] = []
    /// How many more steps the program may take.
    var room = Self.maxSteps
    static let maxSteps = 30

    init(random: SplitMix64, features: Features) {
        self.random = random
        self.features = features
    }

    mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }

    mutating func pick<T>(_ values: [T]) -> T { random.pick(values)! }

    mutating func block(signals: Bool = true) -> Scenario.Block {
        let id = nextBlock
        nextBlock += 1
        var actions: [Scenario.Action] = []
        if signals && chance(25) { actions.append(.signal(Int.random(in: 0..<2, using: &random))) }
        if features.blockingInBlocks && chance(15) { actions.append(.locked(0)) }
        if chance(12) {
            actions.append(.nested(queue: Int.random(in: 0..<queues.count, using: &random), block: nextBlock))
            nextBlock += 1
        }
        // Where it could deadlock (`Scenario.validSteps()`) the whole step is left out, so aim at the last queue,
        // whose chain most often lies apart.
        if features.blockingInBlocks && queues.count > 1 && chance(15) {
            actions.append(.nestedSync(queue: queues.count - 1 - Int.random(in: 0..<2, using: &random), block: nextBlock))
            nextBlock += 1
        }
        if !sources.isEmpty && chance(10) { actions.append(mergeAction()) }
        // Performs that race: blocks on several threads performing the same once-object.
        if features.blockingInBlocks && chance(8) {
            actions.append(.once(Int.random(in: 0..<2, using: &random), block: nextBlock))
            nextBlock += 1
        }
        return Scenario.Block(id: id, work: pick([0, 0, 0, 2, 20, 100]), actions: actions)
    }

    /// A merge into one of the sources made so far, of a value that fits its kind: 1 to 3 added, one of five bits
    /// or'ed, 1 to 9 replacing.
    mutating func mergeAction(into source: Int? = nil) -> Scenario.Action {
        let u = source ?? pick(sources.keys.sorted())
        let value: UInt =
            switch sources[u]!.merge {
            case .add: UInt.random(in: 1...3, using: &random)
            case .or: 1 << UInt.random(in: 0..<5, using: &random)
            case .replace: chance(20) ? 0 : UInt.random(in: 1...9, using: &random)
            }
        return .merge(source: u, value: value)
    }

    mutating func fresh() -> Int {
        nextBlock += 1
        return nextBlock - 1
    }

    mutating func queue() -> Int { Int.random(in: 0..<queues.count, using: &random) }

    mutating func make(aiming aims: [ScenarioReach.Call]) -> Scenario {
        let count = max(pick([1, 2, 2, 3, 3, 4]), aims.isEmpty ? 1 : 4)
        for index in 0..<count {
            queues.append(
                Scenario.QueueSpec(
                    kind: chance(50) ? .serial : .concurrent,
                    target: index > 0 && chance(55) ? Int.random(in: 0..<index, using: &random) : nil,
                    inactive: chance(20),
                    specific: chance(40) ? index + 1 : nil))
        }
        shape(for: aims)
        // Classes of service: one link of a chain at most has one (the nearest then decides alone), or a root targets
        // the global queue of a class; where the engine applies a class below a target (`classUnderTarget`), any link
        // may have one, the nearest deciding.
        let classes: [QoSClass] = [.background, .utility, .userInitiated]
        for index in queues.indices where chance(25) {
            let chain = QueueStates.chain(index, queues.map(\.target))
            let below = queues.indices.filter { QueueStates.chain($0, queues.map(\.target)).contains(index) }
            let related = Set(chain + below)
            guard features.classUnderTarget || related.allSatisfy({ queues[$0].qos == nil && queues[$0].globalClass == nil })
            else { continue }
            if queues[index].target == nil && chance(40) {
                queues[index].globalClass = pick(classes)
            } else {
                queues[index].qos = pick(classes)
            }
        }
        script = Scenario(
            queues: queues, groups: 2, counters: 2, locks: features.blockingInBlocks ? 1 : 0, onces: 2, steps: [],
            nearestClass: features.classUnderTarget)
        state = QueueStates(script)
        let length = Int.random(in: 3...24, using: &random)
        // A third of the programs wait on a semaphore first, before any block could signal it: that wait must time
        // out and take nothing, which later waits on the same semaphore then show.
        if chance(33) { script.steps.append(.semaphoreWait(Int.random(in: 0..<2, using: &random))) }
        // The aimed calls go at random places of the script; one that cannot be made yet is tried again a little
        // later, and once the script has its length, once more at its end.
        var aims = aims
        // A call on an inactive queue goes first, while the queue the program made inactive for it still is.
        aims.sort { [.activate, .setTarget].contains($0.operation) && ![.activate, .setTarget].contains($1.operation) }
        var spots = aims.map { [.activate, .setTarget].contains($0.operation) ? 0 : Int.random(in: 0...length, using: &random) }
        spots.sort()
        while script.steps.count < length || !aims.isEmpty && script.steps.count < Self.maxSteps - 4 {
            room = Self.maxSteps - script.steps.count
            let (itemsBefore, timersBefore, sourcesBefore) = (items, timers, sources)
            var drawn: Scenario.Step?
            if let aim = aims.first, script.steps.count >= min(spots[0], length) {
                if let made = self.aim(aim) {
                    pending = made
                    aims.removeFirst()
                    spots.removeFirst()
                } else if script.steps.count < length {
                    spots[0] = script.steps.count + Int.random(in: 1...3, using: &random)
                    drawn = step()
                } else {
                    aims.removeFirst()
                    spots.removeFirst()
                }
            } else {
                drawn = step()
            }
            let made = pending.isEmpty ? drawn.map { [$0] } ?? [] : pending
            pending = []
            guard made.count <= room else {  // a burst too long for what is left: as if never drawn
                (items, timers, sources) = (itemsBefore, timersBefore, sourcesBefore)
                continue
            }
            for step in made {
                state.apply(step)
                script.steps.append(step)
            }
        }
        return script.normalized()
    }

    // MARK: Aimed calls

    /// Makes the program's queues fit its aimed calls: a chain of two for a call on the same chain, a concurrent
    /// queue for a barrier, an inactive queue below another for activation and retargeting.
    mutating func shape(for aims: [ScenarioReach.Call]) {
        guard !aims.isEmpty else { return }
        queues[1].target = 0
        queues[1].inactive = false
        queues[0].inactive = false
        if aims.contains(where: { $0.place == .barrier }) && !queues.contains(where: { $0.kind == .concurrent }) {
            queues[0].kind = .concurrent
        }
        if aims.contains(where: { $0.place == .syncInside }) { (queues[2].target, queues[3].target) = (nil, nil) }
        if aims.contains(where: { $0.operation == .sync && $0.place == .sameQueue }) {
            queues[2].kind = .concurrent
            queues[2].target = nil
        }
        // One inactive queue, below another, for each call that activates or retargets one (q2 and q3 at most).
        let inactive = aims.filter { [.activate, .setTarget].contains($0.operation) }.count
        let room = aims.contains { $0.place == .syncInside } ? 1 : 2  // a sync from a block needs q2 free
        for q in (queues.count - min(inactive, room))..<queues.count {
            queues[q].inactive = true
            queues[q].target = queues[q].target ?? 1
        }
    }

    /// The steps that make `call`: the objects it needs first where none fits, then the call, from its place.
    mutating func aim(_ call: ScenarioReach.Call) -> [Scenario.Step]? {
        let free = queues.indices.filter { !state.held($0) }
        func related(_ a: Int, _ b: Int) -> Bool {
            QueueStates.chain(a, state.target).contains(b) || QueueStates.chain(b, state.target).contains(a)
        }
        // Every context the place allows now, each with the queue the call acts on (nil: any).
        var options: [(context: Scenario.Context?, object: Int?)] = []
        let objects: [Int?] = call.operation.hasQueue ? queues.indices.map { $0 } : [nil]
        switch call.place {
        case .thread: options = objects.map { (nil, $0) }
        case .sameQueue:
            // A sync onto the caller's own queue finishes only through concurrent links.
            let hosts = call.operation == .sync ? free.filter { sideBySide($0) } : free
            options = hosts.map { (.block(queue: $0, barrier: false), $0) }
        case .sameChain, .otherQueue:
            for q in free {
                for x in objects where x.map({ $0 != q && related(q, $0) == (call.place == .sameChain) }) ?? true {
                    options.append((.block(queue: q, barrier: false), x))
                }
            }
        case .barrier:
            for q in free where queues[q].kind == .concurrent { options += objects.map { (.block(queue: q, barrier: true), $0) } }
        case .syncInside:
            for (from, onto) in syncPairs(free) { options += objects.map { (.syncInside(from: from, outer: -1, onto: onto), $0) } }
        case .timerHandler, .eventHandler, .registrationHandler, .cancelHandler:
            let handler: Scenario.Handler =
                switch call.place {
                case .timerHandler: .timer
                case .eventHandler: .event
                case .registrationHandler: .registration
                default: .cancel
                }
            for q in free { options += objects.map { (.handler(handler, queue: q), $0) } }
        }
        options.shuffle(using: &random)
        // The first option whose steps the model keeps, all of them, after the script so far.
        for option in options.prefix(12) {
            let saved = (items, timers, sources, nextBlock)
            if var made = make(call.operation, on: option.object) {
                if let context = option.context, let last = made.popLast() {
                    var placed = context
                    if case .syncInside(let from, _, let onto) = context { placed = .syncInside(from: from, outer: fresh(), onto: onto) }
                    made.append(.within(placed, host: fresh(), last))
                }
                var trial = script
                trial.steps += made
                if Set(trial.validSteps()).isSuperset(of: script.steps.count..<trial.steps.count) { return made }
            }
            (items, timers, sources, nextBlock) = saved
        }
        return nil
    }

    /// Steps that make `operation` on queue `x` (any fitting queue when `nil`), the last of them the call itself, the
    /// ones before it making the object it needs; `nil` when the program's state allows none.
    mutating func make(_ operation: ScenarioReach.Operation, on x: Int?) -> [Scenario.Step]? {
        let q = x ?? queue()
        let group = Int.random(in: 0..<2, using: &random)
        let semaphore = Int.random(in: 0..<2, using: &random)
        switch operation {
        case .async: return [.async(queue: q, block())]
        case .barrierAsync: return [.barrierAsync(queue: q, block())]
        case .sync, .barrierSync:
            guard !state.held(q) else { return nil }
            return [operation == .sync ? .sync(queue: q, block()) : .barrierSync(queue: q, block())]
        case .asyncAfter: return [.after(queue: q, block(), delay: pick([0, 100, 2000]))]
        case .suspend: return [.suspend(q)]
        case .resume:
            let suspended = queues.indices.filter { state.suspended[$0] > 0 && (x == nil || $0 == x) }
            return suspended.isEmpty ? [.suspend(q), .resume(q)] : [.resume(pick(suspended))]
        case .activate, .setTarget:
            let inactive = queues.indices.filter { state.inactive[$0] && (x == nil || $0 == x) }
            guard !inactive.isEmpty else { return nil }
            let target = pick(inactive)
            return [operation == .activate ? .activate(target) : .retarget(target, to: target > 0 ? target - 1 : nil)]
        case .setSpecific: return [.setSpecific(queue: q, value: 10 * (q + 1) + Int.random(in: 0..<3, using: &random))]
        case .getSpecific: return [.getSpecific(queue: q)]
        case .setContext: return [.setContext(queue: q, value: chance(20) ? nil : 100 + q)]
        case .dataMake, .dataAppend, .dataSubdata, .dataContiguous:
            var made: [Scenario.Step] = []
            if operation == .dataMake || datas == 0 || chance(50) {
                made.append(.data(datas, .bytes(first: UInt8.random(in: 0...250, using: &random), count: pick([0, 1, 5, 64]))))
                datas += 1
                if operation == .dataMake { return made }
            }
            let a = Int.random(in: 0..<datas, using: &random)
            let derived: Scenario.DataOperation
            switch operation {
            case .dataAppend: derived = .append(a, Int.random(in: 0..<datas, using: &random))
            case .dataSubdata:
                let lower = pick([0, 1, 3])
                derived = .subdata(a, lower: lower, upper: lower + pick([0, 2, 70]))
            default: derived = .contiguous(a)
            }
            made.append(.data(datas, derived))
            datas += 1
            return made
        case .setFinalizer:
            guard !finalized.contains(q) else { return nil }
            finalized.insert(q)
            return [.setContext(queue: q, value: 100 + q), .setFinalizer(queue: q, block: fresh())]
        case .groupAsync: return [.groupAsync(group: group, queue: q, block())]
        case .groupEnter: return [.groupEnter(group: group, queue: q, block())]
        case .groupNotify: return [.groupNotify(group: group, queue: q, block(signals: false))]
        case .groupWait: return [.groupWait(group: group)]
        case .itemAsync, .itemCancel, .itemNotify, .itemWait:
            let item = items.count
            items[item] = false
            var made: [Scenario.Step] = [.item(item: item, queue: q, barrier: false, block(signals: false))]
            switch operation {
            case .itemCancel:
                items[item] = true
                made.append(.itemCancel(item: item))
            case .itemNotify: made.append(.itemNotify(item: item, queue: queue(), block(signals: false)))
            case .itemWait: made.append(.itemWait(item: item))
            default: break
            }
            return made
        case .semaphoreSignal: return [.signal(semaphore)]
        case .semaphoreWait: return [.signal(semaphore), .semaphoreWait(semaphore)]
        case .timer, .timerCancel:
            let timer = timers.count
            timers[timer] = operation == .timerCancel
            let made: Scenario.Step = .timer(
                timer: timer, queue: q, handler: block(signals: false), cancelHandler: fresh(), delay: pick([0, 500, 5000]))
            return operation == .timer ? [made] : [made, .timerCancel(timer: timer)]
        case .apply: return [.apply(iterations: pick([1, 2, 7]), work: pick([0, 20]))]
        case .once: return [.once(group, body: .init(id: fresh()))]
        case .sourceMake, .sourceActivate, .sourceMerge, .sourceCancel, .sourceSuspend, .sourceResume:
            let u = sources.count
            let merge = pick(DataMerge.allCases)
            // Replacing, at times a value then zero into a source not yet active: it must then deliver nothing.
            let zeroing = operation == .sourceMerge && merge == .replace && chance(40)
            let inactive = operation == .sourceActivate || zeroing
            sources[u] = (merge, operation == .sourceCancel, inactive)
            var made: [Scenario.Step] = [
                .source(
                    source: u, queue: q, merge: merge, handler: block(signals: false), registration: chance(50) ? fresh() : nil,
                    cancelHandler: fresh(), inactive: inactive)
            ]
            switch operation {
            case .sourceActivate: made.append(.sourceActivate(source: u))
            case .sourceMerge where zeroing:
                made += [.merge(source: u, value: UInt.random(in: 1...9, using: &random)), .merge(source: u, value: 0)]
            case .sourceMerge:
                if case .merge(let u, let value) = mergeAction(into: u) { made.append(.merge(source: u, value: value)) }
            case .sourceCancel: made.append(.sourceCancel(source: u))
            case .sourceSuspend:
                sourceSuspensions[u, default: 0] += 1
                made.append(.sourceSuspend(source: u))
            case .sourceResume: made += [.sourceSuspend(source: u), .sourceResume(source: u)]
            default: break
            }
            return made
        }
    }

    /// One step the contract allows now, or `nil` when the kind drawn has none here.
    mutating func step() -> Scenario.Step? {
        let roll = Int.random(in: 0..<174, using: &random)
        switch roll {
        case 0..<12: return .async(queue: queue(), block())
        case 12..<15:
            // A burst: a busy queue, blocks on other chains syncing onto it, and blocks submitted between them, so
            // that sync callers wait in line together, each for its own turn.
            guard features.blockingInBlocks, queues.count > 1 else { return .async(queue: queue(), block()) }
            let target = queues.count - 1
            let chain = QueueStates.chain(target, state.target)
            let onto = Set(chain)
            let callers = queues.indices.filter { caller in
                let from = QueueStates.chain(caller, state.target)
                return onto.isDisjoint(with: from) && from.last! < chain.last!
            }
            guard !callers.isEmpty, !state.held(target) else { return nil }
            pending = [.async(queue: target, .init(id: fresh(), work: 200))]
            for _ in 0..<Int.random(in: 2...3, using: &random) {
                let caller = Scenario.Block(id: fresh(), actions: [.nestedSync(queue: target, block: fresh())])
                pending += [.async(queue: pick(callers), caller), .async(queue: target, .init(id: fresh(), work: 20))]
            }
            return nil
        case 15..<18:
            guard features.blockingInBlocks else { return .async(queue: queue(), block()) }
            // A giver on a chain apart from its waiters', and nothing held now (the model drops it if that changes).
            let free = queues.indices.filter { !state.held($0) }
            guard !free.isEmpty else { return nil }
            let giver = pick(free)
            let giverChain = QueueStates.chain(giver, state.target)
            let apart = free.filter {
                let chain = QueueStates.chain($0, state.target)
                return Set(giverChain).isDisjoint(with: chain) && chain.last! < giverChain.last!
            }
            guard !apart.isEmpty else { return nil }
            let waiters = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                Scenario.Placed(queue: pick(apart), block: Scenario.Block(id: fresh()))
            }
            return .handoff(waiters: waiters, giver: .init(queue: giver, block: .init(id: fresh())))
        case 18..<24: return .barrierAsync(queue: queue(), block())
        case 24..<30, 30..<33:
            let free = queues.indices.filter { !state.held($0) }
            guard !free.isEmpty else { return nil }
            let q = pick(free)
            return roll < 30 ? .sync(queue: q, block()) : .barrierSync(queue: q, block())
        case 33..<37: return .after(queue: queue(), block(), delay: pick([-1000, 0, 100, 2000, 10000]))
        case 37..<43: return .groupAsync(group: Int.random(in: 0..<2, using: &random), queue: queue(), block())
        case 43..<47: return .groupEnter(group: Int.random(in: 0..<2, using: &random), queue: queue(), block())
        case 47..<51: return .groupNotify(group: Int.random(in: 0..<2, using: &random), queue: queue(), block(signals: false))
        case 51..<55: return .groupWait(group: Int.random(in: 0..<2, using: &random))
        case 55..<60:
            let item = items.count
            items[item] = false
            return .item(item: item, queue: queue(), barrier: chance(30), block(signals: false))
        case 60..<63:
            let open = items.keys.sorted()
            guard !open.isEmpty else { return nil }
            let item = pick(open)
            items[item] = true
            return .itemCancel(item: item)
        case 63..<65:
            guard !items.isEmpty else { return nil }
            return .itemNotify(item: pick(items.keys.sorted()), queue: queue(), block(signals: false))
        case 65..<67:
            // Any item: a wait the model does not allow (on a cancelled item, a second one that is misuse) is left out.
            guard !items.isEmpty else { return nil }
            return .itemWait(item: pick(items.keys.sorted()))
        case 67..<71: return .semaphoreWait(Int.random(in: 0..<2, using: &random))
        case 71..<78: return .suspend(queue())
        case 78..<85:
            let suspended = queues.indices.filter { state.suspended[$0] > 0 }
            return suspended.isEmpty ? nil : .resume(pick(suspended))
        case 85..<89:
            let inactive = queues.indices.filter { state.inactive[$0] }
            return inactive.isEmpty ? nil : .activate(pick(inactive))
        case 89..<92:
            let inactive = queues.indices.filter { state.inactive[$0] }
            guard !inactive.isEmpty else { return nil }
            let q = pick(inactive)
            return .retarget(q, to: q > 0 && chance(70) ? Int.random(in: 0..<q, using: &random) : nil)
        case 92..<95:
            let timer = timers.count
            timers[timer] = false
            let handler = block(signals: false)
            let cancel = nextBlock
            nextBlock += 1
            return .timer(timer: timer, queue: queue(), handler: handler, cancelHandler: cancel, delay: pick([0, 500, 5000]))
        case 95..<97:
            let open = timers.filter { !$0.value }.keys.sorted()
            guard !open.isEmpty else { return nil }
            let timer = pick(open)
            timers[timer] = true
            return .timerCancel(timer: timer)
        case 97..<100: return .apply(iterations: pick([0, 1, 2, 7, 32]), work: pick([0, 0, 20, 50]))
        case 100..<102:
            // The script and one block meet: a lost wake-up on either side leaves one of them waiting out its deadline.
            let free = queues.indices.filter { !state.held($0) }
            guard features.blockingInBlocks, !free.isEmpty else { return nil }
            return .pingPong(queue: pick(free), .init(id: fresh()))
        case 102..<104:
            let beside = queues.indices.filter { !state.held($0) && sideBySide($0) }
            guard features.blockingInBlocks, !beside.isEmpty else { return nil }
            return .syncBeside(queue: pick(beside), waiter: .init(id: fresh()), reader: .init(id: fresh()))
        case 104..<106:
            // A wait that surely times out (the item's own queue is suspended), then one that may succeed: only a
            // wait that may have succeeded counts against waiting twice.
            let q = queue()
            let item = items.count
            items[item] = false
            pending = [
                .suspend(q), .item(item: item, queue: q, barrier: chance(30), block(signals: false)), .itemWait(item: item),
                .resume(q), .itemWait(item: item),
            ]
            return nil
        case 106..<110: return race()
        case 110..<112:
            guard features.blockingInBlocks else { return nil }
            return .barrierOnGlobal(waiter: .init(id: fresh()), giver: .init(id: fresh()), item: chance(50))
        case 112..<130: return within()
        case 130..<134:
            let q = queue()
            return .setSpecific(queue: q, value: chance(25) ? nil : 10 * (q + 1) + Int.random(in: 0..<3, using: &random))
        case 134..<136: return .getSpecific(queue: queue())
        case 136..<142: return .once(Int.random(in: 0..<2, using: &random), body: .init(id: fresh()))
        case 142..<146:
            let u = sources.count
            let merge = pick(DataMerge.allCases)
            let handler = block(signals: false)
            let registration = chance(50) ? fresh() : nil
            let cancel = chance(70) ? fresh() : nil
            let inactive = chance(25)
            sources[u] = (merge, false, inactive)
            return .source(
                source: u, queue: queue(), merge: merge, handler: handler, registration: registration, cancelHandler: cancel,
                inactive: inactive)
        case 146..<154:
            guard !sources.isEmpty, case .merge(let u, let value) = mergeAction() else { return nil }
            return .merge(source: u, value: value)
        case 170..<174:
            // Data steps come in the few steps that make their operands; a burst too long is dropped as any is.
            pending = make(pick([.dataMake, .dataAppend, .dataSubdata, .dataContiguous]), on: nil) ?? []
            return nil
        case 166..<168: return make(.setContext, on: nil)?.last
        case 168..<170:
            let q = queue()
            guard !finalized.contains(q) else { return nil }
            finalized.insert(q)
            return .setFinalizer(queue: q, block: fresh())
        case 160..<163:
            guard !sources.isEmpty else { return nil }
            let u = pick(sources.keys.sorted())
            sourceSuspensions[u, default: 0] += 1
            return .sourceSuspend(source: u)
        case 163..<166:
            let suspended = sourceSuspensions.filter { $0.value > 0 }.keys.sorted()
            guard !suspended.isEmpty else { return nil }
            let u = pick(suspended)
            sourceSuspensions[u]! -= 1
            return .sourceResume(source: u)
        case 154..<156:
            let inactive = sources.filter(\.value.inactive).keys.sorted()
            guard !inactive.isEmpty else { return nil }
            let u = pick(inactive)
            sources[u]!.inactive = false
            return .sourceActivate(source: u)
        default:
            let live = sources.filter { !$0.value.cancelled }.keys.sorted()
            guard !live.isEmpty else { return nil }
            let u = pick(live)
            sources[u]!.cancelled = true
            return .sourceCancel(source: u)
        }
    }

    /// A call made from inside a context (`Scenario.Context`) the contract allows now: a block or a barrier on a queue
    /// nothing holds, a sync made from a block, a source's handler. The call is any step but a meeting; on an engine
    /// whose blocks may not block, none that waits.
    mutating func within() -> Scenario.Step? {
        let free = queues.indices.filter { !state.held($0) }
        guard !free.isEmpty else { return nil }
        let context: Scenario.Context
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1: context = .block(queue: pick(free), barrier: false)
        case 2:
            let concurrent = free.filter { queues[$0].kind == .concurrent }
            guard !concurrent.isEmpty else { return nil }
            context = .block(queue: pick(concurrent), barrier: true)
        case 3:
            let pairs = syncPairs(free)
            guard features.blockingInBlocks, !pairs.isEmpty else { return nil }
            let (from, onto) = pick(pairs)
            context = .syncInside(from: from, outer: fresh(), onto: onto)
        default: context = .handler(pick(Scenario.Handler.allCases), queue: pick(free))
        }
        let host = fresh()
        let (itemsBefore, timersBefore, sourcesBefore) = (items, timers, sources)
        let inner = step()
        let blocks: Bool
        switch inner {
        case .sync, .barrierSync, .groupWait, .itemWait, .semaphoreWait, .apply: blocks = true
        default: blocks = false
        }
        guard pending.isEmpty, let inner, !blocks || features.blockingInBlocks else {
            pending = []
            (items, timers, sources) = (itemsBefore, timersBefore, sourcesBefore)
            return nil
        }
        switch inner {
        case .within, .handoff, .pingPong, .syncBeside, .barrierOnGlobal:
            (items, timers, sources) = (itemsBefore, timersBefore, sourcesBefore)
            return nil
        default: return .within(context, host: host, inner)
        }
    }

    /// A burst of calls that race with the blocks they start: notifications registered while the group's or item's
    /// last block may be ending, or enters while earlier members leave; each call a chance to catch a check made
    /// outside the lock, or an update made without it.
    mutating func race() -> Scenario.Step? {
        let free = queues.indices.filter { !state.held($0) }
        guard !free.isEmpty else { return nil }
        let group = Int.random(in: 0..<2, using: &random)
        let count = min(Int.random(in: 4...8, using: &random), (room - 1) / 2)
        guard count >= 3 else { return nil }
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            let (members, notified) = (pick(free), pick(free))
            for _ in 0..<count {
                pending += [
                    .groupAsync(group: group, queue: members, .init(id: fresh())),
                    .groupNotify(group: group, queue: notified, .init(id: fresh())),
                ]
            }
        case 1:
            let (runs, notified) = (pick(free), pick(free))
            for _ in 0..<count {
                let item = items.count
                items[item] = false
                pending += [
                    .item(item: item, queue: runs, barrier: false, .init(id: fresh())),
                    .itemNotify(item: item, queue: notified, .init(id: fresh())),
                ]
            }
        case 2:
            let concurrent = free.filter { sideBySide($0) }
            let q = concurrent.isEmpty ? pick(free) : pick(concurrent)
            for _ in 0..<count { pending.append(.groupEnter(group: group, queue: q, .init(id: fresh()))) }
            pending.append(.groupWait(group: group))
        case 3 where !sources.isEmpty:
            // Merges from blocks side by side and from the script, racing the handler's deliveries.
            let q = pick(free)
            for _ in 0..<count {
                pending.append(.async(queue: q, .init(id: fresh(), actions: [mergeAction()])))
                if case .merge(let u, let value) = mergeAction() { pending.append(.merge(source: u, value: value)) }
            }
            pending = Array(pending.prefix(room))
        default:
            // Blocks side by side performing one once-object: every racer but the first must wait for its body.
            let concurrent = free.filter { sideBySide($0) }
            guard features.blockingInBlocks, !concurrent.isEmpty else { return nil }
            let q = pick(concurrent)
            for _ in 0..<count {
                pending.append(.async(queue: q, .init(id: fresh(), actions: [.once(group, block: fresh())])))
            }
        }
        return nil
    }

    /// The (caller, callee) pairs of `free` queues where a block of the first may sync onto the second: chains that share
    /// no queue, the callee's root later (`Scenario.syncsAreSafe`).
    func syncPairs(_ free: [Int]) -> [(from: Int, onto: Int)] {
        free.flatMap { from in
            free.filter { onto in
                let (a, b) = (QueueStates.chain(from, state.target), QueueStates.chain(onto, state.target))
                return Set(a).isDisjoint(with: b) && b.last! > a.last!
            }
            .map { (from, $0) }
        }
    }

    /// Whether every link of `q`'s chain is concurrent, so that its blocks may run side by side.
    func sideBySide(_ q: Int) -> Bool {
        QueueStates.chain(q, state.target).allSatisfy { queues[$0].kind == .concurrent }
    }
}

/// What replays one scenario: the layer its program speaks, its seed, and after shrinking, the steps of the seed's
/// program that are kept (`SEED@I,J,K`, indices into the generated script; `op:SEED…` for an operation-queue program).
/// A seed alone is the whole program.
public struct ScenarioToken: Sendable, Equatable, CustomStringConvertible {
    /// The layers a generated program speaks.
    public enum Layer: String, Sendable, CaseIterable {
        /// GCD's objects (`Scenario`, `ScenarioGenerator`).
        case dispatch = ""
        /// An operation-queue layer (`OperationProgram`, `OperationGenerator`).
        case operations = "op:"
        /// An executor layer (`ExecutorProgram`, `ExecutorGenerator`).
        case executors = "ex:"
    }

    public let layer: Layer
    public let seed: UInt64
    /// The indices kept, ascending; `nil` for the whole program.
    public let kept: [Int]?

    public init(_ layer: Layer = .dispatch, seed: UInt64, kept: [Int]? = nil) {
        self.layer = layer
        self.seed = seed
        self.kept = kept
    }

    /// Reads `[op:]SEED` or `[op:]SEED@I,J,...` (decimal); the reason in one line otherwise.
    public init(parsing text: String) throws(ScenarioTokenError) {
        layer = Layer.allCases.first { !$0.rawValue.isEmpty && text.hasPrefix($0.rawValue) } ?? .dispatch
        let parts = text.dropFirst(layer.rawValue.count).split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let seed = UInt64(parts[0]) else {
            throw ScenarioTokenError(
                "'\(text)' is not a seed: a decimal number below 2^64, optionally after op: or ex: and before @ and step indices")
        }
        self.seed = seed
        guard parts.count == 2 else {
            kept = nil
            return
        }
        var indices: [Int] = []
        for field in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            guard let index = Int(field), index >= 0, indices.last.map({ index > $0 }) ?? true else {
                throw ScenarioTokenError("'\(text)': the steps after @ must be ascending indices (0, 1, …) separated by commas")
            }
            indices.append(index)
        }
        kept = indices
    }

    public var description: String {
        layer.rawValue + (kept.map { "\(seed)@" + $0.map(String.init).joined(separator: ",") } ?? "\(seed)")
    }

    /// The operation-queue program this token names, made with `generator`. Indices past its calls are an error.
    public func program(_ generator: OperationGenerator) throws(ScenarioTokenError) -> OperationProgram {
        var program = generator.program(seed: seed)
        guard kept != nil else { return program }
        program.calls = try keeping(program.calls, "call")
        program.calls = OperationRun.accepted(program, features: generator.features)
        return program
    }

    /// The executor program this token names, made with `generator`. Indices past its top-level steps are an error.
    public func program(_ generator: ExecutorGenerator) throws(ScenarioTokenError) -> ExecutorProgram {
        var program = generator.program(seed: seed)
        program.steps = try keeping(program.steps, "step")
        return program
    }

    /// How many steps the program of this token has, kept ones only.
    public func steps(_ capabilities: [Capability]) throws(ScenarioTokenError) -> Int {
        switch layer {
        case .dispatch: try scenario(ScenarioGenerator(features: .init(capabilities))).steps.count
        case .operations: try program(OperationGenerator(features: .init(capabilities))).calls.count
        case .executors: try program(ExecutorGenerator(features: .init(capabilities))).steps.count
        }
    }

    /// The program of this token, as text.
    public func listing(_ capabilities: [Capability]) throws(ScenarioTokenError) -> String {
        switch layer {
        case .dispatch: try scenario(ScenarioGenerator(features: .init(capabilities))).description
        case .operations: try program(OperationGenerator(features: .init(capabilities))).description
        case .executors: try program(ExecutorGenerator(features: .init(capabilities))).description
        }
    }

    /// The program this token names, made with `generator`. Indices past the generated script are an error.
    public func scenario(_ generator: ScenarioGenerator) throws(ScenarioTokenError) -> Scenario {
        var scenario = generator.scenario(seed: seed)
        guard kept != nil else { return scenario }
        scenario.steps = try keeping(scenario.steps, "step")
        return scenario.normalized()
    }

    /// The `items` this token keeps (all of them without indices); an index past them is an error naming `noun`.
    private func keeping<T>(_ items: [T], _ noun: String) throws(ScenarioTokenError) -> [T] {
        guard let kept else { return items }
        if let last = kept.last, last >= items.count {
            throw ScenarioTokenError("'\(self)': seed \(seed) makes \(items.count) \(noun)s, so no \(noun) \(last)")
        }
        return kept.map { items[$0] }
    }
}

/// Why a token does not name a scenario.
public struct ScenarioTokenError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
