import ArenaContract
import Harness

/// Queue-specific values.
enum SpecificRules: RuleFamily {
    static let concept = Concept.specific
    static let rules: [any ConformanceRule.Type] = [
        SpecificOwnQueue.self, SpecificInherited.self, SpecificDestructorOnReplace.self, SpecificDestructorOnRelease.self,
    ]
}

enum SpecificOwnQueue: BehaviourRule {
    static let id = "specific.own-queue"
    static let title = "A value set on a queue is visible from its blocks, and absent on other queues and plain threads."
    static let source = "dispatch_queue_set_specific(3), dispatch_get_specific(3); [GCD Handbook] (queue-specific data)"

    static let forbidden: [Outcome] = [.missing, .wrongValue, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let number = SpecificKey<Int>("arena.specific.number")
        let text = SpecificKey<String>("arena.specific.text")
        let queue = engine.makeQueue(label: "arena.specific.own", kind: .concurrent)
        let other = engine.makeQueue(label: "arena.specific.other")
        queue.setSpecific(number, 7)
        queue.setSpecific(text, "seven")

        try expect(
            queue.getSpecific(number) == 7, .wrongValue,
            "getSpecific on the queue returned \(String(describing: queue.getSpecific(number)))")
        try expect(other.getSpecific(number) == nil, .wrongPlace, "another queue reports the value")
        try expect(
            engine.currentSpecific(number) == nil, .wrongPlace, "a plain thread sees \(String(describing: engine.currentSpecific(number)))")

        let seenInside = Recorder<String>()
        let done = Latch(200)
        for index in 0..<200 {
            (index % 2 == 0 ? queue : other).async {
                let value = engine.currentSpecific(number)
                let label = engine.currentSpecific(text)
                let expected: (Int?, String?) = index % 2 == 0 ? (7, "seven") : (nil, nil)
                if value != expected.0 || label != expected.1 {
                    seenInside.append(
                        "block on \(index % 2 == 0 ? "its queue" : "another queue") saw \(String(describing: value)), \(String(describing: label))"
                    )
                }
                done.countDown()
            }
        }
        try expectOpens(done, "200 blocks")
        try expect(seenInside.count == 0, .wrongValue, seenInside.elements.prefix(2).joined(separator: "; "))

        queue.setSpecific(number, nil)
        let cleared = queue.sync { engine.currentSpecific(number) }
        try expect(cleared == nil, .wrongValue, "a removed value is still visible (\(String(describing: cleared)))")
        try expect(queue.sync { engine.currentSpecific(text) } == "seven", .wrongValue, "removing one key removed another")
    }
}

enum SpecificInherited: BehaviourRule {
    static let id = "specific.inherited"
    static let title = "A value set on a target is visible from blocks of queues that target it; the nearest queue on the chain wins."
    static let source = "dispatch_get_specific(3): 'the target queue hierarchy is searched'"

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<Int>("arena.specific.inherited")
        let root = engine.makeQueue(label: "arena.specific.root")
        let middle = engine.makeQueue(label: "arena.specific.middle", kind: .concurrent, startsInactive: false, target: root)
        let leaf = engine.makeQueue(label: "arena.specific.leaf", kind: .serial, startsInactive: false, target: middle)
        root.setSpecific(key, 1)

        try expect(leaf.sync { engine.currentSpecific(key) } == 1, .wrongValue, "a leaf two links below does not see the root's value")
        try expect(
            leaf.getSpecific(key) == nil, .wrongValue,
            "getSpecific on the leaf reports the root's value (it should read the queue itself only)")

        middle.setSpecific(key, 2)
        try expect(leaf.sync { engine.currentSpecific(key) } == 2, .wrongValue, "the nearer value on the chain does not win")
        try expect(middle.sync { engine.currentSpecific(key) } == 2, .wrongValue, "the middle queue does not see its own value")
        try expect(root.sync { engine.currentSpecific(key) } == 1, .wrongValue, "the root sees a value set below it")

        leaf.setSpecific(key, 3)
        let fromBlocks = Recorder<Int?>()
        let done = Latch(100)
        for _ in 0..<100 {
            leaf.async {
                fromBlocks.append(engine.currentSpecific(key))
                done.countDown()
            }
        }
        try expectOpens(done, "100 leaf blocks")
        try expect(
            fromBlocks.elements.allSatisfy { $0 == 3 }, .wrongValue,
            "leaf blocks saw \(Set(fromBlocks.elements.map { String(describing: $0) }))")

        middle.setSpecific(key, nil)
        leaf.setSpecific(key, nil)
        try expect(
            leaf.sync { engine.currentSpecific(key) } == 1, .wrongValue, "after removing nearer values the root's value is not visible")
    }
}

/// A specific value whose destructor (deinit) a rule can count.
final class DestructorProbe: Sendable {
    let name: String
    let destroyed: Recorder<String>
    init(_ name: String, _ destroyed: Recorder<String>) {
        self.name = name
        self.destroyed = destroyed
    }
    deinit { destroyed.append(name) }
}

enum SpecificDestructorOnReplace: BehaviourRule {
    static let id = "specific.destructor-on-replace"
    static let title = "Replacing a specific value, or setting it to nil, runs the old value's destructor, once."
    static let source = """
        dispatch_queue_set_specific(3): 'the destructor function is invoked ... when a new context is set for the same \
        key, or when all references to the queue have been released'; libdispatch tests context_for_key.c
        """

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<DestructorProbe>("arena.specific.destructor")
        let destroyed = Recorder<String>()
        let queue = engine.makeQueue(label: "arena.specific.replace")
        queue.setSpecific(key, DestructorProbe("first", destroyed))
        queue.setSpecific(key, DestructorProbe("second", destroyed))
        try expectEventually("the replaced value's destructor") { destroyed.elements == ["first"] }
        try expect(
            queue.getSpecific(key)?.name == "second", .wrongValue, "the queue holds \(String(describing: queue.getSpecific(key)?.name))")
        queue.setSpecific(key, nil)
        try expectEventually("the removed value's destructor") { destroyed.count == 2 }
        Timing.pause(Timing.quietPeriod)
        try expect(destroyed.elements == ["first", "second"], .wrongValue, "destructors ran for \(destroyed.elements)")
        withExtendedLifetime(queue) {}
    }
}

enum SpecificDestructorOnRelease: BehaviourRule {
    static let id = "specific.destructor-on-release"
    static let title = "When a queue goes, the destructor of every value still set on it runs exactly once."
    static let source = """
        dispatch_queue_set_specific(3) ('when all references to the queue have been released'); libdispatch tests \
        context_for_key.c
        """

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let destroyed = Recorder<String>()
        let keys = (0..<3).map { SpecificKey<DestructorProbe>("arena.specific.release.\($0)") }
        let blocksDone = Latch(10)
        do {
            let queue = engine.makeQueue(label: "arena.specific.release", kind: .concurrent)
            for (index, key) in keys.enumerated() { queue.setSpecific(key, DestructorProbe("value \(index)", destroyed)) }
            for _ in 0..<10 {
                queue.async {
                    _ = keys.map { engine.currentSpecific($0)?.name }
                    blocksDone.countDown()
                }
            }
        }
        try expectOpens(blocksDone, "ten blocks reading the values")
        try expectEventually("three destructors after the queue went") { destroyed.count >= 3 }
        Timing.pause(Timing.quietPeriod)
        try expect(
            destroyed.elements.sorted() == ["value 0", "value 1", "value 2"], .wrongValue, "destructors ran for \(destroyed.elements)")
    }
}
