import ArenaContract
import Harness

/// Target queues: a queue's blocks run through its target.
enum TargetRules: RuleFamily {
    static let concept = Concept.targets
    static let rules: [any ConformanceRule.Type] = [
        TargetSerializes.self, TargetWidth.self, TargetSetWhileInactive.self, TargetChangeBetweenBlocks.self,
        TargetChangeWhileRunning.self,
    ]
}

enum TargetSerializes: BehaviourRule {
    static let id = "target.serializes"
    static let title =
        "Queues (serial or concurrent) targeting one serial queue never run blocks at the same time as each other or as that queue's own blocks; each serial one keeps its order."
    static let source =
        "queue.h, dispatch_set_target_queue: 'will not be invoked concurrently with blocks submitted to the target queue or to any other queue with that same target queue'"

    static let forbidden: [Outcome] = [.missing, .overlap, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let hub = engine.makeQueue(label: "arena.target.serializes.hub")
        let spokes = [
            engine.makeQueue(label: "arena.target.serializes.s0", kind: .serial, startsInactive: false, target: hub),
            engine.makeQueue(label: "arena.target.serializes.s1", kind: .serial, startsInactive: false, target: hub),
            engine.makeQueue(label: "arena.target.serializes.c0", kind: .concurrent, startsInactive: false, target: hub),
            engine.makeQueue(label: "arena.target.serializes.c1", kind: .concurrent, startsInactive: false, target: hub),
        ]
        let meter = ConcurrencyMeter()
        let perQueue = 300
        let logs = (0..<2).map { _ in Recorder<Int>() }
        let done = Latch((spokes.count + 1) * perQueue)
        Threads.race(spokes.count + 1) { lane in
            let queue = lane < spokes.count ? spokes[lane] : hub
            for index in 0..<perQueue {
                queue.async {
                    meter.measure {
                        if lane < 2 { logs[lane].append(index) }
                        Timing.jitter(upTo: 5)
                        Timing.linger(index, every: 50)
                    }
                    done.countDown()
                }
            }
        }
        try expectOpens(done, "\((spokes.count + 1) * perQueue) blocks")
        try expect(meter.maximum == 1, .overlap, "\(meter.maximum) blocks ran at once under one serial target")
        for lane in 0..<2 {
            try expect(logs[lane].elements == Array(0..<perQueue), .reordered, "serial queue \(lane) lost its order under the target")
        }
    }
}

enum TargetWidth: BehaviourRule {
    static let id = "target.width"
    static let title = "The concurrency a queue reaches is at most the smallest width along its target chain."
    static let source =
        "[objc.io #2] (target queues: 'if a queue's target queue is serial, it effectively turns into a serial queue')"

    static let forbidden: [Outcome] = [.missing, .overlap, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        // concurrent → concurrent → serial: width 1 at the end of the chain.
        let serial = engine.makeQueue(label: "arena.target.width.serial")
        let middle = engine.makeQueue(label: "arena.target.width.middle", kind: .concurrent, startsInactive: false, target: serial)
        let top = engine.makeQueue(label: "arena.target.width.top", kind: .concurrent, startsInactive: false, target: middle)
        let meter = ConcurrencyMeter()
        let count = 400
        let done = Latch(count)
        for index in 0..<count {
            (index % 2 == 0 ? top : middle).async {
                meter.measure {
                    Timing.spin(.microseconds(20))
                    Timing.linger(index, every: 40)
                }
                done.countDown()
            }
        }
        try expectOpens(done, "\(count) blocks through a serial link")
        try expect(meter.maximum == 1, .overlap, "\(meter.maximum) blocks ran at once through a chain with a serial link")

        // concurrent → concurrent (global): both links are wide, so blocks can meet.
        let wide = engine.makeQueue(
            label: "arena.target.width.wide", kind: .concurrent, startsInactive: false,
            target: engine.makeQueue(label: "arena.target.width.wide-target", kind: .concurrent))
        try rendezvous(on: wide, "concurrent queue targeting a concurrent queue")
    }
}

enum TargetSetWhileInactive: BehaviourRule {
    static let id = "target.set-while-inactive"
    static let title = "A target set while a queue is inactive applies to every block, including blocks submitted before the change."
    static let source =
        "queue.h, dispatch_set_target_queue: 'if an object is inactive ... the target queue change takes effect immediately, and will affect blocks already associated'"

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<Int>("arena.target.set-while-inactive")
        let first = engine.makeQueue(label: "arena.target.inactive.first")
        let second = engine.makeQueue(label: "arena.target.inactive.second")
        first.setSpecific(key, 1)
        second.setSpecific(key, 2)
        for round in 0..<20 {
            let queue = engine.makeQueue(
                label: "arena.target.inactive.\(round)", kind: round % 2 == 0 ? .serial : .concurrent,
                startsInactive: true, target: first)
            let seen = Recorder<Int?>()
            let done = Latch(40)
            for _ in 0..<20 {
                queue.async {
                    seen.append(engine.currentSpecific(key)); done.countDown()
                }
            }
            queue.setTarget(second)
            for _ in 0..<20 {
                queue.async {
                    seen.append(engine.currentSpecific(key)); done.countDown()
                }
            }
            queue.activate()
            try expectOpens(done, "round \(round): 40 blocks after activation")
            let wrong = seen.elements.filter { $0 != 2 }
            try expect(
                wrong.isEmpty, .wrongPlace,
                "round \(round): \(wrong.count) of 40 blocks did not run through the target set while inactive (saw \(wrong.prefix(3)))")
        }
    }
}

enum TargetChangeBetweenBlocks: BehaviourRule {
    static let id = "target.change-between-blocks"
    static let title =
        "Changing the target of an active queue takes effect between blocks, never during one: blocks submitted after the change run through the new target. Known deviation of the reference: libdispatch through Swift terminates the process instead, so `system` lacks retarget-active-queues."
    static let source =
        "queue.h, dispatch_set_target_queue: 'changing the target queue of an object is an asynchronous operation ... doesn't affect blocks already associated'"
    static let needs: Set<Capability> = [.retargetActiveQueues]

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<Int>("arena.target.change-between-blocks")
        let targets = (0..<2).map { engine.makeQueue(label: "arena.target.change.\($0)") }
        targets[0].setSpecific(key, 0)
        targets[1].setSpecific(key, 1)
        let queue = engine.makeQueue(label: "arena.target.change", kind: .serial, startsInactive: false, target: targets[0])
        let torn = Counter()
        let seen = Recorder<(batch: Int, target: Int?)>()
        let batches = 10
        let done = Latch(batches * 50)
        for batch in 0..<batches {
            if batch > 0 { queue.setTarget(targets[batch % 2]) }
            for _ in 0..<50 {
                queue.async {
                    let before = engine.currentSpecific(key)
                    Timing.jitter(upTo: 20)
                    let after = engine.currentSpecific(key)
                    if before != after { torn.add() }
                    seen.append((batch, after))
                    done.countDown()
                }
            }
        }
        try expectOpens(done, "\(batches * 50) blocks across target changes")
        try expect(torn.value == 0, .wrongPlace, "\(torn.value) blocks saw their target change while they ran")
        let misrouted = seen.elements.filter { $0.target != $0.batch % 2 }
        try expect(
            misrouted.isEmpty, .wrongPlace,
            "\(misrouted.count) blocks ran through the target of another batch (first: batch \(misrouted.first.map { "\($0.batch) saw \(String(describing: $0.target))" } ?? ""))"
        )
    }
}

enum TargetChangeWhileRunning: BehaviourRule {
    static let id = "target.change-while-running"
    static let title =
        "Retargeting a serial queue while its block runs with nothing waiting behind it (from another thread, or from that block) waits for the block: it ends on its old chain and leaves the old serial target free, and the block submitted next runs through the new target, after it. Needs retarget-active-queues, as target.change-between-blocks."
    static let source =
        "queue.h, dispatch_set_target_queue: 'changing the target queue of an object is an asynchronous operation ... doesn't affect blocks already associated'; a serial queue runs one block at a time"
    static let needs: Set<Capability> = [.retargetActiveQueues]

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<Int>("arena.target.change-while-running")
        for (round, fromBlock) in [false, true, false, true].enumerated() {
            let label = "arena.target.change-while-running.\(round)"
            let old = engine.makeQueue(label: "\(label).old")
            let new = engine.makeQueue(label: "\(label).new")
            old.setSpecific(key, 0)
            new.setSpecific(key, 1)
            let queue = engine.makeQueue(label: label, kind: .serial, startsInactive: false, target: old)
            let running = Latch()
            let release = Latch()
            let firstEnded = Counter()
            let seen = Recorder<(block: Int, target: Int?)>()
            queue.async {
                seen.append((0, engine.currentSpecific(key)))
                if fromBlock { queue.setTarget(new) }
                running.countDown()
                release.wait(.seconds(5))
                seen.append((0, engine.currentSpecific(key)))
                firstEnded.add()
            }
            try expectOpens(running, "round \(round): the first block")
            if !fromBlock { queue.setTarget(new) }
            let overlapped = Counter()
            let second = Latch()
            queue.async {
                if firstEnded.value == 0 { overlapped.add() }
                seen.append((1, engine.currentSpecific(key)))
                second.countDown()
            }
            Timing.pause(.milliseconds(2))  // room for an engine that would start the second block at once
            release.countDown()
            let place = fromBlock ? "from the running block" : "from another thread"
            try expectOpens(second, "round \(round): the block submitted after a retarget \(place)")
            try expect(overlapped.value == 0, .overlap, "round \(round): retargeted \(place), the next block ran beside the running one")
            let wrong = seen.elements.filter { $0.target != $0.block }
            try expect(
                wrong.isEmpty, .wrongPlace,
                "round \(round): retargeted \(place): \(wrong.map { "block \($0.block) saw target \($0.target.map(String.init) ?? "none")" }.joined(separator: ", ")) (0: the old target, 1: the new)"
            )
            for (name, target) in [("old", old), ("new", new)] {
                let ran = Latch()
                target.async { ran.countDown() }
                try expectOpens(ran, "round \(round): a block on the \(name) serial target once the retargeted queue's blocks ended")
            }
        }
    }
}
