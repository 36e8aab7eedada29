import ArenaContract
import Conformance
import Contenders
import CoreBoundAdmission
import Foundation
import Harness
import PriorityBuckets
import Testing
import ThreadExecutors

/// The layer contenders of docs/EXTENDING.md, each with its GCD borrowed from the system engine: an executor layer
/// brought alone (`threads`), and the default layers with one piece replaced: the operation layer's ready list
/// (`buckets`) or admission (`core-bound`), the executor layer's serial executors (`thread-actors`) or pool
/// (`thread-pool`).
enum LayerContenders {
    static let threads = LayerContender(name: "threads", summary: "A thread per actor, four for tasks.", executors: ThreadExecutors())
    static let buckets = LayerContender(
        name: "buckets", summary: "The default operation layer, its ready lists five FIFO lines by priority.",
        operations: EngineOperations(SystemEngine(), readyList: PriorityBuckets.self))
    static let coreBound = LayerContender(
        name: "core-bound", summary: "The default operation layer, its default width twice the cores.",
        operations: EngineOperations(SystemEngine(), admission: CoreBoundAdmission.self))
    static let threadActors = LayerContender(
        name: "thread-actors", summary: "The default executor layer, a thread per actor.", executors: ThreadActors(engine: SystemEngine()))
    static let threadPool = LayerContender(
        name: "thread-pool", summary: "The default executor layer, four threads for tasks.", executors: ThreadPool(engine: SystemEngine()))

    static func engine(named name: String) -> (any Engine)? {
        let all: [any Engine] = [threads, buckets, coreBound, threadActors, threadPool]
        return all.first { $0.name == name }
    }

    /// The catalog's rules of `layer` that run without the main loop.
    static func rules(of layer: Capability) -> [String] {
        Catalog.builtIn.rules.filter { $0.layer == layer && !$0.needsMainLoop }.map(\.id)
    }
}

/// The layer contenders conform: every rule of the layer each brings passes, each in a child process of its own (a
/// Swift Testing exit test, as `arena conform` runs a rule in a child), and the code docs/EXTENDING.md shows is the
/// code compiled here.
@Suite struct LayerContenderTests {
    @Test(
        "threads (an executor layer alone), thread-actors and thread-pool (the default executor layer with its serial executors or its pool replaced) pass every executor rule they have what they need for",
        arguments: ["threads", "thread-actors", "thread-pool"], LayerContenders.rules(of: .executors))
    func executorLayers(engine: String, rule: String) async throws {
        try await expectPass(engine, rule)
    }

    @Test(
        "buckets and core-bound, a ready list or an admission of their own in the default operation layer, pass every operation rule",
        arguments: ["buckets", "core-bound"], LayerContenders.rules(of: .operationQueues))
    func operationLayers(engine: String, rule: String) async throws {
        try await expectPass(engine, rule)
    }

    @Test("docs/EXTENDING.md shows the layers and the pieces as they are compiled here")
    func documented() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let guide = try String(contentsOf: package.appendingPathComponent("../../docs/EXTENDING.md"), encoding: .utf8)
        for path in [
            "Sources/ThreadExecutors/ThreadExecutors.swift", "Sources/PriorityBuckets/PriorityBuckets.swift",
            "Sources/CoreBoundAdmission/CoreBoundAdmission.swift", "Sources/ThreadExecutors/ThreadActors.swift",
            "Sources/ThreadExecutors/ThreadPool.swift",
        ] {
            let source = try String(contentsOf: package.appendingPathComponent(path), encoding: .utf8)
            #expect(
                guide.contains("```swift\n// \(path)\n\(source)```"),
                "docs/EXTENDING.md has no block '// \(path)' holding the file as it is")
        }
    }

    private func expectPass(_ engine: String, _ id: String) async throws {
        let rule = try #require(Catalog.builtIn.rule(id: id))
        let request = RuleRequest(engine: engine, rule: id, repeats: 1, timeout: .seconds(10))
        let start = Deadline.now()
        // A misuse rule's child must die naming the object; any other child reports its result and exits 0.
        let result = await #expect(
            processExitsWith: rule.isMisuse ? .failure : .success, observing: [\.standardOutputContent, \.standardErrorContent]
        ) {
            [request = request as RuleRequest] in
            await ConformanceChild.main(
                request, engine: LayerContenders.engine(named: request.engine)!, rule: Catalog.builtIn.rule(id: request.rule)!)
        }
        let child = try #require(result).outcome
        if let misuse = rule.misuse {
            let verdict = MisuseVerdict.judge(child, rule: misuse)
            #expect(verdict.status == .pass, "\(engine) \(id): \(verdict.detail)")
        } else {
            let outcome = ConformanceChild.result(of: child, for: request, seconds: (Deadline.now() - start).seconds)
            // A rule needing what the layer lacks (threads makes no co-located task executors) is unsupported.
            let profile = try #require(LayerContenders.engine(named: engine)).profile
            let expected: Status = profile.has(rule.needs) ? .pass : .unsupported
            #expect(outcome.status == expected, "\(engine) \(id): \(outcome.status.rawValue): \(outcome.detail)")
        }
    }
}

extension ExitTest.Result {
    /// How the child ended, in the terms the conformance child and `MisuseVerdict` read.
    var outcome: ChildOutcome {
        let termination: ChildTermination =
            switch exitStatus {
            case .exitCode(let code): .exited(code)
            case .signal(let signal): .signalled(signal)
            @unknown default: .exited(-1)
            }
        return ChildOutcome(
            termination: termination, standardOutput: String(decoding: standardOutputContent, as: UTF8.self),
            standardError: String(decoding: standardErrorContent, as: UTF8.self))
    }
}
