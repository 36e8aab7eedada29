import ArenaContract
import Contenders
import Foundation
import FoundationContender
import Testing

@testable import Conformance

extension ArenaTests {
    /// The generated operation-queue programs of `arena explore` (`OperationProgram`): the generator, the model, the run
    /// on each layer, and the command.
    @Suite
    struct OperationScenarioTests {
        static let generator = OperationGenerator(features: .init())

        @Test("a seed makes the same program every time, every call of it one the model takes, and seeds make different programs")
        func seedsReplay() {
            var seen: Set<String> = []
            for seed in UInt64(0)..<300 {
                let program = Self.generator.program(seed: seed)
                #expect(program.description == Self.generator.program(seed: seed).description)
                #expect(
                    OperationRun.accepted(program, features: Self.generator.features).count == program.calls.count,
                    "seed \(seed) made calls the model refuses")
                #expect(!program.calls.isEmpty && program.calls.count <= 24)
                seen.insert(program.description)
            }
            #expect(seen.count > 290, "only \(seen.count) distinct programs from 300 seeds")
        }

        @Test("a token names its layer: op:SEED[@I,J] for an operation-queue program; calls past the program are an error")
        func tokens() throws {
            let token = try ScenarioToken(parsing: "op:42@0,3")
            #expect(token == ScenarioToken(.operations, seed: 42, kept: [0, 3]) && token.description == "op:42@0,3")
            #expect(try ScenarioToken(parsing: "42").layer == .dispatch)
            #expect(throws: ScenarioTokenError.self) { try ScenarioToken(parsing: "op:x") }
            #expect(throws: ScenarioTokenError.self) { try ScenarioToken(parsing: "op:42@99").program(Self.generator) }
            #expect(try ScenarioToken(parsing: "op:42@0,3").program(Self.generator).calls.count <= 2)
        }

        /// A program of `ops` (normal priority, block operations unless given) on `queues`, with `calls`.
        static func program(_ queues: [OperationProgram.QueueSpec], _ ops: [OperationProgram.Op], _ calls: [any OperationCall])
            -> OperationProgram
        {
            OperationProgram(queues: queues, ops: ops, calls: calls)
        }

        static func op(held: Bool = false, _ priority: OperationPriority = .normal) -> OperationProgram.Op {
            .init(kind: .block, held: held, priority: priority, completion: true, extraBlocks: 0)
        }

        /// The model after every call of `program`, each of which it must take.
        static func model(_ program: OperationProgram) -> OperationModel {
            var model = OperationModel(program, features: .init())
            for call in program.calls { #expect(model.take(call) != nil, "the model refused \(call)") }
            return model
        }

        @Test("a queue one wide starts what waited in order of priority, then of addition, all in the step that resumes it")
        func priorityOrder() {
            let serial = OperationProgram.QueueSpec(width: 1, suspended: true, pinned: false)
            let program = Self.program(
                [serial], [Self.op(), Self.op(.high), Self.op()],
                [Add(op: 0, queue: 0), Add(op: 1, queue: 0), Add(op: 2, queue: 0), Resume(queue: 0)])
            let model = Self.model(program)
            #expect(model.ops.map(\.started) == [4, 4, 4] && model.ops.allSatisfy { $0.finished == 4 })
            #expect(Set(model.startsBefore.map { "\($0.first)<\($0.then)" }) == ["1<0", "1<2", "0<2"])
        }

        @Test("a barrier waits for what came before it and holds back what comes after; operationCount leaves it out")
        func barrier() {
            let wide = OperationProgram.QueueSpec(width: OperationProgram.unlimited, suspended: false, pinned: false)
            var model = OperationModel(Self.program([wide], [Self.op(held: true), Self.op()], []), features: .init())
            #expect(model.take(Add(op: 0, queue: 0)) != nil && model.ops[0].phase == .running)
            #expect(model.take(AddBarrier(queue: 0)) != nil && model.ops[2].spec.kind == .barrier && model.ops[2].started == nil)
            #expect(model.take(Add(op: 1, queue: 0)) != nil && model.ops[1].started == nil)
            #expect(model.take(ReadCount(queue: 0)) == .some("2"))
            #expect(model.take(Release(op: 0, inner: nil)) != nil)
            #expect(model.ops.map(\.finished) == [5, 5, 5] && model.ops[1].after == [2] && model.ops[2].after == [0])
        }

        @Test("a dependency added to an operation already waiting holds it back until the dependency finished")
        func lateDependency() {
            let serial = OperationProgram.QueueSpec(width: 1, suspended: true, pinned: false)
            var model = OperationModel(Self.program([serial], [Self.op(), Self.op()], []), features: .init())
            #expect(model.take(Add(op: 0, queue: 0)) != nil)
            #expect(model.take(AddDependency(op: 0, on: 1)) != nil)
            #expect(model.take(Resume(queue: 0)) != nil && model.ops[0].started == nil)
            #expect(model.why(0) == "waiting for op1, a dependency")
            #expect(model.take(AddDependency(op: 1, on: 0)) == nil, "a cycle")
            #expect(model.take(Add(op: 1, queue: 0)) != nil && model.ops[1].finished == 4 && model.ops[0].finished == 4)
        }

        @Test(
            "a cancelled operation waiting on a full queue may finish at once or when the queue gets to it; what depends on it is not made")
        func cancelledWindow() {
            let serial = OperationProgram.QueueSpec(width: 1, suspended: false, pinned: false)
            var model = OperationModel(Self.program([serial], [Self.op(held: true), Self.op(), Self.op()], []), features: .init())
            #expect(model.take(Add(op: 0, queue: 0)) != nil && model.take(Add(op: 1, queue: 0)) != nil)
            #expect(model.take(Cancel(op: 1)) != nil && model.ops[1].uncertain)
            #expect(model.take(ReadCount(queue: 0)) == nil, "the count is not the model's to tell")
            #expect(model.take(AddDependency(op: 2, on: 1)) == nil, "op2 would wait for a finish the model cannot place")
            #expect(model.take(Release(op: 0, inner: nil)) != nil && model.ops[1].finished == 4 && model.ops[1].earliestFinish == 3)
        }

        @Test("a layer without cancel-around-barriers is never asked to add a cancelled operation behind a waiting barrier")
        func foundationFeatures() {
            let features = OperationGenerator.Features(FoundationEngine().capabilities)
            #expect(!features.removeDependency && !features.cancelAroundBarriers && features.blockingInBlocks)
            let wide = OperationProgram.QueueSpec(width: 1, suspended: true, pinned: false)
            var model = OperationModel(Self.program([wide], [Self.op(), Self.op()], []), features: features)
            #expect(model.take(Add(op: 0, queue: 0)) != nil && model.take(AddBarrier(queue: 0)) != nil)
            #expect(model.take(Cancel(op: 1)) != nil && model.take(Add(op: 1, queue: 0)) == nil)
            #expect(model.take(CancelAll(queue: 0)) == nil)
        }

        @Test(
            "generated programs agree with the model on each kind of layer, in this process", arguments: ["system", "mutex", "foundation"])
        func layersAgree(_ name: String) {
            func run<E: Engine>(_ engine: E) -> [String] {
                let generator = OperationGenerator(features: .init(engine.capabilities))
                return (UInt64(1000)..<1040).compactMap { seed in
                    OperationRun.run(generator.program(seed: seed), on: engine, features: generator.features).map { "seed \(seed): \($0)" }
                }
            }
            let failures =
                switch name {
                case "system": run(SystemEngine())
                case "mutex": run(MutexEngine())
                default: run(FoundationEngine())
                }
            #expect(failures.isEmpty, "\(failures)")
        }

        @Test("over the default budget the programs make every call they can, from every place")
        func reach() {
            for features in [OperationGenerator.Features(), .init(FoundationEngine().capabilities), .init(blockingInBlocks: false)] {
                let reach = OperationReach(OperationGenerator(features: features), from: 1, count: ScenarioGenerator.defaultBudget)
                #expect(reach.reached.count == reach.possible.count, "\(features): \(Set(reach.possible).subtracting(reach.reached))")
            }
        }

        @Test("explore finds an operation-queue mutant's fault, shrinks it, and the token replays it; the reference agrees")
        func findsAndReplays() throws {
            let run = try ArenaExecutable.run(["explore", "--engine", "mutant-operationBarrierIgnored", "--seed", "1", "--budget", "100"])
            #expect(run.status == 1 && run.output.contains("(operation queues)  program"), "\(run.output)\(run.errors)")
            let line = run.output.split(separator: "\n").first { $0.contains("replay:") }
            let token = try #require(line?.split(separator: " ").drop { $0 != "--replay" }.dropFirst().first.map(String.init))
            #expect(token.hasPrefix("op:") && token.contains("@"), "not shrunk: \(run.output)")
            let replay = try ArenaExecutable.run([
                "explore", "--engine", "mutant-operationBarrierIgnored", "--replay", token, "--repeat", "5",
            ])
            #expect(replay.status == 1 && replay.output.contains("disagrees in run"), "\(replay.output)\(replay.errors)")
            let reference = try ArenaExecutable.run(["explore", "--engine", "foundation", "--replay", token, "--repeat", "3"])
            #expect(reference.status == 0, "\(reference.output)\(reference.errors)")
        }
    }
}
