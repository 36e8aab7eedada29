import ArenaContract
import Harness

/// A queue's context and the finalizer that receives it once the queue is gone.
enum ContextRules: RuleFamily {
    static let concept = Concept.context
    static let rules: [any ConformanceRule.Type] = [
        ContextFinalizerRuns.self, ContextFinalizerNeedsContext.self, ContextSuspensionDelays.self,
        ContextFinalizerAfterDrain.self,
    ]
}

/// A context object a rule can recognise by identity.
final class ContextToken: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

enum ContextFinalizerRuns: BehaviourRule {
    static let id = "context.finalizer-runs"
    static let title = "The finalizer runs once, after the queue's last reference and last block, on its target, with the context."
    static let source = """
        dispatch_set_finalizer_f(3), dispatch_set_context(3); [Concurrency Programming Guide] ("Providing a Clean Up \
        Function For a Queue"); libdispatch tests queue_finalizer.c
        """

    static let forbidden: [Outcome] = [.missing, .extra, .early, .reordered, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let targetKey = SpecificKey<String>("arena.context.target")
        let queueKey = SpecificKey<String>("arena.context.queue")
        let target = engine.makeQueue(label: "arena.context.target")
        target.setSpecific(targetKey, "target")
        let events = Recorder<String>()
        let calls = Counter()
        let finalized = Latch()
        let gate = Latch()
        let context = ContextToken("context")
        do {
            let queue = engine.makeQueue(label: "arena.context.finalized", kind: .serial, startsInactive: false, target: target)
            queue.setSpecific(queueKey, "queue")
            queue.context = context
            try expect(queue.context === context, .wrongValue, "the context read back is not the one set")
            queue.setFinalizer { received in
                let place = engine.currentSpecific(targetKey) == "target" && engine.currentSpecific(queueKey) == nil
                events.append("finalizer\(received === context ? "" : " with another context")\(place ? "" : " off the target")")
                calls.add()
                finalized.countDown()
            }
            queue.async {
                gate.wait(.seconds(5))
                events.append("block 1")
            }
            queue.async { events.append("block 2") }
            queue.asyncAfter(deadline: .now() + .milliseconds(60)) { events.append("block 3") }
        }  // the rule's reference goes here; the blocks still hold the queue
        Timing.pause(Timing.quietPeriod)
        let early = calls.value
        gate.countDown()
        try expectOpens(finalized, "the finalizer")
        Timing.pause(Timing.quietPeriod)
        try expect(early == 0, .early, "the finalizer ran while blocks were queued")
        try expect(events.elements == ["block 1", "block 2", "block 3", "finalizer"], .reordered, "events in order: \(events.elements)")
        try expect(calls.value == 1, .extra, "the finalizer ran \(calls.value) times")
    }
}

enum ContextFinalizerNeedsContext: BehaviourRule {
    static let id = "context.finalizer-needs-context"
    static let title = "A queue whose context is nil when it goes (never set, or cleared) runs no finalizer."
    static let source = """
        dispatch_set_finalizer_f(3): 'the finalizer is only called if the context is not NULL'; \
        [Concurrency Programming Guide] ("Providing a Clean Up Function For a Queue")
        """

    static let forbidden: [Outcome] = [.missing, .extra]

    static func check<E: Engine>(_ engine: E) throws {
        let ran = Recorder<String>()
        let control = Latch()
        let blocksDone = Latch(3)
        do {
            let never = engine.makeQueue(label: "arena.context.never-set")
            never.setFinalizer { _ in ran.append("never-set") }
            let cleared = engine.makeQueue(label: "arena.context.cleared")
            cleared.context = ContextToken("cleared")
            cleared.setFinalizer { _ in ran.append("cleared") }
            cleared.context = nil
            // The control queue goes at the same moment with a context: once its finalizer ran, the others had the
            // same chance.
            let withContext = engine.makeQueue(label: "arena.context.control")
            withContext.context = ContextToken("control")
            withContext.setFinalizer { _ in control.countDown() }
            for queue in [never, cleared, withContext] { queue.async { blocksDone.countDown() } }
        }
        try expectOpens(blocksDone, "a block on each queue")
        try expectOpens(control, "the finalizer of the queue that has a context")
        Timing.pause(Timing.quietPeriod)
        try expect(ran.count == 0, .extra, "finalizers ran without a context: \(ran.elements)")
    }
}

enum ContextSuspensionDelays: BehaviourRule {
    static let id = "context.suspension-delays"
    static let title = "A suspended queue runs no finalizer: it comes after the resume, and after the blocks held back."
    static let source = """
        dispatch_object(3): 'suspension applies to all aspects of the dispatch object life cycle, including the \
        finalizer function'; dispatch_suspend(3)
        """

    static let forbidden: [Outcome] = [.missing, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let events = Recorder<String>()
        let finalized = Latch()
        let holder = engine.makeQueue(label: "arena.context.holder")
        do {
            let queue = engine.makeQueue(label: "arena.context.suspended")
            queue.context = ContextToken("suspended")
            queue.setFinalizer { _ in
                events.append("finalizer")
                finalized.countDown()
            }
            queue.suspend()
            queue.async { events.append("held block") }
            // The holder keeps the queue and resumes it later; the rule lets go now.
            holder.asyncAfter(deadline: .now() + .milliseconds(150)) {
                events.append("resume")
                queue.resume()
            }
        }
        try expectOpens(finalized, "the finalizer")
        try expect(events.elements == ["resume", "held block", "finalizer"], .reordered, "events in order: \(events.elements)")
    }
}

enum ContextFinalizerAfterDrain: BehaviourRule {
    static let id = "context.finalizer-after-drain"
    static let title =
        "A queue whose last reference the program drops itself, on its own thread after the queue drained, runs its finalizer once, on its target, with the context."
    static let source = """
        dispatch_set_finalizer_f(3), dispatch_release(3) (the finalizer runs once the last reference is released, \
        wherever that happens); libdispatch tests queue_finalizer.c (released from the test's own thread)
        """

    static let forbidden: [Outcome] = [.missing, .extra, .early, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let targetKey = SpecificKey<String>("arena.context.after-drain.target")
        let target = engine.makeQueue(label: "arena.context.after-drain.target")
        target.setSpecific(targetKey, "target")
        let seen = Recorder<String>()
        let calls = Counter()
        let finalized = Latch()
        let context = ContextToken("after-drain")
        do {
            let queue = engine.makeQueue(label: "arena.context.after-drain", kind: .serial, startsInactive: false, target: target)
            queue.context = context
            queue.setFinalizer { received in
                if received !== context { seen.append("another context") }
                if engine.currentSpecific(targetKey) != "target" { seen.append("off the target") }
                calls.add()
                finalized.countDown()
            }
            let ran = Latch()
            queue.async { ran.countDown() }
            try expectOpens(ran, "the queue's block")
            Timing.pause(Timing.quietPeriod)  // the block and its job let go of the queue
            try expect(calls.value == 0, .early, "the finalizer ran while the program still held the queue")
        }  // the last reference goes here, on this thread, with nothing queued
        try expectOpens(finalized, "the finalizer after the program dropped the drained queue's last reference")
        Timing.pause(Timing.quietPeriod)
        try expect(calls.value == 1, .extra, "the finalizer ran \(calls.value) times")
        try expect(seen.elements.isEmpty, .wrongValue, "the finalizer ran with: \(seen.elements.joined(separator: ", "))")
    }
}
