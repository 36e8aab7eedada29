import ArenaContract
import Harness

/// asyncAfter.
enum AfterRules: RuleFamily {
    static let concept = Concept.after
    static let rules: [any ConformanceRule.Type] = [AfterNotEarly.self, AfterZero.self]
}

/// The lateness any timed block may show on a loaded 2-core machine: generous on purpose (libdispatch's own after
/// test allows ±0.5 s around 2 s).
let lateSlack: Duration = .milliseconds(500)

enum AfterNotEarly: BehaviourRule {
    static let id = "after.not-early"
    static let title = "asyncAfter never runs before its deadline, and runs close to it (within 500 ms, a generous bound)."
    static let source =
        "dispatch_after(3); libdispatch tests/dispatch_after.c (windows around 1 s and 2 s, scaled); [GCD Handbook] ('never before the deadline')"

    static let forbidden: [Outcome] = [.missing, .early, .late]

    static func check<E: Engine>(_ engine: E) throws {
        let serial = engine.makeQueue(label: "arena.after.not-early")
        let concurrent = engine.makeQueue(label: "arena.after.not-early.concurrent", kind: .concurrent)
        let count = 60
        let lateness = Recorder<(early: Bool, late: Duration)>()
        let done = Latch(count)
        for index in 0..<count {
            let deadline = Deadline.now() + .milliseconds(Int.random(in: 1...150))
            (index % 2 == 0 ? serial : concurrent).asyncAfter(deadline: deadline) {
                let now = Deadline.now()
                lateness.append((now < deadline, now - deadline))
                done.countDown()
            }
        }
        try expectOpens(done, "\(count) delayed blocks")
        let early = lateness.elements.filter(\.early)
        try expect(
            early.isEmpty, .early, "\(early.count) blocks ran before their deadline (by up to \(early.map { .zero - $0.late }.max()!))")
        let worst = lateness.elements.map(\.late).max()!
        try expect(worst <= lateSlack, .late, "a delayed block ran \(worst) after its deadline")
    }
}

enum AfterZero: BehaviourRule {
    static let id = "after.zero"
    static let title =
        "asyncAfter with a deadline now or in the past behaves as async: it runs once, promptly (within 500 ms, a generous bound)."
    static let source = "dispatch_after(3): 'DISPATCH_TIME_NOW ... is supported, but not as optimal as calling dispatch_async()'"

    static let forbidden: [Outcome] = [.missing, .extra]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.after.zero", kind: .concurrent)
        let count = 100
        let runs = Counter()
        let done = Latch(count)
        let start = Deadline.now()
        for index in 0..<count {
            let deadline = index % 2 == 0 ? Deadline.now() : start + .seconds(-1)
            queue.asyncAfter(deadline: deadline) {
                runs.add()
                done.countDown()
            }
        }
        try expectOpens(done, within: lateSlack, "\(count) blocks with past deadlines")
        Timing.pause(.milliseconds(10))
        try expect(runs.value == count, .extra, "\(count) blocks ran \(runs.value) times")
    }
}
