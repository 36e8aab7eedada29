import ArenaContract
import Harness

/// Suspend, resume and activation of queues.
enum SuspensionRules: RuleFamily {
    static let concept = Concept.suspension
    static let rules: [any ConformanceRule.Type] = [
        SuspendNoNewStarts.self, SuspendCounted.self, SuspendOverResume.self, InactiveStart.self,
        SuspendThroughTarget.self,
    ]
}

enum SuspendNoNewStarts: BehaviourRule {
    static let id = "suspend.no-new-starts"
    static let title = "A suspended queue starts no new block; a running block finishes."
    static let source =
        "dispatch_suspend(3) in dispatch_object(3): 'suspension occurs after completion of any blocks running at the time of the call'"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld]

    static func check<E: Engine>(_ engine: E) throws {
        for kind in [QueueKind.serial, .concurrent] {
            for round in 0..<4 {
                let queue = engine.makeQueue(label: "arena.suspend.no-new-starts.\(kind).\(round)", kind: kind)
                let running = Latch()
                let release = Latch()
                let first = Latch()
                let started = Counter()
                queue.async {
                    running.countDown()
                    release.wait(.seconds(5))
                    first.countDown()
                }
                try expectOpens(running, "\(kind) queue starting its first block")
                queue.suspend()
                let later = 20
                let done = Latch(later)
                for _ in 0..<later {
                    queue.async {
                        started.add()
                        done.countDown()
                    }
                }
                release.countDown()
                let firstFinished = first.wait(.seconds(5))
                Timing.pause(Timing.quietPeriod)
                let startedWhileSuspended = started.value
                queue.resume()
                try expect(firstFinished, .missing, "\(kind) queue: the block running at suspend() did not finish")
                try expect(
                    startedWhileSuspended == 0, .ranWhileHeld, "\(kind) queue: \(startedWhileSuspended) blocks started while suspended")
                try expectOpens(done, "\(kind) queue: \(later) blocks after resume()")
            }
        }
    }
}

enum SuspendCounted: BehaviourRule {
    static let id = "suspend.counted"
    static let title = "Suspensions nest: n suspends need n resumes before blocks start again."
    static let source = "dispatch_object(3): 'suspension count'; [Concurrency Programming Guide] (suspending and resuming queues)"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld]

    static func check<E: Engine>(_ engine: E) throws {
        for depth in 1...4 {
            let queue = engine.makeQueue(label: "arena.suspend.counted.\(depth)", kind: depth % 2 == 0 ? .concurrent : .serial)
            let ran = Counter()
            let done = Latch()
            for _ in 0..<depth { queue.suspend() }
            queue.async {
                ran.add()
                done.countDown()
            }
            for remaining in stride(from: depth - 1, to: 0, by: -1) {
                queue.resume()
                Timing.pause(Timing.quietPeriod / 2)
                if ran.value != 0 {
                    for _ in 0..<remaining { queue.resume() }
                    throw RuleFailure(.ranWhileHeld, "after \(depth) suspends and \(depth - remaining) resumes a block ran")
                }
            }
            queue.resume()
            try expectOpens(done, "the block after \(depth) suspends and \(depth) resumes")
        }
    }
}

enum SuspendOverResume: MisuseRule {
    static let id = "suspend.over-resume"
    static let title = "Resuming a queue more often than it was suspended is misuse: the process stops with a message naming the queue."
    static let source =
        "dispatch_object(3): 'calls to dispatch_suspend() must be balanced with calls to dispatch_resume()'; libdispatch crashes 'Over-resume of an object'"
    static let objectLabel = "arena.misuse.over-resume"
    static let keywords = ["resume"]

    static func trigger<E: Engine>(_ engine: E) {
        let queue = engine.makeQueue(label: objectLabel)
        queue.suspend()
        queue.resume()
        queue.resume()
    }
}

enum InactiveStart: BehaviourRule {
    static let id = "inactive.start"
    static let title = "A queue created inactive runs nothing until activated, then runs what was submitted, in order."
    static let source = "dispatch_activate(3) in dispatch_object(3); DISPATCH_QUEUE_INACTIVE in dispatch_queue_create(3)"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        for kind in [QueueKind.serial, .concurrent] {
            let queue = engine.makeQueue(label: "arena.inactive.start.\(kind)", kind: kind, startsInactive: true, target: nil)
            let log = Recorder<Int>()
            let count = 100
            let done = Latch(count)
            for index in 0..<count {
                queue.async {
                    log.append(index)
                    done.countDown()
                }
            }
            Timing.pause(Timing.quietPeriod)
            let early = log.count
            queue.activate()
            try expect(early == 0, .ranWhileHeld, "\(kind) queue: \(early) blocks ran before activate()")
            try expectOpens(done, "\(kind) queue: \(count) blocks after activate()")
            if kind == .serial {
                try expect(log.elements == Array(0..<count), .reordered, "serial queue: blocks ran out of order after activation")
            }
            queue.activate()  // a second activation does nothing
            let again = Latch()
            queue.async { again.countDown() }
            try expectOpens(again, "\(kind) queue: a block after a second activate()")
        }
    }
}

enum SuspendThroughTarget: BehaviourRule {
    static let id = "suspend.through-target"
    static let title =
        "A suspended queue holds back the blocks of every queue that targets it, directly or through another queue: none starts until it resumes, then all run; the suspended queue's own target runs on."
    static let source = """
        dispatch_suspend(3) in dispatch_object(3) ('suspends the invocation of blocks on a dispatch queue'); queue.h, \
        dispatch_set_target_queue ('the target queue determines ... which queue blocks of the object are invoked on': \
        a queue's blocks are invoked through its target, so a suspended target invokes none); libdispatch queue.c (a \
        queue with work wakes itself up onto its target and is drained from there)
        """
    static let forbidden: [Outcome] = [.ranWhileHeld, .missing]

    static func check<E: Engine>(_ engine: E) throws {
        for targetKind in [QueueKind.serial, .concurrent] {
            for childKind in [QueueKind.serial, .concurrent] {
                let name = "arena.suspend.through-target.\(targetKind).\(childKind)"
                let target = engine.makeQueue(label: name, kind: targetKind)
                let child = engine.makeQueue(label: "\(name).child", kind: childKind, startsInactive: false, target: target)
                let grandchild = engine.makeQueue(label: "\(name).grandchild", kind: .serial, startsInactive: false, target: child)

                // The top of the chain suspended: blocks of both queues below it are held.
                target.suspend()
                let ran = Counter()
                let count = 10
                let done = Latch(2 * count)
                for _ in 0..<count {
                    for queue in [child, grandchild] {
                        queue.async {
                            ran.add()
                            done.countDown()
                        }
                    }
                }
                Timing.pause(Timing.quietPeriod)
                let early = ran.value
                target.resume()
                try expect(
                    early == 0, .ranWhileHeld,
                    "\(targetKind) target suspended: \(early) of \(2 * count) blocks of queues targeting it (\(childKind), and a serial queue through it) ran"
                )
                try expectOpens(done, "\(targetKind) target: the \(2 * count) held blocks after resume()")

                // The middle of the chain suspended: the queue below it is held, the target's own blocks run. Fresh
                // queues, idle at the suspension: none has a drain under way that could still be running.
                let middle = engine.makeQueue(label: "\(name).middle", kind: childKind, startsInactive: false, target: target)
                let below = engine.makeQueue(label: "\(name).below", kind: .serial, startsInactive: false, target: middle)
                middle.suspend()
                let held = Counter()
                let heldDone = Latch(count)
                for _ in 0..<count {
                    below.async {
                        held.add()
                        heldDone.countDown()
                    }
                }
                let own = Latch()
                target.async { own.countDown() }
                let ownRan = own.wait(.seconds(5))
                Timing.pause(Timing.quietPeriod)
                let heldEarly = held.value
                middle.resume()
                try expect(
                    heldEarly == 0, .ranWhileHeld,
                    "\(childKind) queue suspended in the middle of a chain: \(heldEarly) of \(count) blocks of a queue targeting it ran")
                try expect(
                    ownRan, .missing, "\(childKind) queue suspended: a block of its (active) \(targetKind) target did not run within 5 s")
                try expectOpens(heldDone, "\(childKind) queue: the \(count) held blocks below it after resume()")
            }
        }
    }
}
