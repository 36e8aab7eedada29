import ArenaContract
import Harness

/// Runs an `OperationProgram` on a layer, one call a step, and checks every step against the model: what each call
/// observed, that the layer reached the model's quiescent state (everything the model started, started; everything it
/// finished, finished, with its completion block and execution blocks; every waiter it returned, returned), and that
/// nothing the model holds back started, finished or returned. At the end: each body ran once, in the step the model
/// says, on its own queue, reading `isCancelled` as the model says; each completion block once, after its operation;
/// each dependency and barrier ended before what waits for it started; a queue one wide started its waiting operations
/// in order of priority and addition.
public enum OperationRun {
    /// What every run does after its program's calls, so that everything finishes: release every held operation,
    /// resume every queue, add what is left to the drain's queue. Not part of the program, so shrinking keeps it.
    static let drain: [any OperationCall] = [ReleaseAll(), ResumeAll(), AddRest()]

    /// How long the run waits for the layer to reach a step's quiescent state.
    static let settling: Duration = .seconds(5)

    /// The calls of `program` the model accepts, in order: one refused (its state no longer allows it, after
    /// shrinking) or ambiguous is left out, both here and in the run.
    static func accepted(_ program: OperationProgram, features: OperationGenerator.Features) -> [any OperationCall] {
        var model = OperationModel(program, features: features)
        return program.calls.filter { model.take($0) != nil }
    }

    /// The first disagreement of one run of `program` on `engine`'s operation layer, or nil. Held bodies wait on the
    /// engine's semaphores.
    public static func run<E: Engine>(_ program: OperationProgram, on engine: E, features: OperationGenerator.Features)
        -> ScenarioDisagreement?
    {
        let world = OperationWorld(program, on: engine.operations) { Gate(engine.makeSemaphore(value: 0)!) }
        defer { world.tearDown() }
        var model = OperationModel(program, features: features)
        for call in program.calls + drain {
            let pending = model.ops(in: .created)
            guard let expected = model.take(call) else { continue }
            world.pendingAdds = pending
            world.log.withLock { $0.step = model.step }
            let seen = call.perform(in: world, expecting: expected)
            if seen != expected {
                return .init(.wrongValue, "step \(model.step) (\(call)): \(seen ?? "nothing"), the model expects \(expected ?? "nothing")")
            }
            if let unmet = settle(world, model) {
                return .init(.missing, "step \(model.step) (\(call)): \(unmet), within \(settling.seconds) s")
            }
            if let early = heldBack(world, model) { return .init(early.key, "step \(model.step) (\(call)): \(early.detail)") }
        }
        return finalCheck(world.log.snapshot, model)
    }

    // MARK: - Each step

    /// Waits until the layer reached the model's quiescent state; what is still missing at the deadline, or nil.
    private static func settle<L: OperationLayer>(_ world: OperationWorld<L>, _ model: OperationModel) -> String? {
        let deadline = Deadline.now() + settling
        while true {
            guard let unmet = unmet(world, model) else { return nil }
            if Deadline.now() >= deadline { return unmet }
            Threads.sleep(.microseconds(100))
        }
    }

    private static func unmet<L: OperationLayer>(_ world: OperationWorld<L>, _ model: OperationModel) -> String? {
        let log = world.log.snapshot
        for (index, op) in model.ops.enumerated() {
            let entry = log.entries[index]
            if op.started != nil && entry.starts.isEmpty { return "op\(index)'s body did not start" }
            guard op.phase == .finished else { continue }
            if let real = world.ops[index], !real.isFinished { return "op\(index) did not finish" }
            if op.started != nil && entry.ends.isEmpty { return "op\(index)'s body did not end" }
            if op.spec.completion && entry.completions.isEmpty { return "op\(index)'s completion block did not run" }
            if op.started != nil, let extra = entry.extras.firstIndex(of: 0) {
                return "op\(index)'s execution block \(extra + 1) did not run"
            }
        }
        for (index, waiter) in model.waiters.enumerated() where waiter.returned != nil && log.waiters[index] == nil {
            return "waiter \(index) (for \(waiter.targets.map { "op\($0)" }.joined(separator: ", "))) did not return"
        }
        return nil
    }

    /// What started, finished or returned while the model holds it back, or nil.
    private static func heldBack<L: OperationLayer>(_ world: OperationWorld<L>, _ model: OperationModel) -> ScenarioDisagreement? {
        let log = world.log.snapshot
        for (index, op) in model.ops.enumerated() {
            let entry = log.entries[index]
            if op.started == nil && !entry.starts.isEmpty {
                return .init(.ranWhileHeld, "op\(index)'s body started, while the model holds it: \(model.why(index))")
            }
            if op.phase != .finished && !op.uncertain, let real = world.ops[index], real.isFinished {
                return .init(.wrongState, "op\(index) reports isFinished, while the model has it \(model.why(index))")
            }
        }
        for (index, waiter) in model.waiters.enumerated() where waiter.mayReturnFrom == nil && log.waiters[index] != nil {
            let pending = waiter.targets + (waiter.queue.map { model.unfinished($0, barriers: true) } ?? [])
            let unfinished = pending.first { model.ops[$0].phase != .finished }.map { "op\($0)" } ?? "?"
            return .init(.early, "waiter \(index) returned while \(unfinished) is unfinished")
        }
        return nil
    }

    // MARK: - At the end

    private static func finalCheck(_ log: OperationLog, _ model: OperationModel) -> ScenarioDisagreement? {
        for (index, op) in model.ops.enumerated() {
            let entry = log.entries[index]
            let name = "op\(index)"
            if entry.stranded { return .init(.missing, "\(name)'s body was never released") }
            if entry.starts.count > 1 { return .init(.extra, "\(name)'s body ran \(entry.starts.count) times") }
            if let step = op.started, entry.starts.first?.step != step {
                return .init(.reordered, "\(name)'s body started in \(entry.starts.first!), the model says step \(step)")
            }
            if op.started != nil {
                // A barrier block's `current` is not checked: the reference (swift-corelibs-foundation) answers nil in
                // it, where its queue would be the operation queue's answer (seen from `arena explore`, seed op:1).
                let expected = op.queue.map { "q\($0)" } ?? "nil"
                if op.spec.kind != .barrier && entry.current != expected {
                    return .init(.wrongPlace, "\(name)'s body saw OperationQueue.current \(entry.current ?? "?"), not \(expected)")
                }
                if entry.sawCancelled != op.seesCancelled {
                    return .init(
                        .wrongValue,
                        "\(name)'s body read isCancelled \(entry.sawCancelled.map(String.init) ?? "?"), the model \(op.seesCancelled)")
                }
            }
            let runs = op.started == nil ? 0 : 1
            if let extra = entry.extras.firstIndex(where: { $0 != runs }) {
                return .init(.notOnce, "\(name)'s execution block \(extra + 1) ran \(entry.extras[extra]) times, not \(runs)")
            }
            if entry.completions.count != (op.spec.completion ? 1 : 0) {
                return .init(.notOnce, "\(name)'s completion block ran \(entry.completions.count) times")
            }
            if let completion = entry.completions.first {
                if let end = entry.ends.first, completion.sequence < end.sequence {
                    return .init(.early, "\(name)'s completion block ran before its body ended")
                }
                if let earliest = op.earliestFinish, completion.step < earliest {
                    return .init(.early, "\(name)'s completion block ran in \(completion), before the model finishes it (step \(earliest))")
                }
            }
            if let start = entry.starts.first {
                for dependency in op.after {
                    guard let end = log.entries[dependency].ends.first, end.sequence < start.sequence else {
                        let what = model.ops[dependency].spec.kind == .barrier || op.spec.kind == .barrier ? "barrier order" : "dependency"
                        return .init(.reordered, "\(name)'s body started before op\(dependency)'s ended (\(what))")
                    }
                }
            }
        }
        for (first, then, step) in model.startsBefore {
            guard let a = log.entries[first].starts.first, let b = log.entries[then].starts.first, a.sequence < b.sequence else {
                return .init(
                    .reordered,
                    "in step \(step), op\(then) started before op\(first) on a queue one wide (priority \(model.ops[first].priority) and added earlier, or higher)"
                )
            }
        }
        for (index, waiter) in model.waiters.enumerated() {
            guard let returned = log.waiters[index] else { continue }
            if returned.timedOut { return .init(.missing, "waiter \(index)'s wait timed out") }
            if let step = waiter.returned, let earliest = waiter.mayReturnFrom, !(earliest...step).contains(returned.stamp.step) {
                let when = earliest == step ? "step \(step)" : "steps \(earliest) to \(step)"
                return .init(.reordered, "waiter \(index) returned in \(returned.stamp), the model says \(when)")
            }
        }
        return nil
    }
}

extension OperationModel {
    /// Makes `call` the next step: begins it, applies the call, settles. Returns what the call must observe (`.some`
    /// of nil for nothing), or nil, leaving the model as it was, when the model refuses the call or the step would
    /// be ambiguous.
    mutating func take(_ call: any OperationCall) -> String?? {
        var next = self
        next.begin()
        let expected: String?
        do { expected = try call.apply(to: &next) } catch { return nil }
        next.settle()
        guard next.ambiguous == nil else { return nil }
        self = next
        return .some(expected)
    }

    /// Why `op` has not started or finished, in words.
    func why(_ op: Int) -> String {
        let read = ops[op]
        if read.phase == .running { return "running, held" }
        guard let queue = read.queue else { return "on no queue" }
        if read.phase == .finished { return "finished" }
        if queues[queue].suspended { return "waiting: q\(queue) is suspended" }
        if let dependency = read.dependencies.first(where: { ops[$0].phase != .finished }), !read.cancelled {
            return "waiting for op\(dependency), a dependency"
        }
        if let barrier = read.implicit.first(where: { ops[$0].phase != .finished }) {
            return "waiting for op\(barrier) (\(read.spec.kind == .barrier ? "the barrier waits for it" : "a barrier"))"
        }
        let running = queues[queue].members.filter { ops[$0].phase == .running }
        return "waiting: q\(queue) is full (width \(queues[queue].width), running \(running.map { "op\($0)" }.joined(separator: ", ")))"
    }
}
