import ArenaContract
import Harness

/// Once tokens.
enum OnceRules: RuleFamily {
    static let concept = Concept.once
    static let rules: [any ConformanceRule.Type] = [OnceExactly.self, OnceRecursive.self]
}

enum OnceExactly: BehaviourRule {
    static let id = "once.exactly"
    static let title = "Under racing callers the body runs exactly once; every caller returns only after it finished and sees its effects."
    static let source = "dispatch_once(3); [objc.io #2] (dispatch_once)"

    static let forbidden: [Outcome] = [.extra, .early]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<20 {
            let once = engine.makeOnce(label: "arena.once.exactly.\(round)")
            let runs = Counter()
            let published = UnguardedCell()  // written only by the body; read after perform returns
            let early = Counter()
            Threads.race(8) { _ in
                once.perform {
                    runs.add()
                    Timing.pause(.milliseconds(2))
                    published.value = 42
                }
                if published.value != 42 { early.add() }
            }
            try expect(runs.value == 1, .extra, "round \(round): the body ran \(runs.value) times")
            try expect(early.value == 0, .early, "round \(round): \(early.value) callers returned before the body's effects were visible")
        }
    }
}

enum OnceRecursive: MisuseRule {
    static let id = "once.recursive"
    static let title = "Calling once from inside its own body is misuse: the process stops with a clear message."
    static let source = "dispatch_once(3); libdispatch crashes 'trying to lock recursively' in _dispatch_once_wait"
    static let objectLabel = "arena.misuse.once-recursive"
    static let keywords = ["recursive"]

    static func trigger<E: Engine>(_ engine: E) {
        let once = engine.makeOnce(label: objectLabel)
        once.perform { once.perform {} }
    }
}
