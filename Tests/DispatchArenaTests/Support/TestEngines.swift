import ArenaCLI
import ArenaContract
import Bench
import Conformance
import Contenders
import Glibc
import Harness
import Mutants
import Reporting
import Testing

/// Every engine a test can name: the registered ones, the mutants and the tests' layer contenders.
enum TestEngines {
    static func named(_ name: String) -> (any Engine)? {
        Contender.builtIn.first { $0.name == name }?.engine ?? Mutants.engine(named: name) ?? LayerContenders.engine(named: name)
    }

    /// The registered engines the catalog tests run on: all of them, or those named in `ARENA_ENGINES`
    /// (comma-separated), so that a sanitizer run can look at one engine. The suites about one engine's insides (the
    /// pools, the lock-free structures, the actor engine's async waits) follow it too.
    static let catalogEngines: [String] = engines(having: .dispatchObjects)

    /// The registered contenders the operation-queue rules run on: the engines' layers and `foundation`, the
    /// reference (which has no GCD objects of its own, so the GCD suites leave it out).
    static let operationEngines: [String] = engines(having: .operationQueues)

    /// The registered contenders the executor rules run on: the engines' layers and `swift`, Swift's default
    /// executors (the reference for tasks, with no GCD objects and no serial executors of its own).
    static let executorEngines: [String] = engines(having: .executors)

    /// The registered contenders with the layer `layer` of their own.
    static func engines(having layer: Capability) -> [String] { layerEngines.filter { named($0)?.profile.has([layer]) ?? false } }

    /// Whether `engine` lacks a capability `rule` requires, so that the runner reports the rule unsupported there.
    static func lacks(_ engine: String, _ rule: Rule) -> Bool {
        named(engine)?.profile.missing(rule.requirements) != nil
    }

    /// Every registered contender, or those named in `ARENA_ENGINES`.
    static let layerEngines: [String] = {
        guard let chosen = getenv("ARENA_ENGINES").map({ String(cString: $0) }), !chosen.isEmpty else {
            return Contender.builtIn.map(\.name)
        }
        let names = chosen.split(separator: ",").map(String.init)
        return Contender.builtIn.map(\.name).filter(names.contains)
    }()

    /// A rule of the catalog, or one of the tests' own probes (`HappensBefore`).
    static func rule(id: String) -> Rule? { Catalog.builtIn.rule(id: id) ?? HappensBefore.rule(id: id) }

    /// Ids of the catalog's behaviour rules and misuse rules that an exit test can host, and of the rules that need
    /// the main loop (run through `ArenaChildLauncher` on the registered engines).
    static let behaviourRules = Catalog.builtIn.rules.filter { !$0.isMisuse && !$0.needsMainLoop && $0.layer == .dispatchObjects }.map(\.id)
    /// Ids of the operation-queue rules, which run on every contender's operation layer.
    static let operationRules = Catalog.builtIn.rules.filter { !$0.isMisuse && !$0.needsMainLoop && $0.layer == .operationQueues }.map(\.id)
    /// Ids of the executor rules, which run on every contender's executor layer: the behaviour ones, and the misuse
    /// ones (which need serial executors).
    static let executorRules = Catalog.builtIn.rules.filter { !$0.isMisuse && $0.layer == .executors && !$0.isGlobalExecutorRule }.map(\.id)
    /// Ids of the global-executor rules, which run in `arena` child processes with each contender installed as Swift's
    /// global executor.
    static let globalExecutorRules = Catalog.builtIn.rules.filter(\.isGlobalExecutorRule).map(\.id)
    static let executorMisuseRules = Catalog.builtIn.rules.filter { $0.isMisuse && $0.layer == .executors }.map(\.id)
    static let misuseRules = Catalog.builtIn.rules.filter { $0.isMisuse && !$0.needsMainLoop && $0.layer == .dispatchObjects }.map(\.id)
    static let mainLoopRules = Catalog.builtIn.rules.filter { $0.needsMainLoop && !$0.isGlobalExecutorRule }.map(\.id)
}

extension ChildOutcome {
    /// The outcome of a Swift Testing exit test, in the terms `MisuseVerdict` judges.
    init(_ result: ExitTest.Result) {
        let termination: ChildTermination =
            switch result.exitStatus {
            case .exitCode(let code): .exited(code)
            case .signal(let signal): .signalled(signal)
            @unknown default: .exited(-1)
            }
        self.init(
            termination: termination,
            standardOutput: String(decoding: result.standardOutputContent, as: UTF8.self),
            standardError: String(decoding: result.standardErrorContent, as: UTF8.self))
    }
}

/// Runs a behaviour rule in a child process of its own (a Swift Testing exit test), as `arena conform` does, and
/// returns what the child reported: a deadlocked engine keeps its stuck threads in the child.
func runIsolated(_ request: RuleRequest) async -> RuleResult? {
    _ = sanitizerKeepsExitCode
    let start = Deadline.now()
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]) {
        [request = request as RuleRequest] in
        await ConformanceChild.main(request, engine: TestEngines.named(request.engine)!, rule: TestEngines.rule(id: request.rule)!)
    }
    return result.map { ConformanceChild.result(of: ChildOutcome($0), for: request, seconds: (Deadline.now() - start).seconds) }
}

/// Under `swift test --sanitize=thread` or `--sanitize=address`, a child that saw a race or a memory error would exit
/// 66 or 1, and the failed exit test would drop its output. With `exitcode=0` the child exits as usual and
/// `ConformanceChild.outcomes` finds the report on its standard error and fails the run with the report's text.
/// `atexit_sleep_ms=0`: TSan otherwise sleeps a second in every exiting process, to catch races with threads still
/// running at exit; a child ends with `_exit` and abandoned threads on purpose, and the second made a TSan run of
/// the catalog 80 s per engine instead of 15. Set once, before the first child starts; the parent read its own
/// options at startup and keeps them, so a report in the test process itself still fails `swift test`. Harmless
/// without a sanitizer.
let sanitizerKeepsExitCode: Void = {
    for (variable, added) in [("TSAN_OPTIONS", "exitcode=0:atexit_sleep_ms=0"), ("ASAN_OPTIONS", "exitcode=0")] {
        let options = getenv(variable).map { String(cString: $0) + ":" } ?? ""
        setenv(variable, options + added, 1)
    }
}()

/// Runs a misuse rule's trigger in a child process and judges how the child ended.
func runMisuse(engine: String, rule: String, expecting exit: ExitTest.Condition) async -> RunOutcome? {
    let request = RuleRequest(engine: engine, rule: rule, repeats: 1, timeout: .seconds(10))
    let result = await #expect(processExitsWith: exit, observing: [\.standardErrorContent]) { [request = request as RuleRequest] in
        await ConformanceChild.main(request, engine: TestEngines.named(request.engine)!, rule: Catalog.builtIn.rule(id: request.rule)!)
    }
    guard let result, let misuse = Catalog.builtIn.rule(id: rule)?.misuse else { return nil }
    return MisuseVerdict.judge(ChildOutcome(result), rule: misuse)
}

extension Rule {
    /// Whether the rule installs a global executor (`GlobalExecutorRule`): it runs only in an `arena` child process.
    var isGlobalExecutorRule: Bool { type is any GlobalExecutorRule.Type }
}
