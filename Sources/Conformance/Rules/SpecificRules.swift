import Contenders
import Harness

/// Queue-specific values.
enum SpecificRules: RuleFamily {
    static let concept = Concept.specific
    static let rules: [any ConformanceRule.Type] = [SpecificOwnQueue.self, SpecificInherited.self]
}

enum SpecificOwnQueue: BehaviourRule {
    static let id = "specific.own-queue"
    static let title = "A value set on a queue is visible from its blocks, and absent on other queues and plain threads."
    static let source = "dispatch_queue_set_specific(3), dispatch_get_specific(3); seed 002_1559f9c9921a817c.txt (queue-specific data)"

    static func check<E: Engine>(_ engine: E) throws {
        let number = SpecificKey<Int>("arena.specific.number")
        let text = SpecificKey<String>("arena.specific.text")
        let queue = engine.makeQueue(label: "arena.specific.own", kind: .concurrent)
        let other = engine.makeQueue(label: "arena.specific.other")
        queue.setSpecific(number, 7)
        queue.setSpecific(text, "seven")

        try expect(queue.getSpecific(number) == 7, "getSpecific on the queue returned \(String(describing: queue.getSpecific(number)))")
        try expect(other.getSpecific(number) == nil, "another queue reports the value")
        try expect(engine.currentSpecific(number) == nil, "a plain thread sees \(String(describing: engine.currentSpecific(number)))")

        let seenInside = Recorder<String>()
        let done = Latch(200)
        for index in 0..<200 {
            (index % 2 == 0 ? queue : other).async {
                let value = engine.currentSpecific(number)
                let label = engine.currentSpecific(text)
                let expected: (Int?, String?) = index % 2 == 0 ? (7, "seven") : (nil, nil)
                if value != expected.0 || label != expected.1 {
                    seenInside.append("block on \(index % 2 == 0 ? "its queue" : "another queue") saw \(String(describing: value)), \(String(describing: label))")
                }
                done.countDown()
            }
        }
        try expectOpens(done, "200 blocks")
        try expect(seenInside.count == 0, seenInside.elements.prefix(2).joined(separator: "; "))

        queue.setSpecific(number, nil)
        let cleared = queue.sync { engine.currentSpecific(number) }
        try expect(cleared == nil, "a removed value is still visible (\(String(describing: cleared)))")
        try expect(queue.sync { engine.currentSpecific(text) } == "seven", "removing one key removed another")
    }
}

enum SpecificInherited: BehaviourRule {
    static let id = "specific.inherited"
    static let title = "A value set on a target is visible from blocks of queues that target it; the nearest queue on the chain wins."
    static let source = "dispatch_get_specific(3): 'the target queue hierarchy is searched'"

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<Int>("arena.specific.inherited")
        let root = engine.makeQueue(label: "arena.specific.root")
        let middle = engine.makeQueue(label: "arena.specific.middle", kind: .concurrent, startsInactive: false, target: root)
        let leaf = engine.makeQueue(label: "arena.specific.leaf", kind: .serial, startsInactive: false, target: middle)
        root.setSpecific(key, 1)

        try expect(leaf.sync { engine.currentSpecific(key) } == 1, "a leaf two links below does not see the root's value")
        try expect(leaf.getSpecific(key) == nil, "getSpecific on the leaf reports the root's value (it should read the queue itself only)")

        middle.setSpecific(key, 2)
        try expect(leaf.sync { engine.currentSpecific(key) } == 2, "the nearer value on the chain does not win")
        try expect(middle.sync { engine.currentSpecific(key) } == 2, "the middle queue does not see its own value")
        try expect(root.sync { engine.currentSpecific(key) } == 1, "the root sees a value set below it")

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
        try expect(fromBlocks.elements.allSatisfy { $0 == 3 }, "leaf blocks saw \(Set(fromBlocks.elements.map { String(describing: $0) }))")

        middle.setSpecific(key, nil)
        leaf.setSpecific(key, nil)
        try expect(leaf.sync { engine.currentSpecific(key) } == 1, "after removing nearer values the root's value is not visible")
    }
}
