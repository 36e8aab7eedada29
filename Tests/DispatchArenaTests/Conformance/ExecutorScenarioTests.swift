import ArenaContract
import Contenders
import Foundation
import Testing

@testable import Conformance

extension ArenaTests {
    /// The generated executor programs of `arena explore` (`ExecutorProgram`): the generator, what each place decides,
    /// the run on each layer, the reach, and the command.
    @Suite
    struct ExecutorScenarioTests {
        static let generator = ExecutorGenerator(features: .init())

        @Test("a seed makes the same program every time, and seeds make different programs")
        func seedsReplay() {
            var seen: Set<String> = []
            for seed in UInt64(0)..<300 {
                let program = Self.generator.program(seed: seed)
                #expect(program.description == Self.generator.program(seed: seed).description)
                #expect((1...3).contains(program.executors) && (2...6).contains(program.steps.count))
                seen.insert(program.description)
            }
            #expect(seen.count > 250, "only \(seen.count) distinct programs from 300 seeds")
            #expect(ExecutorGenerator(features: .init(serialExecutors: false, colocated: false)).program(seed: 7).executors == 0)
        }

        @Test("the place decides every answer: isolation and co-located isCurrent only on its own queue, the pool's only in its tasks")
        func places() {
            #expect(
                ExecutorPlace.queue(1).expected(executors: 2, colocated: true, poolIsDefault: false)
                    == "e0 isolating false, co-located current false; e1 isolating true, co-located current true; specific e1; pool current false"
            )
            #expect(
                ExecutorPlace.pool.expected(executors: 1, colocated: false, poolIsDefault: false)
                    == "e0 isolating false; specific none; pool current true")
            #expect(
                ExecutorPlace.global.expected(executors: 0, colocated: false, poolIsDefault: false) == "specific none; pool current false")
            #expect(ExecutorPlace.script.expected(executors: 0, colocated: false, poolIsDefault: true) == "specific none; pool current ?")
        }

        @Test("generated programs agree with the model on each kind of layer, in this process", arguments: ["system", "mutex", "swift"])
        func layersAgree(_ name: String) {
            func run<E: Engine>(_ engine: E) -> [String] {
                let generator = ExecutorGenerator(features: .init(engine.capabilities))
                return (UInt64(1000)..<1040).compactMap { seed in
                    ExecutorRun.run(generator.program(seed: seed), on: engine, features: generator.features, timeout: .seconds(10))
                        .map { "seed \(seed): \($0)" }
                }
            }
            let failures =
                switch name {
                case "system": run(SystemEngine())
                case "mutex": run(MutexEngine())
                default: run(SwiftDefaultEngine())
                }
            #expect(failures.isEmpty, "\(failures)")
        }

        @Test("over the default budget the programs enter every context from every context they can")
        func reach() {
            for features in [
                ExecutorGenerator.Features(), .init(serialExecutors: true, colocated: false),
                .init(serialExecutors: false, colocated: false),
            ] {
                let reach = ExecutorReach(ExecutorGenerator(features: features), from: 1, count: ScenarioGenerator.defaultBudget)
                #expect(reach.reached.count == reach.possible.count, "\(features): \(Set(reach.possible).subtracting(reach.reached))")
            }
        }

        @Test("explore finds an executor mutant's fault, shrinks it, and the token replays it; the system engine agrees")
        func findsAndReplays() throws {
            let run = try ArenaExecutable.run(["explore", "--engine", "mutant-isolationOnAnyExecutor", "--seed", "1", "--budget", "50"])
            #expect(run.status == 1 && run.output.contains("(executors)  program"), "\(run.output)\(run.errors)")
            let line = run.output.split(separator: "\n").first { $0.contains("replay:") && $0.contains("ex:") }
            let token = try #require(line?.split(separator: " ").drop { $0 != "--replay" }.dropFirst().first.map(String.init))
            #expect(token.hasPrefix("ex:"), "\(run.output)")
            let replay = try ArenaExecutable.run([
                "explore", "--engine", "mutant-isolationOnAnyExecutor", "--replay", token, "--repeat", "5",
            ])
            #expect(replay.status == 1 && replay.output.contains("disagrees in run"), "\(replay.output)\(replay.errors)")
            let reference = try ArenaExecutable.run(["explore", "--engine", "system", "--replay", token, "--repeat", "3"])
            #expect(reference.status == 0, "\(reference.output)\(reference.errors)")
        }
    }
}
