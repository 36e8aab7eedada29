import ArenaContract
import Harness

/// Every call an operation-queue program makes, each declared once (`OperationCall`).
enum OperationCalls {
    /// The calls the generator draws from, with their weights.
    static let drawn: [(call: any OperationCall.Type, weight: Int)] = [
        (Add.self, 8), (AddMany.self, 3), (AddBarrier.self, 3), (SetWidth.self, 3), (Suspend.self, 2), (Resume.self, 3),
        (Cancel.self, 3), (CancelAll.self, 1), (Release.self, 8), (SetPriority.self, 2), (AddDependency.self, 4),
        (RemoveDependency.self, 2), (ReadCount.self, 2), (ReadOperations.self, 2), (ReadState.self, 3),
        (StartByHand.self, 1), (WaitOperation.self, 2), (WaitAll.self, 2), (AddAndWait.self, 1), (ProbeUnderlying.self, 1),
    ]

    /// The calls that may be made from inside a body as it is released.
    static let inside: [any OperationCall.Type] = drawn.map(\.call).filter { $0.inside } + [ReadCurrent.self]

    /// Every call type, the drain's included, in the reach matrix's order.
    static var all: [any OperationCall.Type] { drawn.map(\.call) + [ReadCurrent.self, ReleaseAll.self, ResumeAll.self, AddRest.self] }
}

// MARK: - Picking

extension OperationModel {
    /// The operations (barriers excluded) in `phases`.
    func ops(in phases: Phase...) -> [Int] { ops.indices.filter { ops[$0].spec.kind != .barrier && phases.contains(ops[$0].phase) } }

    func refuse(_ condition: Bool, _ why: @autoclosure () -> String) throws(OperationCallRefused) {
        if condition { throw OperationCallRefused(why()) }
    }
}

// MARK: - Adding

/// `addOperation(_:)`: one operation onto a queue.
struct Add: OperationCall {
    static let name = "add"
    static let inside = true
    let op: Int
    var target: Int? { op }
    let queue: Int
    var description: String { "q\(queue).addOperation(op\(op))" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Add? {
        guard let op = random.pick(model.ops(in: .created)), let queue = random.pick(model.queueIndices) else { return nil }
        return Add(op: op, queue: queue)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.ops[op].phase != .created, "op\(op) is not free to add")
        try model.refuse(model.cancelledBehindBarrier(op, queue), "op\(op) is cancelled and a barrier waits on q\(queue)")
        try model.refuse(model.barrierWaitsFor(op, queue), "a barrier on q\(queue) waits for op\(op)")
        model.add(op, to: queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].addOperation(world.ops[op]!)
        return nil
    }
}

/// `addOperations(_:waitUntilFinished: false)`: several, onto a suspended queue or one with room for every one that
/// is ready (otherwise which of them start would depend on how fast the first run).
struct AddMany: OperationCall {
    static let name = "add-many"
    let ops: [Int]
    let queue: Int
    var description: String { "q\(queue).addOperations([\(ops.map { "op\($0)" }.joined(separator: ", "))])" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> AddMany? {
        let free = model.ops(in: .created).shuffled(using: &random)
        guard free.count >= 2, let queue = random.pick(model.queueIndices) else { return nil }
        return AddMany(ops: Array(free.prefix(Int.random(in: 2...min(4, free.count), using: &random))).sorted(), queue: queue)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(ops.contains { model.ops[$0].phase != .created }, "an operation is not free to add")
        try model.refuse(ops.contains { model.cancelledBehindBarrier($0, queue) }, "a cancelled one would wait behind a barrier")
        try model.refuse(ops.contains { model.barrierWaitsFor($0, queue) }, "a barrier on q\(queue) waits for one of them")
        try model.refuse(!model.room(in: queue, for: ops), "q\(queue) has no room for every ready one")
        for op in ops { model.add(op, to: queue) }
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].addOperations(ops.map { world.ops[$0]! }, waitUntilFinished: false)
        return nil
    }
}

/// `addBarrierBlock(_:)`: runs after every operation added before it, before any added after.
struct AddBarrier: OperationCall {
    static let name = "add-barrier"
    static let inside = true
    let queue: Int
    var description: String { "q\(queue).addBarrierBlock" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> AddBarrier? {
        random.pick(model.queueIndices).map(AddBarrier.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        // On a suspended queue with nothing unfinished, the reference (swift-corelibs-foundation) runs the barrier at
        // once, where suspension would hold it (`arena explore`, seed op:6): the contract does not say which.
        try model.refuse(
            model.queues[queue].suspended && model.unfinished(queue, barriers: true).isEmpty, "q\(queue) is suspended and empty")
        model.add(model.makeBarrier(), to: queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.addBarrier(to: queue)
        return nil
    }
}

// MARK: - The queue's settings

/// `maxConcurrentOperationCount = width`; what the new width allows starts.
struct SetWidth: OperationCall {
    static let name = "set-width"
    static let inside = true
    let queue: Int
    let width: Int
    var description: String { "q\(queue).maxConcurrentOperationCount = \(width == OperationProgram.unlimited ? "unlimited" : "\(width)")" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> SetWidth? {
        guard let queue = random.pick(model.queueIndices.filter { !model.queues[$0].pinned }) else { return nil }
        return SetWidth(queue: queue, width: random.pick([1, 2, 3, OperationProgram.unlimited])!)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.queues[queue].pinned, "q\(queue) runs on a serial underlying queue")
        model.setWidth(width, of: queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].maxConcurrentOperationCount = width == OperationProgram.unlimited ? L.Queue.unlimited : width
        return nil
    }
}

/// `isSuspended = true`: nothing more starts; what runs goes on.
struct Suspend: OperationCall {
    static let name = "suspend"
    static let inside = true
    let queue: Int
    var description: String { "q\(queue).isSuspended = true" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Suspend? {
        random.pick(model.queueIndices.filter { !model.queues[$0].suspended }).map(Suspend.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        model.setSuspended(true, queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].isSuspended = true
        return nil
    }
}

/// `isSuspended = false`: what is ready starts.
struct Resume: OperationCall {
    static let name = "resume"
    static let inside = true
    let queue: Int
    var description: String { "q\(queue).isSuspended = false" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Resume? {
        random.pick(model.queueIndices.filter { model.queues[$0].suspended }).map(Resume.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        model.setSuspended(false, queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].isSuspended = false
        return nil
    }
}

// MARK: - Cancelling

/// `cancel()`, at any stage: on no queue, waiting, running (its body then reads `isCancelled` true), finished (nothing).
struct Cancel: OperationCall {
    static let name = "cancel"
    static let inside = true
    let op: Int
    var target: Int? { op }
    var description: String { "op\(op).cancel()" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Cancel? {
        random.pick(model.ops(in: .created, .waiting, .running, .finished)).map(Cancel.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        model.cancel(op)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.ops[op]!.cancel()
        return nil
    }
}

/// `cancelAllOperations()`: every unfinished member, running ones included.
struct CancelAll: OperationCall {
    static let name = "cancel-all"
    static let inside = true
    let queue: Int
    var description: String { "q\(queue).cancelAllOperations()" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> CancelAll? {
        random.pick(model.queueIndices).map(CancelAll.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.barrierWaits(queue), "a barrier waits on q\(queue)")
        // The call cancels one member after another: one cancelled early may finish and ready another before the call
        // gets to it, which may then start (seen on the default layer, seed op:146). So no member may wait for another.
        let members = model.unfinished(queue, barriers: true)
        let chained = members.contains { op in
            (model.ops[op].dependencies + model.ops[op].implicit).contains { members.contains($0) } && model.ops[op].started == nil
        }
        try model.refuse(chained, "a member of q\(queue) waits for another, which the call may finish before it cancels the first")
        for op in members { model.cancel(op) }
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.queues[queue].cancelAllOperations()
        return nil
    }
}

// MARK: - Held bodies

/// Opens a held operation's gate: a running body makes `inner` (a call from inside the operation, if any), reads
/// `isCancelled` and returns; an asynchronous operation's `finish` is called from the script. Released before it
/// starts, it runs straight through.
struct Release: OperationCall {
    static let name = "release"
    let op: Int
    var target: Int? { op }
    let inner: (any OperationCall)?
    var description: String { "release op\(op)" + (inner.map { ", which first calls \($0)" } ?? "") }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> Release? {
        let held = model.ops.indices.filter {
            model.ops[$0].spec.held && !model.ops[$0].released && model.ops[$0].phase != .finished
        }
        // Mostly a running body that can make a call from inside itself, when there is one: the body is the context.
        let bodies = held.filter { model.ops[$0].phase == .running && model.ops[$0].spec.kind != .async }
        guard let op = random.pick(!bodies.isEmpty && random.chance(75) ? bodies : held) else { return nil }
        guard model.ops[op].phase == .running, model.ops[op].spec.kind != .async, random.chance(90) else {
            return Release(op: op, inner: nil)
        }
        for attempt in 0..<8 {
            let aimed = attempt < 3 ? model.aim : nil
            if let kind = aimed ?? random.pick(OperationCalls.inside), let inner = kind.propose(model, &random) {
                return Release(op: op, inner: inner is ReadCurrent ? ReadCurrent(op: op) : inner)
            }
        }
        return Release(op: op, inner: nil)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        let held = model.ops[op]
        try model.refuse(!held.spec.held || held.released || held.phase == .finished, "op\(op) is not held")
        var expected: String?
        if let inner {
            try model.refuse(held.phase != .running || held.spec.kind == .async, "op\(op) is not running a body")
            expected = try inner.apply(to: &model)
        }
        model.release(op)
        return expected
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.release(op, inner: inner, expecting: expected)
    }
}

/// Releases every held operation (the drain at a program's end).
struct ReleaseAll: OperationCall {
    static let name = "release-all"
    var description: String { "release every held operation" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ReleaseAll? { ReleaseAll() }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        for op in model.ops.indices where model.ops[op].spec.held && !model.ops[op].released { model.release(op) }
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        for op in world.program.ops.indices where world.program.ops[op].held { _ = world.release(op, inner: nil, expecting: nil) }
        return nil
    }
}

/// Resumes every queue (the drain).
struct ResumeAll: OperationCall {
    static let name = "resume-all"
    var description: String { "resume every queue" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ResumeAll? { ResumeAll() }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        for queue in model.queues.indices { model.setSuspended(false, queue) }
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        for queue in world.queues { queue.isSuspended = false }
        return nil
    }
}

/// Adds every operation still on no queue to the drain's own queue, one by one (the drain).
struct AddRest: OperationCall {
    static let name = "add-rest"
    var description: String { "add every operation left to the drain's queue" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> AddRest? { AddRest() }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        for op in model.ops(in: .created) { model.add(op, to: model.queues.count - 1) }
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        for op in world.pendingAdds { world.queues.last!.addOperation(world.ops[op]!) }
        return nil
    }
}

// MARK: - Priorities and dependencies

/// `queuePriority = priority`, before the operation starts: it reorders only what has not started.
struct SetPriority: OperationCall {
    static let name = "set-priority"
    static let inside = true
    let op: Int
    var target: Int? { op }
    let priority: OperationPriority
    var description: String { "op\(op).queuePriority = \(priority)" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> SetPriority? {
        guard let op = random.pick(model.ops(in: .created, .waiting)) else { return nil }
        return SetPriority(op: op, priority: random.pick(OperationPriority.allCases)!)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.ops[op].phase != .created && model.ops[op].phase != .waiting, "op\(op) started")
        model.setPriority(priority, of: op)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.ops[op]!.queuePriority = priority
        return nil
    }
}

/// `addDependency(_:)` on an operation not started, on any other (finished, running, on another queue or none),
/// never closing a cycle: late dependencies (the dependent already waits on its queue) included.
struct AddDependency: OperationCall {
    static let name = "add-dependency"
    static let inside = true
    let op: Int
    var target: Int? { op }
    let on: Int
    var description: String { "op\(op).addDependency(op\(on))" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> AddDependency? {
        guard let op = random.pick(model.ops(in: .created, .waiting).filter { !model.ops[$0].cancelled }) else { return nil }
        let others = model.ops(in: .created, .waiting, .running, .finished).filter {
            $0 != op && !model.dependsOn($0, op) && !model.ops[op].dependencies.contains($0)
        }
        return random.pick(others).map { AddDependency(op: op, on: $0) }
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.ops[op].phase != .created && model.ops[op].phase != .waiting, "op\(op) started")
        try model.refuse(op == on || model.dependsOn(on, op) || model.ops[op].dependencies.contains(on), "a cycle or a repeat")
        model.addDependency(op, on: on)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.ops[op]!.addDependency(world.ops[on]!)
        return nil
    }
}

/// `removeDependency(_:)` on an operation not started: if it was the last unfinished, the operation is ready.
struct RemoveDependency: OperationCall {
    static let name = "remove-dependency"
    static let inside = true
    let op: Int
    var target: Int? { op }
    let on: Int
    var description: String { "op\(op).removeDependency(op\(on))" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> RemoveDependency? {
        guard model.features.removeDependency,
            let op = random.pick(model.ops(in: .created, .waiting).filter { !model.ops[$0].dependencies.isEmpty })
        else { return nil }
        return RemoveDependency(op: op, on: random.pick(model.ops[op].dependencies)!)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(!model.features.removeDependency, "the layer cannot remove dependencies")
        try model.refuse(model.ops[op].phase != .created && model.ops[op].phase != .waiting, "op\(op) started")
        try model.refuse(!model.ops[op].dependencies.contains(on), "op\(op) does not depend on op\(on)")
        model.removeDependency(op, on: on)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.ops[op]!.removeDependency(world.ops[on]!)
        return nil
    }
}

// MARK: - Reads

/// `operationCount`: the members not finished, barriers not counted.
struct ReadCount: OperationCall {
    static let name = "read-count"
    static let inside = true
    let queue: Int
    var description: String { "read q\(queue).operationCount" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ReadCount? {
        random.pick(model.queueIndices).map(ReadCount.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.hasUncertain(queue), "q\(queue) holds a cancelled operation a layer may have finished")
        return "\(model.unfinished(queue).count)"
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.poll(expected) { "\(world.queues[queue].operationCount)" }
    }
}

/// `operations`: the members not finished, in order of addition, barriers not listed.
struct ReadOperations: OperationCall {
    static let name = "read-operations"
    static let inside = true
    let queue: Int
    var description: String { "read q\(queue).operations" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ReadOperations? {
        random.pick(model.queueIndices).map(ReadOperations.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.hasUncertain(queue), "q\(queue) holds a cancelled operation a layer may have finished")
        return "[" + model.unfinished(queue).map { "op\($0)" }.joined(separator: ", ") + "]"
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.poll(expected) { "[" + world.queues[queue].operations.map { $0.name ?? "?" }.joined(separator: ", ") + "]" }
    }
}

/// An operation's flags: `isFinished`, `isExecuting`, `isCancelled`, and `isReady` while it has not started.
struct ReadState: OperationCall {
    static let name = "read-state"
    static let inside = true
    let op: Int
    var target: Int? { op }
    var description: String { "read op\(op)'s flags" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ReadState? {
        random.pick(model.ops(in: .created, .waiting, .running, .finished)).map(ReadState.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        let read = model.ops[op]
        try model.refuse(read.uncertain, "op\(op) was cancelled and a layer may have finished it")
        var flags = "finished \(read.phase == .finished), executing \(read.phase == .running), cancelled \(read.cancelled)"
        if (read.phase == .created || read.phase == .waiting) && !read.cancelled && read.implicit.isEmpty {
            flags += ", ready \(model.dependenciesFinished(op))"
        }
        return flags
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        let read = world.ops[op]!
        return world.poll(expected) {
            var flags = "finished \(read.isFinished), executing \(read.isExecuting), cancelled \(read.isCancelled)"
            if expected?.contains("ready") == true { flags += ", ready \(read.isReady)" }
            return flags
        }
    }
}

/// `OperationQueue.current` from inside an operation's body: its own queue (one started by hand has none).
struct ReadCurrent: OperationCall {
    static let name = "read-current"
    static let inside = true
    /// The operation whose body reads.
    let op: Int
    var description: String { "read OperationQueue.current" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ReadCurrent? {
        ReadCurrent(op: -1)  // Release fills in the operation
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(op < 0 || model.ops[op].phase != .running, "read-current is made from a running body")
        return model.ops[op].queue.map { "q\($0)" } ?? "nil"
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.layer.currentQueue?.name ?? "nil"
    }
}

/// A block submitted to a pinned queue's serial underlying queue while no operation runs there: it runs in no
/// operation, so `OperationQueue.current` is nil in it (a worker must not keep the last operation's queue).
struct ProbeUnderlying: OperationCall {
    static let name = "probe-underlying"
    let queue: Int
    var description: String { "read OperationQueue.current in a block on q\(queue)'s underlying queue" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> ProbeUnderlying? {
        random.pick(model.queueIndices.filter { model.queues[$0].pinned }).map(ProbeUnderlying.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(!model.queues[queue].pinned, "q\(queue) has no underlying queue")
        let busy = model.queues[queue].members.contains {
            model.ops[$0].phase == .running || model.ops[$0].phase == .waiting && !model.queues[queue].suspended
        }
        try model.refuse(busy, "q\(queue) has an operation running or about to")
        return "nil"
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.probe(queue)
    }
}

// MARK: - Starting by hand and waiting

/// `start()` on an operation on no queue, ready (or cancelled), not held: its work and finish happen before it
/// returns, on the script's thread, in no queue.
struct StartByHand: OperationCall {
    static let name = "start-by-hand"
    let op: Int
    var target: Int? { op }
    var description: String { "op\(op).start()" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> StartByHand? {
        random.pick(
            model.ops(in: .created).filter { !model.ops[$0].spec.held && (model.ops[$0].cancelled || model.dependenciesFinished($0)) }
        )
        .map(StartByHand.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        let read = model.ops[op]
        try model.refuse(read.phase != .created || read.spec.held, "op\(op) is on a queue or held")
        try model.refuse(!read.cancelled && !model.dependenciesFinished(op), "op\(op) is not ready")
        model.startByHand(op)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        world.ops[op]!.start()
        return nil
    }
}

/// `waitUntilFinished()` on a thread of its own: it returns in the step its operation finishes.
struct WaitOperation: OperationCall {
    static let name = "wait-operation"
    let op: Int
    var target: Int? { op }
    var description: String { "a thread waits for op\(op)" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> WaitOperation? {
        random.pick(model.ops(in: .created, .waiting, .running, .finished)).map(WaitOperation.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.ops[op].uncertain, "op\(op) was cancelled and a layer may have finished it")
        _ = model.wait(for: [op])
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        let waited = world.ops[op]!
        world.startWaiter { deadline in waited.waitUntilFinished(until: deadline) }
        return nil
    }
}

/// `waitUntilAllOperationsAreFinished()` on a thread of its own: it returns once the queue has no unfinished member,
/// those added while it waits included (Apple: "other threads may" add meanwhile; both the reference and the default
/// layer wait for them).
struct WaitAll: OperationCall {
    static let name = "wait-all"
    let queue: Int
    var description: String { "a thread waits for every operation of q\(queue)" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> WaitAll? {
        random.pick(model.queueIndices).map(WaitAll.init)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(model.hasUncertain(queue), "q\(queue) holds a cancelled operation a layer may have finished")
        _ = model.wait(for: model.unfinished(queue, barriers: true), emptying: queue)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        let waited = world.queues[queue]
        world.startWaiter { deadline in waited.waitUntilAllOperationsAreFinished(until: deadline) }
        return nil
    }
}

/// `addOperations(_:waitUntilFinished: true)` on a thread of its own, onto a queue with room for every one that is
/// ready, so that the ones that can start do so in this step (and the step's quiescence sees they were added): it
/// returns once every one of them finished.
struct AddAndWait: OperationCall {
    static let name = "add-and-wait"
    let ops: [Int]
    let queue: Int
    var description: String { "a thread adds [\(ops.map { "op\($0)" }.joined(separator: ", "))] to q\(queue) and waits for them" }

    static func propose(_ model: OperationModel, _ random: inout SplitMix64) -> AddAndWait? {
        let free = model.ops(in: .created).filter { !model.ops[$0].cancelled && model.dependenciesFinished($0) }
            .shuffled(using: &random)
        guard free.count >= 2, let queue = random.pick(model.queueIndices.filter { !model.queues[$0].suspended }) else {
            return nil
        }
        return AddAndWait(ops: Array(free.prefix(Int.random(in: 2...min(3, free.count), using: &random))).sorted(), queue: queue)
    }

    func apply(to model: inout OperationModel) throws(OperationCallRefused) -> String? {
        try model.refuse(ops.contains { model.ops[$0].phase != .created || model.ops[$0].cancelled }, "not free to add")
        try model.refuse(model.queues[queue].suspended, "q\(queue) is suspended")
        try model.refuse(!ops.allSatisfy(model.dependenciesFinished), "an operation is not ready")
        try model.refuse(!model.room(in: queue, for: ops), "q\(queue) has no room for every one")
        try model.refuse(!model.unfinished(queue, barriers: true).allSatisfy { model.ops[$0].spec.kind != .barrier }, "a barrier waits")
        for op in ops { model.add(op, to: queue) }
        _ = model.wait(for: ops)
        return nil
    }

    func perform<L: OperationLayer>(in world: OperationWorld<L>, expecting expected: String?) -> String? {
        let added = ops.map { world.ops[$0]! }
        let target = world.queues[queue]
        world.startWaiter { _ in
            target.addOperations(added, waitUntilFinished: true)
            return .success
        }
        return nil
    }
}

extension OperationModel {
    /// Whether a barrier waiting on `queue` waits, through the operations before it, for `op`: adding `op` behind it
    /// would close a cycle.
    func barrierWaitsFor(_ op: Int, _ queue: Int) -> Bool {
        queues[queue].members.contains { ops[$0].spec.kind == .barrier && ops[$0].phase != .finished && dependsOn($0, op) }
    }

    /// Whether adding `ops` to `queue` cannot leave the set that starts to timing: the queue is suspended, or has room
    /// for every one of them that is ready as well as what waits there already.
    func room(in queue: Int, for added: [Int]) -> Bool {
        if queues[queue].suspended { return true }
        let running = queues[queue].members.filter { ops[$0].phase == .running }.count
        let waiting = queues[queue].members.filter { ops[$0].phase == .waiting && ready($0) }.count
        let joining = added.filter { ops[$0].cancelled || dependenciesFinished($0) }.count
        let width = queues[queue].width
        return width == OperationProgram.unlimited || running + waiting + joining <= width
    }
}
