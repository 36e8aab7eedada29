import ArenaContract
import Conformance
import Contenders
import FoundationContender
import Mutants
import Testing

/// Layer contenders of the tests' own (`LayerContender`), by name, for the rule children (`TestEngines.named`).
enum LayerContenders {
    /// An engine's default executor layer brought alone, its GCD the system engine's: the layer tells the contender
    /// where its specific values are (`SpecificValueLayer`), since its serial executors are queues of its own engine,
    /// not of the lender.
    struct BorrowedExecutors<E: Engine>: SpecificValueLayer {
        let engine: E
        func makeActorExecutor(label: String) -> E.Executors.ActorExecutor? { engine.executors.makeActorExecutor(label: label) }
        var poolExecutor: E.Executors.PoolExecutor { engine.executors.poolExecutor }
        func currentSpecific<Value>(_ key: SpecificKey<Value>) -> Value? { engine.currentSpecific(key) }
    }

    /// The same layer without `SpecificValueLayer`: the contender's `currentSpecific` is then the lender's alone.
    struct SilentExecutors<E: Engine>: ExecutorLayer {
        let engine: E
        func makeActorExecutor(label: String) -> E.Executors.ActorExecutor? { engine.executors.makeActorExecutor(label: label) }
        var poolExecutor: E.Executors.PoolExecutor { engine.executors.poolExecutor }
    }

    static let mutex = MutexEngine()
    static let executors = LayerContender(
        name: "layer-executors", summary: "mutex's executors alone", executors: BorrowedExecutors(engine: mutex))
    static let silent = LayerContender(
        name: "layer-silent", summary: "mutex's executors, unhooked", executors: SilentExecutors(engine: mutex))
    static let operations = LayerContender(
        name: "layer-operations", summary: "mutex's operation queues alone", operations: mutex.operations)
    /// mutex's operation layer with a faulty ready list (`TurnedReadyOrderList`, a mutant).
    static let turnedReadyOrder = LayerContender(
        name: "mutant-turned-ready-order", summary: "ready lists in the order operations turned ready",
        operations: EngineOperations(mutex, readyList: TurnedReadyOrderList.self))

    static func engine(named name: String) -> (any Engine)? {
        let all: [any Engine] = [executors, silent, operations, turnedReadyOrder]
        return all.first { $0.name == name }
    }
}

extension ArenaTests {
    /// The path of an outside executor or operation queue that brings only its layer (docs/EXTENDING.md, "Bring only
    /// what you have"): the limits follow from the layers brought, the rules of those layers run, and the values an
    /// executor layer of its own keeps are what the contender's `currentSpecific` answers.
    @Suite struct LayerContenderTests {
        @Test("the limits follow from the layers brought; the author's limits add to them and may reword them")
        func derivedLimits() {
            let executorsOnly = LayerContender(
                name: "e", summary: "", executors: SwiftDefaultExecutors(), limits: [.serialExecutors: "none to make"]
            ).profile
            // Swift's default executors make no task executor beside an actor's: that is derived too.
            #expect(Set(executorsOnly.limits.keys) == [.dispatchObjects, .operationQueues, .serialExecutors, .colocatedExecutors])
            #expect(executorsOnly.has([.executors]) && !executorsOnly.has([.serialExecutors]))
            #expect(executorsOnly.missing([.descriptorSources])?.capability == .dispatchObjects)
            #expect(executorsOnly.limits[.dispatchObjects]?.hasPrefix("e brings an executor layer of its own;") == true)

            let operationsOnly = LayerContender(name: "o", summary: "", operations: LayerContenders.mutex.operations).profile
            #expect(Set(operationsOnly.limits.keys) == [.dispatchObjects, .executors])
            #expect(operationsOnly.has([.operationQueues, .removeDependency]) && !operationsOnly.has([.serialExecutors]))

            let both = LayerContender(
                name: "b", summary: "", operations: LayerContenders.mutex.operations, executors: SwiftDefaultExecutors(),
                limits: [.dispatchObjects: "its own words"]
            ).profile
            #expect(both.limits[.dispatchObjects] == "its own words")
            #expect(Set(both.limits.keys) == [.dispatchObjects, .colocatedExecutors])

            // An engine's default layer brought alone has co-located task executors (EngineColocatedExecutor).
            let withColocated = LayerContender(name: "c", summary: "", executors: LayerContenders.mutex.executors).profile
            #expect(Set(withColocated.limits.keys) == [.dispatchObjects, .operationQueues])
            #expect(withColocated.has([.serialExecutors, .colocatedExecutors]))
            #expect(both.has([.operationQueues, .executors]))
        }

        @Test("swift and foundation are layer contenders: each lacks the GCD and the layer it does not bring")
        func builtInLayerContenders() {
            #expect(
                Set(SwiftDefaultEngine().limits.keys) == [.dispatchObjects, .operationQueues, .serialExecutors, .colocatedExecutors])
            #expect(Set(FoundationEngine().limits.keys) == [.dispatchObjects, .executors, .removeDependency, .cancelAroundBarriers])
        }

        /// Every executor rule that does not need a child's death passes on an engine's executor layer brought alone;
        /// one needing what the layer lacks (co-located task executors: it leaves `colocatedExecutor(for:)` to its
        /// default) is unsupported.
        @Test(
            "an executor layer brought alone passes the executor rules, those it has what they need for",
            arguments: TestEngines.executorRules.filter { !(Catalog.builtIn.rule(id: $0)?.isMisuse ?? true) })
        func executorRules(rule: String) async throws {
            let request = RuleRequest(engine: "layer-executors", rule: rule, repeats: 1, timeout: .seconds(10))
            let result = try #require(await runIsolated(request))
            let needs = try #require(Catalog.builtIn.rule(id: rule)).needs
            let expected: Status = LayerContenders.executors.profile.has(needs) ? .pass : .unsupported
            #expect(result.status == expected, "\(rule): \(result.status.rawValue): \(result.detail)")
        }

        @Test("without SpecificValueLayer, the values set on the layer's serial executors are invisible: actor-on-queue fails")
        func unhookedLayerFails() async throws {
            let request = RuleRequest(engine: "layer-silent", rule: "executor.actor-on-queue", repeats: 1, timeout: .seconds(10))
            let result = try #require(await runIsolated(request))
            #expect(
                result.status == .fail && result.detail.contains("the queue's specific value read nil"),
                "\(result.status.rawValue): \(result.detail)")
        }

        @Test("an operation layer brought alone passes an operation rule, and the executor rules are not its")
        func operationLayer() async throws {
            let request = RuleRequest(engine: "layer-operations", rule: "op.dependency", repeats: 1, timeout: .seconds(10))
            let result = try #require(await runIsolated(request))
            #expect(result.status == .pass, "\(result.status.rawValue): \(result.detail)")
            let executor = try #require(Catalog.builtIn.rule(id: "executor.serial-fifo"))
            #expect(!LayerContenders.operations.profile.has([executor.layer]))
        }
    }
}
