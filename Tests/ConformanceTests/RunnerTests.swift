import Conformance
import Contenders
import Harness
import Testing

/// A rule whose check never returns: the watchdog must turn it into `timeout`.
enum HangsForever: BehaviourRule {
    static let id = "test.hangs"
    static let title = "Never returns."
    static let source = "this test"
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
    static func check<E: Engine>(_ engine: E) throws {
        runs += 1
        if runs == 2 { throw RuleFailure("second run") }
    }
}

enum NeedsRetarget: BehaviourRule {
    static let id = "test.needs-retarget"
    static let title = "Needs retargeting of active queues."
    static let source = "this test"
    static let needs: Set<Capability> = [.retargetActiveQueues]
    static func check<E: Engine>(_ engine: E) throws { Issue.record("ran without the capability") }
}

extension ArenaTests {
    @Suite
    struct RunnerTests {
        @Test("a hanging check is a timeout, not a hang")
        func watchdog() {
            let result = ConformanceRunner(timeout: .milliseconds(200)).run(Rule(HangsForever.self, concept: .queues), on: SystemEngine())
            #expect(result.status == .timeout)
            #expect(result.seconds < 5)
        }

        @Test("repeats stop at the first failure and say which run")
        func repeats() {
            FailsSecondTime.runs = 0
            let result = ConformanceRunner(repeats: 5).run(Rule(FailsSecondTime.self, concept: .queues), on: SystemEngine())
            #expect(result.status == .fail)
            #expect(result.repeats == 2)
            #expect(result.detail == "run 2 of 5: second run")
        }

        @Test("a missing capability is unsupported, with the engine's reason")
        func unsupported() {
            let engine = SystemEngine()
            let result = ConformanceRunner().run(Rule(NeedsRetarget.self, concept: .targets), on: engine)
            #expect(result.status == .unsupported)
            #expect(result.detail.contains(engine.limits[.retargetActiveQueues]!))
        }

        @Test("misuse verdicts: dying with the object's name passes; anything else fails")
        func misuseVerdicts() {
            let rule = Catalog.rule(id: "suspend.over-resume")!.misuse!
            let named = "DispatchArena misuse: over-resume: resume() without a matching suspend() on queue 'arena.misuse.over-resume'"
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .signalled(6), standardError: "noise\n" + named), rule: rule).0 == .pass)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .exited(0), standardError: ""), rule: rule).0 == .fail)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .signalled(4), standardError: ""), rule: rule).0 == .fail)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .signalled(6), standardError: "misuse: over-resume on some queue"), rule: rule).0 == .fail)
            #expect(MisuseVerdict.judge(ChildOutcome(termination: .timedOut, standardError: ""), rule: rule).0 == .timeout)
        }

        @Test("a child that crashes or hangs without reporting is a fail or a timeout")
        func childWithoutResult() {
            let request = ChildRequest(engine: "system", rule: "serial.fifo", repeats: 1, timeout: .seconds(1))
            let crashed = ConformanceChild.result(of: ChildOutcome(termination: .signalled(11), standardError: "boom"), for: request, seconds: 0)
            #expect(crashed.status == .fail && crashed.detail.contains("signal 11") && crashed.detail.contains("boom"))
            let hung = ConformanceChild.result(of: ChildOutcome(termination: .timedOut, standardError: ""), for: request, seconds: 0)
            #expect(hung.status == .timeout)
        }

        @Test("a sanitizer report in a child fails the rule even when the check passed")
        func sanitizerReportFails() {
            let request = ChildRequest(engine: "system", rule: "serial.fifo", repeats: 1, timeout: .seconds(1))
            let passed = #"arena-result: {"engine":"system","rule":"serial.fifo","status":"pass","detail":"","seconds":0.1,"repeats":1}"#
            let clean = ConformanceChild.result(of: ChildOutcome(termination: .exited(0), standardOutput: passed, standardError: ""), for: request, seconds: 0)
            #expect(clean.status == .pass)
            let race = """
                ==================
                WARNING: ThreadSanitizer: data race (pid=42)
                  Write of size 8 at 0x7b0400000010 by thread T3:
                    #0 closure in check /work/main/Sources/Conformance/Rules/QueueRules.swift:61:40 (tests+0x1234)
                """
            let raced = ConformanceChild.result(of: ChildOutcome(termination: .exited(0), standardOutput: passed, standardError: race), for: request, seconds: 0)
            #expect(raced.status == .fail)
            #expect(raced.detail.hasPrefix("WARNING: ThreadSanitizer: data race") && raced.detail.contains("QueueRules.swift:61"))
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
