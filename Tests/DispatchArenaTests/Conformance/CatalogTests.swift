import Bench
import Conformance
import Contenders
import Testing

extension ArenaTests {
    /// The whole catalog on every registered engine, each rule in a child process of its own.
    @Suite
    struct CatalogTests {
        @Test("behaviour rule", arguments: TestEngines.catalogEngines, TestEngines.behaviourRules)
        func behaviour(engine: String, rule: String) async throws {
            let result = try #require(await runIsolated(ChildRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))))
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("operation rule, on every contender's operation layer", arguments: TestEngines.layerEngines, TestEngines.operationRules)
        func operation(engine: String, rule: String) async throws {
            let result = try #require(await runIsolated(ChildRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))))
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("main-loop rule, in an arena child process", arguments: TestEngines.catalogEngines, TestEngines.mainLoopRules)
        func mainLoop(engine: String, rule: String) async throws {
            let contender = try #require(Contender.builtIn.first { $0.name == engine })
            let runner = ConformanceRunner(timeout: .seconds(10), launcher: ArenaChildLauncher())
            let result = await runner.run(try #require(Catalog.builtIn.rule(id: rule)), on: contender.engine)
            #expect(!result.status.isFailure, "\(engine) \(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("misuse is diagnosed", arguments: TestEngines.catalogEngines, TestEngines.misuseRules)
        func misuse(engine: String, rule: String) async throws {
            let (status, detail) = try #require(await runMisuse(engine: engine, rule: rule, expecting: .failure))
            #expect(status == .pass, "\(engine) \(rule): \(detail)")
        }
    }
}
