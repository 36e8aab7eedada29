import ArenaContract
import Harness

/// Runs an `ExecutorProgram` on an engine's executor layer, in a detached task with no preference, and checks every
/// probe against what its place decides (`ExecutorPlace.expected`), every return from a nested context (the place
/// is the enclosing one's again), and that a task made inside an actor's job ran after that job ended. The first
/// disagreement, or nil.
public enum ExecutorRun {
    /// The first disagreement of one run of `program` on `engine`, within `timeout`.
    public static func run<E: Engine>(_ program: ExecutorProgram, on engine: E, features: ExecutorGenerator.Features, timeout: Duration)
        -> ScenarioDisagreement?
    {
        let world = ExecutorWorld(engine, program, features)
        guard let outcome = AsyncBridge.run(until: .now() + timeout, { await world.run() }) else {
            return .init(.missing, "the program's task did not end within \(timeout.seconds) s (a job lost, or never run)")
        }
        if case .success(let found) = outcome { return found }
        return .init(.unkeyed, "the program threw")
    }
}

/// An actor on one of the layer's serial executors, which runs steps isolated to itself.
actor ExecutorHost<Executor: LayerSerialExecutor> {
    let executor: Executor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(_ executor: Executor) { self.executor = executor }

    /// Runs `steps` isolated to this actor (the caller's await hops here, or, from this actor, runs on).
    func perform<E: Engine>(_ steps: [ExecutorProgram.Step], _ world: ExecutorWorld<E>, index: Int) async
    where E.Executors.ActorExecutor == Executor {
        await world.interpret(steps, at: .queue(index), isolation: self)
    }

    /// Makes two tasks isolated to this actor from inside a job of it, recording each as made before any
    /// suspension: their jobs are enqueued on the executor from the executor's own queue, and can run neither before
    /// this job gives the actor up nor out of the order they were made in (a serial executor is first in, first out).
    func startBehind<E: Engine>(_ world: ExecutorWorld<E>, _ index: Int) -> [Task<Void, Never>]
    where E.Executors.ActorExecutor == Executor {
        (0..<2).map { _ in
            let id = world.nextTask()
            let task = Task { self.started(world, id, index) }
            world.note(.made(id, index))
            return task
        }
    }

    private func started<E: Engine>(_ world: ExecutorWorld<E>, _ id: Int, _ index: Int) where E.Executors.ActorExecutor == Executor {
        world.note(.started(id, index))
    }
}

/// What a run records in order, for the tasks made inside a job: each made, each started (with its executor).
enum ExecutorEvent: Equatable, Sendable {
    case made(Int, Int)
    case started(Int, Int)
}

/// One run's objects: the serial executors with their actors and co-located executors, and what the run saw.
final class ExecutorWorld<E: Engine>: @unchecked Sendable {
    typealias Layer = E.Executors
    let engine: E
    let program: ExecutorProgram
    let features: ExecutorGenerator.Features
    let layer: Layer
    let executors: [Layer.ActorExecutor]
    let hosts: [ExecutorHost<Layer.ActorExecutor>]
    let colocated: [Layer.ColocatedExecutor?]
    private let key = SpecificKey<String>("arena.explore.executor")
    private let seen = Locked<(found: ScenarioDisagreement?, events: [ExecutorEvent], behind: [Task<Void, Never>], tasks: Int)>(
        (nil, [], [], 0))

    init(_ engine: E, _ program: ExecutorProgram, _ features: ExecutorGenerator.Features) {
        self.engine = engine
        self.program = program
        self.features = features
        layer = engine.executors
        executors = (0..<program.executors).compactMap { engine.executors.makeActorExecutor(label: "e\($0)") }
        for (index, executor) in executors.enumerated() { executor.setSpecific(key, "e\(index)") }
        hosts = executors.map(ExecutorHost.init)
        colocated = features.colocated ? executors.map { engine.executors.colocatedExecutor(for: $0) } : []
    }

    func note(_ event: ExecutorEvent) { seen.withLock { $0.events.append(event) } }

    /// A number for a task made inside a job.
    func nextTask() -> Int {
        seen.withLock { state in
            state.tasks += 1
            return state.tasks
        }
    }

    private func disagree(_ key: Outcome, _ detail: String) {
        seen.withLock { if $0.found == nil { $0.found = .init(key, detail) } }
    }

    /// The whole program from a detached task, then the order of the jobs made behind others.
    func run() async -> ScenarioDisagreement? {
        guard executors.count == program.executors else {
            return .init(.setup, "the layer made \(executors.count) of \(program.executors) serial executors")
        }
        await interpret(program.steps, at: .script, isolation: nil)
        for task in seen.withLock({ $0.behind }) { await task.value }
        let state = seen.snapshot
        if let found = state.found { return found }
        var last: [Int: Int] = [:]
        for (index, event) in state.events.enumerated() {
            guard case .started(let id, let executor) = event else { continue }
            if !state.events[..<index].contains(.made(id, executor)) {
                return .init(
                    .reordered, "a task made inside a job of the actor on e\(executor) ran before the job went on (inline, in its making)")
            }
            if let before = last[executor], before > id {
                return .init(.reordered, "tasks made inside jobs of the actor on e\(executor) ran out of the order they were made in")
            }
            last[executor] = id
        }
        return nil
    }

    /// What a probe reads where it runs; the pool's answer as "?" where the model leaves it open.
    private func probe(poolOpen: Bool) -> String {
        var parts: [String] = []
        for (index, executor) in executors.enumerated() {
            let colocatedPart = features.colocated ? ", co-located current \(colocated[index]?.isCurrent == true)" : ""
            parts.append("e\(index) isolating \(executor.isIsolatingCurrentContext() == true)" + colocatedPart)
        }
        parts.append("specific " + (engine.currentSpecific(key) ?? "none"))
        parts.append("pool current " + (poolOpen ? "?" : "\(layer.poolExecutor.isCurrent)"))
        return parts.joined(separator: "; ")
    }

    private func check(_ place: ExecutorPlace, _ where: String) {
        let expected = place.expected(executors: executors.count, colocated: features.colocated, poolIsDefault: layer.poolIsDefault)
        let read = probe(poolOpen: expected.hasSuffix("pool current ?"))
        if read != expected { disagree(.wrongPlace, "\(`where`): read \(read); the model expects \(expected)") }
    }

    /// Runs `steps` at `place`, isolated to `isolation` (an actor's job) or to nothing.
    func interpret(_ steps: [ExecutorProgram.Step], at place: ExecutorPlace, isolation: isolated (any Actor)?) async {
        for step in steps {
            switch step {
            case .probe: check(place, "a probe at \(place)")
            case .job(let index, let inner):
                await hosts[index].perform(inner, self, index: index)
                check(place, "back at \(place) from a job on e\(index)")
            case .pool(let inner):
                await withTaskExecutorPreference(layer.poolExecutor) { await self.interpret(inner, at: .pool, isolation: nil) }
                check(place, "back at \(place) from a task preferring the pool")
            case .colocated(let index, let inner):
                guard let executor = colocated[index] else { break }
                await withTaskExecutorPreference(executor) { await self.interpret(inner, at: .queue(index), isolation: nil) }
                check(place, "back at \(place) from a task preferring e\(index)'s co-located executor")
            case .block(let index, _):
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    executors[index].submit {
                        self.check(.queue(index), "a plain block on e\(index)'s queue")
                        done.resume()
                    }
                }
                check(place, "back at \(place) from a plain block on e\(index)'s queue")
            case .plain:
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    engine.globalQueue.async {
                        self.check(.global, "a plain block on the global queue")
                        done.resume()
                    }
                }
                check(place, "back at \(place) from a plain block on the global queue")
            case .behind:
                guard case .queue(let index) = place else { break }
                let tasks = await hosts[index].startBehind(self, index)
                seen.withLock { $0.behind += tasks }
            }
        }
    }
}
