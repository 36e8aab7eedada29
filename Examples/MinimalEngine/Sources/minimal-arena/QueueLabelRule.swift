import ArenaContract
import Conformance
import Harness

/// A rule of this package's own, appended to the catalog by `main.swift`: every engine in the matrix is checked
/// against it, the built-in ones included.
enum QueueLabelRule: BehaviourRule {
    static let id = "queue.label"
    static let title = "A queue keeps the label it was made with, and a block it runs can read it."
    static let source =
        "dispatch_queue_create(3): 'the label … is used by debugging and performance tools'; queue.h, dispatch_queue_get_label"

    /// What a failing run reports: the block never ran (`missing`), or a label other than the one given (`wrong-value`).
    static let forbidden: [Outcome] = [.missing, .wrongValue]

    /// The rule with its concept, ready for `ArenaMain.run(rules:)`.
    static let rule = Rule(QueueLabelRule.self, concept: .queues)

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "example.label-rule")
        try expect(queue.label == "example.label-rule", .wrongValue, "the queue's label is '\(queue.label)'")
        let seen = Latch()
        let label = Locked("")
        queue.async {
            label.withLock { $0 = queue.label }
            seen.countDown()
        }
        try expectOpens(seen, "the block on 'example.label-rule'")
        try expect(label.snapshot == "example.label-rule", .wrongValue, "a block read the label '\(label.snapshot)'")
    }
}
