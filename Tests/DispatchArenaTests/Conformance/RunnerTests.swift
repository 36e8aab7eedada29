import ArenaContract
import Conformance
import Contenders
import FoundationContender
import Harness
import Testing

/// A rule whose check never returns: the watchdog must turn it into `timeout`.
enum HangsForever: BehaviourRule {
    static let id = "test.hangs"
    static let title = "Never returns."
    static let source = "this test"
    static let forbidden: [Outcome] = [.missing]

    static func check<E: Engine>(_ engine: E) throws {
        let never = engine.makeSemaphore(value: 0)!
        _ = never.wait(until: .distantFuture)
    }
}

/// A rule that fails on its second run.
enum FailsSecondTime: BehaviourRule {
    static let id = "test.fails-second-time"
    static let title = "Fails on its second run."
    static let source = "this test"
    nonisolated(unsafe) static var runs = 0
    static let forbidden: [Outcome] = [.early]

    static func check<E: Engine>(_ engine: E) throws {
        runs += 1
        if runs == 2 { throw RuleFailure(.early, "second run") }
    }
}

enum NeedsRetarget: BehaviourRule {
    static let id = "test.needs-retarget"
    static let title = "Needs retargeting of active queues."
    static let source = "this test"
    static let needs: Set<Capability> = [.retargetActiveQueues]
    static let forbidden: [Outcome] = [.missing]

    static func check<E: Engine>(_ engine: E) throws { Issue.record("ran without the capability") }
}

/// An outside author's operation-queue rule, filed under a concept of their own: a dependent runs only after its
/// dependency finished.
enum OutsideDependencyRule: OperationRule {
    static let id = "outside.dependent-after-dependency"
    static let title = "A dependent operation starts only after its dependency finished."
    static let source = "this test"
    static let forbidden: [Outcome] = [.missing, .ranWhileHeld]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "test.outside-op")
        let finished = Locked(false)
        let sawFinished = Locked<Bool?>(nil)
        let done = Latch()
        let first = layer.makeBlockOperation(label: "first") {
            Threads.sleep(.milliseconds(20))
            finished.withLock { $0 = true }
        }
        let second = layer.makeBlockOperation(label: "second") {
            sawFinished.withLock { $0 = finished.snapshot }
            done.countDown()
        }
        second.addDependency(first)
        queue.addOperation(second)
        queue.addOperation(first)
        try expectOpens(done, "the dependent operation to run")
        try expect(sawFinished.snapshot == true, .ranWhileHeld, "the dependent ran before its dependency finished")
    }
}

/// An outside author's executor rule under a concept of their own: a task preferring the layer's task executor runs
/// on it.
enum OutsidePreferenceRule: ExecutorRule {
    static let id = "outside.preference-runs-on-pool"
    static let title = "A task with a preference for the layer's task executor runs on it."
    static let source = "this test"
    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) async throws {
        let pool = engine.executors.poolExecutor
        let onPool = await withTaskExecutorPreference(pool) { pool.isCurrent }
        try expect(onPool, .wrongPlace, "the task did not run on the layer's task executor")
    }
}

extension ArenaTests {
    @Suite
    struct RunnerTests {
        @Test(
            "an outside rule keeps the layer it checks, whatever concept it is filed under: an operation rule runs on foundation and every engine's layer, an executor rule on swift"
        )
        func outsideRulesKeepTheirLayer() async throws {
            let concept = Concept("outside", heading: "An outside author's rules")
            let operation = Rule(OutsideDependencyRule.self, concept: concept)
            let executor = Rule(OutsidePreferenceRule.self, concept: concept)
            #expect(operation.layer == .operationQueues && operation.referenceLayer == .operationQueues)
            #expect(executor.layer == .executors && executor.referenceLayer == .executors)
            #expect(TestEngines.operationEngines.contains("foundation") && TestEngines.operationEngines.count >= 2)
            for name in TestEngines.operationEngines {
                let engine = try #require(TestEngines.named(name))
                let result = await ConformanceRunner().run(operation, on: engine)
                #expect(result.status == .pass, "\(name): \(result.detail)")
            }
            for name in TestEngines.executorEngines {
                let engine = try #require(TestEngines.named(name))
                let result = await ConformanceRunner().run(executor, on: engine)
                #expect(result.status == .pass, "\(name): \(result.detail)")
            }
            // The parent decides from profiles alone: foundation keeps the operation rule and not the executor rule.
            let foundation = FoundationEngine().profile, swift = SwiftDefaultEngine().profile
            #expect(foundation.has([operation.layer]) && !foundation.has([executor.layer]))
            #expect(swift.has([executor.layer]) && !swift.has([operation.layer]))
            let skipped = ConformanceRunner(launcher: ReexecLauncher()).run(executor, on: foundation)
            #expect(skipped.status == .unsupported && skipped.detail.hasPrefix("needs executors"), "\(skipped.detail)")
        }

        @Test("a hanging check is a timeout, not a hang")
        func watchdog() {
            let result = ConformanceRunner(timeout: .milliseconds(200)).run(Rule(HangsForever.self, concept: .queues), on: SystemEngine())
            #expect(result.status == .timeout)
            #expect(result.seconds < 5)
        }

        @Test("every repeat runs, and the result counts passes and each distinct failure")
        func repeats() {
            FailsSecondTime.runs = 0
            let result = ConformanceRunner(repeats: 5).run(Rule(FailsSecondTime.self, concept: .queues), on: SystemEngine())
            #expect(result.status == .fail)
            #expect(result.repeats == 5 && result.passes == 4)
            #expect(result.failures == [RuleResult.Failure(status: .fail, outcome: .early, count: 1, example: "second run")])
            #expect(result.detail == "1 of 5 runs: early 1; early: second run")
        }

        @Test(
            "a histogram keyed by outcome: runs whose texts differ in their numbers count as one key, most frequent first, fail outranks timeout; one run's detail is its key and text"
        )
        func histogram() {
            let outcomes = [
                RunOutcome(.pass), RunOutcome(.timeout, "slow"), RunOutcome(.fail, "round 3: ran twice", outcome: .extra),
                RunOutcome(.fail, "round 1: notify before the work", outcome: .early),
                RunOutcome(.fail, "round 7: notify before the work", outcome: .early), RunOutcome(.timeout, "slower"),
                RunOutcome(.timeout, "slow", outcome: .timeout),
            ]
            let result = RuleResult(engine: "e", rule: "r", outcomes: outcomes, seconds: 1)
            #expect(result.status == .fail && result.passes == 1 && result.repeats == 7)
            #expect(result.failures.map(\.outcome) == [.timeout, .early, .extra])
            #expect(result.failures.map(\.count) == [3, 2, 1])
            #expect(result.failures.map(\.example) == ["slow", "round 1: notify before the work", "round 3: ran twice"])
            #expect(result.detail == "6 of 7 runs: timeout 3, early 2, extra 1; early: round 1: notify before the work")
            let timedOut = RuleResult(engine: "e", rule: "r", outcomes: [RunOutcome(.pass), RunOutcome(.timeout, "slow")], seconds: 1)
            #expect(timedOut.status == .timeout && timedOut.detail == "1 of 2 runs: timeout 1; timeout: slow")
            let single = RuleResult(engine: "e", rule: "r", outcomes: [RunOutcome(.fail, "broke", outcome: .lost)], seconds: 1)
            #expect(single.detail == "lost: broke")
            let unkeyed = RuleResult(engine: "e", rule: "r", outcomes: [RunOutcome(.fail, "broke")], seconds: 1)
            #expect(unkeyed.failures.map(\.outcome) == [.unkeyed])
            let misuse = RuleResult(engine: "e", rule: "r", outcomes: [RunOutcome(.pass, "signal 6: named it")], seconds: 1)
            #expect(misuse.status == .pass && misuse.detail == "signal 6: named it" && misuse.failures.isEmpty)
        }

        /// Hands out scripted child outcomes and records the requests.
        final class ScriptedLauncher: ChildLauncher, @unchecked Sendable {
            private let script: Locked<[ChildOutcome]>
            let requests = Locked<[RuleRequest]>([])
            init(_ script: [ChildOutcome]) { self.script = Locked(script) }
            func launch(_ request: RuleRequest) -> ChildOutcome {
                requests.withLock { $0.append(request) }
                return script.withLock { $0.removeFirst() }
            }
        }

        static func runLine(_ status: Status, _ detail: String = "") -> String {
            #"arena-run: {"status":"\#(status.rawValue)","detail":"\#(detail)"}"#
        }

        @Test("a child that crashes or times out is replaced by a fresh one for the runs left")
        func childrenReplaced() {
            let launcher = ScriptedLauncher([
                ChildOutcome(
                    termination: .signalled(11), standardError: [Self.runLine(.pass), Self.runLine(.pass), "boom"].joined(separator: "\n")),
                ChildOutcome(
                    termination: .exited(0), standardError: [Self.runLine(.pass), Self.runLine(.timeout, "stuck")].joined(separator: "\n")),
                ChildOutcome(termination: .timedOut, standardError: ""),
                ChildOutcome(termination: .exited(0), standardError: Self.runLine(.pass)),
            ])
            let runner = ConformanceRunner(repeats: 7, stress: true, launcher: launcher)
            let result = runner.run(Catalog.builtIn.rule(id: "serial.fifo")!, on: SystemEngine())
            #expect(launcher.requests.snapshot.map(\.repeats) == [7, 4, 2, 1])
            #expect(launcher.requests.snapshot.allSatisfy { $0.stress })
            #expect(result.repeats == 7 && result.passes == 4)
            // One key per way of ending: the run timed out inside its child and the child that never finished are one
            // outcome (timeout, 2 runs, the first seen as the example); the crash is another.
            #expect(result.failures.count == 2)
            #expect(
                result.failures.contains {
                    $0.status == .fail && $0.outcome == .crash && $0.example.contains("signal 11") && $0.example.contains("boom")
                })
            #expect(result.failures.contains { $0.status == .timeout && $0.outcome == .timeout && $0.count == 2 && $0.example == "stuck" })
        }

        @Test("a missing capability is unsupported, with the engine's reason")
        func unsupported() {
            let engine = SystemEngine()
            let result = ConformanceRunner().run(Rule(NeedsRetarget.self, concept: .targets), on: engine)
            #expect(result.status == .unsupported)
            #expect(result.detail.contains(engine.limits[.retargetActiveQueues]!))
        }

        @Test(
            "executor rules need an executor layer, the serial-executor ones serial executors: swift decides the task rules and lacks the serial ones"
        )
        func executorGate() async throws {
            let serial = try #require(Catalog.builtIn.rule(id: "executor.serial-fifo"))
            let task = try #require(Catalog.builtIn.rule(id: "executor.preference-on-pool"))
            #expect(Set(serial.requirements) == [.serialExecutors, .executors] && serial.referenceLayer == .dispatchObjects)
            #expect(task.requirements == [.executors] && task.referenceLayer == .executors)
            let swift = SwiftDefaultEngine()
            let unsupported = await ConformanceRunner().run(serial, on: swift)
            #expect(unsupported.status == .unsupported && unsupported.detail.contains("needs serial-executors"), "\(unsupported.detail)")
            let passed = await ConformanceRunner().run(task, on: swift)
            #expect(passed.status == .pass, "\(passed.detail)")
            let foundation = await ConformanceRunner().run(task, on: FoundationEngine())
            #expect(foundation.status == .unsupported && foundation.detail.contains("needs executors"), "\(foundation.detail)")
        }

        @Test("misuse verdicts: dying with the object's name passes; anything else fails")
        func misuseVerdicts() {
            let rule = Catalog.builtIn.rule(id: "suspend.over-resume")!.misuse!
            let named = "DispatchArena misuse: over-resume: resume() without a matching suspend() on queue 'arena.misuse.over-resume'"
            let pass = MisuseVerdict.judge(ChildOutcome(termination: .signalled(6), standardError: "noise\n" + named), rule: rule)
            #expect(pass.status == .pass && pass.outcome == nil)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .exited(0), standardError: ""), rule: rule).outcome == .allowed)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .signalled(4), standardError: ""), rule: rule).outcome == .unnamed)
            let unnamed = MisuseVerdict.judge(
                ChildOutcome(termination: .signalled(6), standardError: "misuse: over-resume on some queue"), rule: rule)
            #expect(unnamed.status == .fail && unnamed.outcome == .unnamed)
            let hung = MisuseVerdict.judge(ChildOutcome(termination: .timedOut, standardError: ""), rule: rule)
            #expect(hung.status == .timeout && hung.outcome == .timeout)
        }

        @Test("a child that crashes or hangs without reporting is a fail or a timeout")
        func childWithoutResult() {
            let request = RuleRequest(engine: "system", rule: "serial.fifo", repeats: 1, timeout: .seconds(1))
            let crashed = ConformanceChild.result(
                of: ChildOutcome(termination: .signalled(11), standardError: "boom"), for: request, seconds: 0)
            #expect(crashed.status == .fail && crashed.detail.contains("signal 11") && crashed.detail.contains("boom"))
            let hung = ConformanceChild.result(of: ChildOutcome(termination: .timedOut, standardError: ""), for: request, seconds: 0)
            #expect(hung.status == .timeout)
            let silent = ConformanceChild.result(of: ChildOutcome(termination: .exited(0), standardError: ""), for: request, seconds: 0)
            #expect(silent.status == .fail && silent.detail.contains("without a result"))
        }

        @Test("a sanitizer report fails the run it appeared in, even when the check passed")
        func sanitizerReportFails() {
            let request = RuleRequest(engine: "system", rule: "serial.fifo", repeats: 3, timeout: .seconds(1))
            let race = """
                ==================
                WARNING: ThreadSanitizer: data race (pid=42)
                  Write of size 8 at 0x7b0400000010 by thread T3:
                    #0 closure in check /work/main/Sources/Conformance/Rules/QueueRules.swift:61:40 (tests+0x1234)
                """
            let clean = [Self.runLine(.pass), Self.runLine(.pass), Self.runLine(.pass)]
            #expect(
                ConformanceChild.outcomes(
                    of: ChildOutcome(termination: .exited(0), standardError: clean.joined(separator: "\n")),
                    for: request) == [RunOutcome(.pass), RunOutcome(.pass), RunOutcome(.pass)])
            let inSecond = [Self.runLine(.pass), race, Self.runLine(.pass), Self.runLine(.pass)].joined(separator: "\n")
            let outcomes = ConformanceChild.outcomes(of: ChildOutcome(termination: .exited(0), standardError: inSecond), for: request)
            #expect(outcomes.map(\.status) == [.pass, .fail, .pass])
            #expect(
                outcomes[1].detail.hasPrefix("WARNING: ThreadSanitizer: data race") && outcomes[1].detail.contains("QueueRules.swift:61"))
            let afterLast = (clean + [race]).joined(separator: "\n")
            #expect(
                ConformanceChild.outcomes(of: ChildOutcome(termination: .exited(0), standardError: afterLast), for: request).map(\.status)
                    == [.pass, .pass, .fail])
            // A sanitizer's own exit code (66) after every run was reported, the report already counted: no extra run.
            let sanitizerExit = ConformanceChild.outcomes(of: ChildOutcome(termination: .exited(66), standardError: inSecond), for: request)
            #expect(sanitizerExit.map(\.status) == [.pass, .fail, .pass])
            // A crash after the last run line is the last run's.
            let lateCrash = ConformanceChild.outcomes(
                of: ChildOutcome(termination: .signalled(11), standardError: (clean + ["boom"]).joined(separator: "\n")), for: request)
            #expect(
                lateCrash.map(\.status) == [.pass, .pass, .fail] && lateCrash[2].detail.contains("after its last run")
                    && lateCrash[2].detail.contains("signal 11"))
        }

        @Test("table and markdown show how many runs passed and the histogram by outcome key, with an example of each")
        func reportHistogram() throws {
            let rules = [Catalog.builtIn.rule(id: "serial.fifo")!, Catalog.builtIn.rule(id: "group.wait")!]
            let results = [
                RuleResult(engine: "system", rule: "serial.fifo", outcomes: Array(repeating: RunOutcome(.pass), count: 20), seconds: 2),
                RuleResult(
                    engine: "system", rule: "group.wait",
                    outcomes: Array(repeating: RunOutcome(.pass), count: 17) + [
                        RunOutcome(.fail, "round 0: 1 leave lost", outcome: .missing),
                        RunOutcome(.fail, "round 4: 2 leaves lost", outcome: .missing), RunOutcome(.timeout, "stuck"),
                    ], seconds: 30),
            ]
            let report = ConformanceReport(engines: [EngineDescription(SystemEngine())], rules: rules, results: results)
            let table = report.table()
            #expect(table.contains("pass 20/20 2.0s") && table.contains("fail 17/20 30s"), "\(table)")
            #expect(
                table.contains(
                    "system group.wait fail: 17 of 20 runs passed; missing 2, timeout 1\n    missing 2× (fail), e.g. round 0: 1 leave lost\n    timeout 1× (timeout), e.g. stuck"
                ),
                "\(table)")
            let markdown = report.markdown()
            #expect(markdown.contains("| `group.wait` | fail (17/20) |"), "\(markdown)")
            #expect(
                markdown.contains(
                    "- `group.wait` on **system**: fail, 17 of 20 runs passed; missing 2, timeout 1\n  - missing 2× (fail), e.g. round 0: 1 leave lost\n  - timeout 1× (timeout), e.g. stuck"
                ),
                "\(markdown)")
            let json = try report.json()
            #expect(json.contains(#""passes" : 17"#) && json.contains(#""count" : 2"#), "\(json)")
        }

        @Test("a pass where the reference is unsupported is called beyond the reference in the details; a pass beside a pass is not")
        func beyondReference() {
            let rules = [Catalog.builtIn.rule(id: "qos.priority-scheduling")!, Catalog.builtIn.rule(id: "serial.fifo")!]
            let results = [
                RuleResult(
                    engine: "system", rule: "qos.priority-scheduling", outcomes: [RunOutcome(.unsupported, "needs priority-scheduling")],
                    seconds: 0),
                RuleResult(engine: "mutex", rule: "qos.priority-scheduling", outcomes: [RunOutcome(.pass)], seconds: 0.2),
                RuleResult(engine: "system", rule: "serial.fifo", outcomes: [RunOutcome(.pass)], seconds: 0.1),
                RuleResult(engine: "mutex", rule: "serial.fifo", outcomes: [RunOutcome(.pass)], seconds: 0.1),
            ]
            let report = ConformanceReport(
                engines: [EngineDescription(SystemEngine()), EngineDescription(MutexEngine())],
                rules: rules, results: results, references: [.dispatchObjects: "system"])
            let table = report.table()
            #expect(table.contains("mutex qos.priority-scheduling pass: beyond the reference"), "\(table)")
            #expect(!table.contains("mutex serial.fifo pass"), "\(table)")
            #expect(
                report.markdown().contains("- `qos.priority-scheduling` on **mutex**: pass, beyond the reference"), "\(report.markdown())")
            let withoutReference = ConformanceReport(
                engines: [EngineDescription(MutexEngine())], rules: rules,
                results: results.filter { $0.engine == "mutex" }, references: [.dispatchObjects: "system"])
            #expect(!withoutReference.table().contains("beyond"), "\(withoutReference.table())")
            // Without a reference of the layer nothing is held against one.
            let noRole = ConformanceReport(
                engines: [EngineDescription(SystemEngine()), EngineDescription(MutexEngine())], rules: rules,
                results: results)
            #expect(!noRole.table().contains("beyond"), "\(noRole.table())")
            #expect(!withoutReference.table().contains("beyond"), "\(withoutReference.table())")
        }

        @Test("the stress load runs its threads, preempts in real time where it may, and ends at stop() or its deadline")
        func stressLoad() {
            let load = StressLoad.start(spinners: 2, preempters: 3, until: .now() + .seconds(30))
            #expect(load.running == 5)
            if StressLoad.realTimeAvailable {
                let end = Deadline.now() + .seconds(5)
                while !load.preemptsInRealTime && Deadline.now() < end { Threads.sleep(.milliseconds(1)) }
                #expect(load.preemptsInRealTime, "the preempters did not get real-time priority")
            }
            load.stop()
            #expect(load.running == 0)
            let bounded = StressLoad.start(spinners: 1, preempters: 1, until: .now() + .milliseconds(20))
            let end = Deadline.now() + .seconds(5)
            while bounded.running > 0 && Deadline.now() < end { Threads.sleep(.milliseconds(1)) }
            #expect(bounded.running == 0, "the load outlived its deadline")
        }
    }

    @Suite
    struct DeadlineTests {
        @Test func arithmetic() {
            let start = Deadline(nanoseconds: 1_000)
            #expect((start + .nanoseconds(500)).nanoseconds == 1_500)
            #expect((start + .nanoseconds(-400)).nanoseconds == 600)
            #expect((start + .seconds(-1)).nanoseconds == 0)
            #expect((Deadline(nanoseconds: .max - 10) + .seconds(1)).isDistantFuture)  // saturates
            #expect((Deadline.distantFuture + .seconds(1)).isDistantFuture)
            #expect(Deadline(nanoseconds: 3_000) - start == .nanoseconds(2_000))
            #expect(start - Deadline(nanoseconds: 3_000) == .nanoseconds(-2_000))
            let now = Deadline.now()
            #expect(Deadline.now() >= now)
        }
    }
}
