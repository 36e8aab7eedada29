import ArenaContract
import Harness

// What a queue runs when: its width, readiness on a serial queue, priorities, suspension, barriers.

enum OpMaxConcurrent: OperationRule {
    static let id = "op.max-concurrent"
    static let title =
        "A queue never runs more operations at once than maxConcurrentOperationCount (3, 2, 1), runs more than one at once at width 3, and at width 2 two operations that wait for each other meet; a new width applies to later starts."
    static let source =
        "Apple, OperationQueue.maxConcurrentOperationCount ('The maximum number of queued operations that can run at the same time … Reducing the number of concurrent operations does not affect any operations that are currently executing') and defaultMaxConcurrentOperationCount; [Concurrency Programming Guide] (setMaxConcurrentOperationCount:); swift-corelibs-foundation TestOperationQueue.swift test_ConcurrentOperations (two operations at width 2 wait for each other)"

    /// Runs `count` operations sleeping 5 ms at `width` and returns how many ran at once at most.
    private static func peak<L: OperationLayer>(_ layer: L, _ queue: L.Queue, width: Int, count: Int) throws -> Int {
        queue.maxConcurrentOperationCount = width
        try expect(
            queue.maxConcurrentOperationCount == width, .wrongState,
            "maxConcurrentOperationCount reads \(queue.maxConcurrentOperationCount) after it was set to \(width)")
        let meter = ConcurrencyMeter()
        let done = Latch(count)
        let ops = (0..<count).map { index in
            layer.makeBlockOperation(label: "arena.op.max-concurrent.\(width).\(index)") {
                meter.measure { Timing.pause(.milliseconds(5)) }
                done.countDown()
            }
        }
        queue.addOperations(ops, waitUntilFinished: false)
        try expectOpens(done, "\(count) sleeping operations at width \(width)")
        try expect(meter.maximum <= width, .overlap, "\(meter.maximum) operations ran at once at width \(width)")
        return meter.maximum
    }

    static let forbidden: [Outcome] = [.missing, .overlap, .serialized, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.max-concurrent")
        try expect(
            queue.maxConcurrentOperationCount == L.Queue.unlimited, .wrongState,
            "a new queue's maxConcurrentOperationCount is \(queue.maxConcurrentOperationCount), not unlimited (\(L.Queue.unlimited))")
        let atThree = try peak(layer, queue, width: 3, count: 30)
        try expect(atThree >= 2, .serialized, "at width 3, 30 sleeping operations ran one at a time")

        // At width 2, two operations that each wait for the other must be running at once.
        queue.maxConcurrentOperationCount = 2
        for round in 0..<3 {
            let arrived = Latch(2)
            let met = Counter()
            let done = Latch(2)
            for index in 0..<2 {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.max-concurrent.meet.\(round).\(index)") {
                        arrived.countDown()
                        if arrived.wait(.seconds(3)) { met.add() }
                        done.countDown()
                    })
            }
            try expectOpens(done, within: .seconds(8), "round \(round): two operations at width 2 finishing")
            try expect(met.value == 2, .serialized, "round \(round): at width 2, two operations waiting for each other never ran at once")
        }
        _ = try peak(layer, queue, width: 2, count: 16)
        _ = try peak(layer, queue, width: 1, count: 10)
    }
}

enum OpSerialReadiness: OperationRule {
    static let id = "op.serial-readiness"
    static let title =
        "At width 1 operations run one at a time, ready ones in order of addition; one added later but ready runs before an earlier one still waiting for its dependency."
    static let source =
        "[Concurrency Programming Guide] (Operation Queues: a serial operation queue orders operations by readiness, then priority, unlike a serial dispatch queue); Apple, OperationQueue ('If all of the queued operations have the same queuePriority and the isReady property returns true, the queue invokes them in the order you added them'); swift-corelibs-foundation TestOperationQueue.swift test_OperationOrder"

    static let forbidden: [Outcome] = [.missing, .lost, .overlap, .reordered]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.serial-readiness")
        queue.maxConcurrentOperationCount = 1
        let meter = ConcurrencyMeter()
        let cell = UnguardedCell()
        let order = Recorder<Int>()
        let count = 40
        let done = Latch(count)
        for index in 0..<count {
            queue.addOperation(
                layer.makeBlockOperation(label: "arena.op.serial-readiness.\(index)") {
                    meter.measure {
                        cell.value += 1
                        order.append(index)
                        Timing.linger(index, every: 8)
                    }
                    done.countDown()
                })
        }
        try expectOpens(done, "\(count) operations at width 1")
        try expect(meter.maximum == 1, .overlap, "\(meter.maximum) operations ran at once at width 1")
        try expect(cell.value == count, .lost, "\(count - cell.value) unguarded increments were lost at width 1")
        try expect(
            order.elements == Array(0..<count), .reordered,
            "ready operations of equal priority ran out of the order of addition: \(order.elements.prefix(12))…")

        let other = layer.makeQueue(label: "arena.op.serial-readiness.other")
        for round in 0..<5 {
            let gate = Latch()
            let ran = Recorder<String>()
            let laterRan = Latch()
            let bothRan = Latch(2)
            let dependency = layer.makeBlockOperation(label: "arena.op.serial-readiness.\(round).dependency") {
                gate.wait(.seconds(5))
                ran.append("dependency")
            }
            let waiting = layer.makeBlockOperation(label: "arena.op.serial-readiness.\(round).waiting") {
                ran.append("waiting")
                bothRan.countDown()
            }
            waiting.addDependency(dependency)
            let later = layer.makeBlockOperation(label: "arena.op.serial-readiness.\(round).later") {
                ran.append("later")
                laterRan.countDown()
                bothRan.countDown()
            }
            queue.addOperation(waiting)
            queue.addOperation(later)
            other.addOperation(dependency)
            let laterFirst = laterRan.wait(.seconds(2))
            gate.countDown()
            try expect(
                laterFirst, .missing,
                "round \(round): a ready operation added later did not run while the earlier one waited for its dependency (ran: \(ran.elements))"
            )
            try expectOpens(bothRan, "round \(round): the earlier operation once its dependency finished")
            try expect(ran.elements == ["later", "dependency", "waiting"], .reordered, "round \(round): ran in the order \(ran.elements)")
        }
    }
}

/// `priorities` in the order a width-1 queue must start them: higher priority first, equal ones in order of addition.
private func expectedOrder(_ priorities: [OperationPriority]) -> [Int] {
    priorities.indices.sorted { priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1 }
}

enum OpPriority: OperationRule {
    static let id = "op.priority"
    static let title =
        "Among the ready operations of a saturated or suspended width-1 queue, higher queuePriority starts first, equal ones in order of addition, even where a later one turned ready first."
    static let source =
        "Apple, OperationQueue ('the operation queue always invokes the operation with the highest priority relative to the other ready operations') and Operation.queuePriority; [Concurrency Programming Guide] (setQueuePriority:, only within one queue); swift-corelibs-foundation TestOperationQueue.swift test_OperationPriorities, test_OperationOrder2"

    static let forbidden: [Outcome] = [.missing, .reordered, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.priority")
        queue.maxConcurrentOperationCount = 1
        let levels = OperationPriority.allCases
        for round in 0..<4 {
            let priorities = (0..<15).map { levels[($0 * 3 + round) % levels.count] }
            let order = Recorder<Int>()
            let done = Latch(priorities.count)
            let ops = priorities.indices.map { index in
                let op = layer.makeBlockOperation(label: "arena.op.priority.\(round).\(index)") {
                    order.append(index)
                    done.countDown()
                }
                op.queuePriority = priorities[index]
                return op
            }
            try expect(ops.map(\.queuePriority) == priorities, .wrongValue, "round \(round): queuePriority does not read back what was set")
            let gate = Latch()
            let suspended = round % 2 == 0
            if suspended {
                queue.isSuspended = true
            } else {
                // Saturate the queue: its one slot is taken until the gate opens.
                let blocker = layer.makeBlockOperation(label: "arena.op.priority.\(round).blocker") { gate.wait(.seconds(5)) }
                blocker.queuePriority = .veryLow
                queue.addOperation(blocker)
                try expectEventually("round \(round): the blocking operation starting") { blocker.isExecuting }
            }
            for op in ops { queue.addOperation(op) }
            if suspended { queue.isSuspended = false } else { gate.countDown() }
            try expectOpens(done, "round \(round): \(priorities.count) operations of mixed priorities")
            let expected = expectedOrder(priorities)
            try expect(
                order.elements == expected, .reordered,
                "round \(round) (\(suspended ? "suspended" : "saturated")): ran \(order.elements.map { "\($0):\(priorities[$0])" }) (expected \(expected.map { "\($0):\(priorities[$0])" }))"
            )
        }
        try readyLate(layer, queue)
    }

    /// Order of addition, not of readiness: on a suspended queue, an operation whose dependency (on another queue)
    /// finishes after a later operation was added ready starts before that later one once the queue resumes. A ready
    /// list kept in the order operations turned ready would start the later one first.
    private static func readyLate<L: OperationLayer>(_ layer: L, _ queue: L.Queue) throws {
        let other = layer.makeQueue(label: "arena.op.priority.other")
        for round in 0..<3 {
            queue.isSuspended = true
            let order = Recorder<String>()
            let done = Latch(2)
            let recorded = { (name: String) in
                layer.makeBlockOperation(label: "arena.op.priority.late.\(round).\(name)") {
                    order.append(name)
                    done.countDown()
                }
            }
            let dependency = layer.makeBlockOperation(label: "arena.op.priority.late.\(round).dependency") {}
            let older = recorded("older")
            older.addDependency(dependency)
            let newer = recorded("newer")
            queue.addOperation(older)
            queue.addOperation(newer)
            other.addOperation(dependency)
            // The dependency's queue drained (its finish readied the older operation), and the older one reports ready.
            try expect(
                other.waitUntilAllOperationsAreFinished(until: .now() + .seconds(5)) == .success, .missing,
                "round \(round): the dependency on another queue did not finish within 5 s")
            try expectEventually("round \(round): the older operation reporting ready once its dependency finished") { older.isReady }
            queue.isSuspended = false
            try expectOpens(done, "round \(round): the two operations")
            try expect(
                order.elements == ["older", "newer"], .reordered,
                "round \(round): of two ready operations of equal priority, the older one (ready after the newer one was added) ran \(order.elements == ["newer", "older"] ? "second" : "as \(order.elements)")"
            )
        }
    }
}

enum OpPriorityChange: OperationRule {
    static let id = "op.priority-change"
    static let title = "Changing the queuePriority of an enqueued operation that has not started moves it among the ready ones."
    static let source =
        "Apple, Operation.queuePriority ('You should use priority values only as needed to classify the relative priority of non-dependent operations'; settable until the operation starts); Foundation's changePriority in swift-corelibs-foundation Operation.swift, which relinks an enqueued operation; [Concurrency Programming Guide] (setQueuePriority:)"

    static let forbidden: [Outcome] = [.missing, .reordered, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.priority-change")
        queue.maxConcurrentOperationCount = 1
        for round in 0..<4 {
            queue.isSuspended = true
            let order = Recorder<Int>()
            let done = Latch(5)
            let ops = (0..<5).map { index in
                layer.makeBlockOperation(label: "arena.op.priority-change.\(round).\(index)") {
                    order.append(index)
                    done.countDown()
                }
            }
            ops[4].queuePriority = .veryLow
            for op in ops { queue.addOperation(op) }
            // Enqueued and not started: the last is raised above all, the first lowered below the rest.
            ops[4].queuePriority = .veryHigh
            ops[0].queuePriority = .low
            try expect(
                ops[4].queuePriority == .veryHigh && ops[0].queuePriority == .low, .wrongValue,
                "round \(round): queuePriority of enqueued operations reads \(ops[4].queuePriority), \(ops[0].queuePriority) after it was set"
            )
            queue.isSuspended = false
            try expectOpens(done, "round \(round): 5 operations")
            try expect(
                order.elements == [4, 1, 2, 3, 0], .reordered,
                "round \(round): ran in the order \(order.elements) ([4, 1, 2, 3, 0]: the raised one first, the lowered one last)")
        }
    }
}

enum OpSuspend: OperationRule {
    static let id = "op.suspend"
    static let title =
        "A suspended queue starts nothing, ready, added or turning ready meanwhile (a dependency finishing elsewhere); an operation already running goes on; resuming starts what is ready."
    static let source =
        "Apple, OperationQueue.isSuspended: 'Setting this property to true prevents the queue from starting any queued operations, but already executing operations continue to execute'; [Concurrency Programming Guide] (suspending an operation queue does not pause operations already executing); swift-corelibs-foundation TestOperationQueue.swift test_isSuspended, test_OperationOrder"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.suspend")
        try expect(!queue.isSuspended, .wrongState, "a new queue reports isSuspended")
        for round in 0..<3 {
            let started = Latch()
            let stop = Latch()
            let ticks = Counter()
            let runner = layer.makeOperation(label: "arena.op.suspend.\(round).running") { _ in
                started.countDown()
                let end = Deadline.now() + .seconds(5)
                while !stop.isOpen && Deadline.now() < end {
                    ticks.add()
                    Timing.pause(.microseconds(200))
                }
            }
            queue.addOperation(runner)
            try expectOpens(started, "round \(round): the running operation starting")
            queue.isSuspended = true
            try expect(queue.isSuspended, .wrongState, "round \(round): isSuspended reads false after it was set")
            let atSuspend = ticks.value
            let ran = Counter()
            let count = 6
            let done = Latch(count)
            for index in 0..<count {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.suspend.\(round).\(index)") {
                        ran.add()
                        done.countDown()
                    })
            }
            Timing.pause(Timing.quietPeriod)
            try expect(ran.value == 0, .ranWhileHeld, "round \(round): \(ran.value) of \(count) operations started on a suspended queue")
            try expect(
                ticks.value > atSuspend, .ranWhileHeld,
                "round \(round): the running operation made no progress once its queue was suspended")
            stop.countDown()
            try expectEventually("round \(round): the running operation finishing on the suspended queue") { runner.isFinished }
            Timing.pause(Timing.quietPeriod)
            try expect(
                ran.value == 0, .ranWhileHeld,
                "round \(round): \(ran.value) of \(count) operations started on a suspended queue once the running one finished")
            queue.isSuspended = false
            try expect(!queue.isSuspended, .wrongState, "round \(round): isSuspended reads true after it was cleared")
            try expectOpens(done, "round \(round): the operations added while suspended, after resuming")
        }
        // An operation that turns ready while its queue is suspended (its dependency, on another queue, finishes
        // meanwhile) waits for the resume as well.
        let other = layer.makeQueue(label: "arena.op.suspend.other")
        let gate = Latch()
        let dependency = layer.makeBlockOperation(label: "arena.op.suspend.dependency") { gate.wait(.seconds(5)) }
        let dependentRan = Latch()
        let dependent = layer.makeBlockOperation(label: "arena.op.suspend.dependent") { dependentRan.countDown() }
        dependent.addDependency(dependency)
        queue.addOperation(dependent)
        other.addOperation(dependency)
        queue.isSuspended = true
        gate.countDown()
        try expectEventually("the dependency finishing on an unsuspended queue") { dependency.isFinished }
        Timing.pause(Timing.quietPeriod)
        try expect(
            !dependentRan.isOpen, .ranWhileHeld,
            "an operation whose dependency finished while its queue was suspended started before the queue was resumed")
        queue.isSuspended = false
        try expectOpens(dependentRan, "the operation that turned ready while its queue was suspended, after resuming")
    }
}

enum OpBarrierAfterEarlier: OperationRule {
    static let id = "op.barrier-after-earlier"
    static let title =
        "A barrier block runs only after every operation added before it finished (blocked, dependent and asynchronous ones too), and on an empty queue it runs."
    static let source =
        "Apple, OperationQueue.addBarrierBlock(_:): 'Invokes a block when the queue finishes all enqueued operations … The block to invoke after all currently enqueued operations have finished'; similar to dispatch_barrier_async; swift-corelibs-foundation Operation.swift (addBarrierBlock makes the barrier depend on every operation of the queue)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.barrier-after-earlier")
        let other = layer.makeQueue(label: "arena.op.barrier-after-earlier.other")
        let alone = Latch()
        queue.addBarrierBlock { alone.countDown() }
        try expectOpens(alone, "a barrier block on an empty queue")
        for round in 0..<10 {
            let finished = Counter()
            let seen = Recorder<Int>()
            let done = Latch()
            let asyncBox = FinishBox()
            defer { asyncBox.finish() }
            var earlier = 8
            for index in 0..<8 {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.barrier-after-earlier.\(round).\(index)") {
                        Timing.pause(.microseconds(500 + 250 * (index % 4)))
                        finished.add()
                    })
            }
            switch round % 3 {
            case 1:
                // One earlier operation waits for a dependency on another queue.
                let dependency = layer.makeBlockOperation(label: "arena.op.barrier-after-earlier.\(round).dependency") {
                    Timing.pause(.milliseconds(8))
                }
                let dependent = layer.makeBlockOperation(label: "arena.op.barrier-after-earlier.\(round).dependent") { finished.add() }
                dependent.addDependency(dependency)
                queue.addOperation(dependent)
                other.addOperation(dependency)
                earlier += 1
            case 2:
                // One earlier operation is asynchronous and finishes 8 ms after it started.
                queue.addOperation(
                    layer.makeAsynchronousOperation(label: "arena.op.barrier-after-earlier.\(round).asynchronous") { _, finish in
                        asyncBox.keep {
                            finished.add()
                            finish()
                        }
                        Threads.detach {
                            Timing.pause(.milliseconds(8))
                            asyncBox.finish()
                        }
                    })
                earlier += 1
            default: break
            }
            queue.addBarrierBlock {
                seen.append(finished.value)
                done.countDown()
            }
            try expectOpens(done, "round \(round): the barrier block")
            try expect(
                seen.elements == [earlier], .early,
                "round \(round): the barrier block ran with \(earlier - (seen.elements.first ?? 0)) of \(earlier) earlier operations unfinished"
            )
        }
    }
}

enum OpBarrierBeforeLater: OperationRule {
    static let id = "op.barrier-before-later"
    static let title =
        "No operation added after a barrier block starts before the block returned, whether added while earlier ones run or while the barrier itself runs."
    static let source =
        "Apple, OperationQueue.addBarrierBlock(_:): 'prevents subsequent operations from starting until the block has completed … Operations you add after the barrier block don't start until the block has completed'"

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.barrier-before-later")
        for round in 0..<10 {
            let barrierStarted = Latch()
            let barrierDone = Counter()
            let seen = Recorder<String>()
            let count = 8
            let done = Latch(count)
            for index in 0..<2 {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.barrier-before-later.\(round).earlier.\(index)") {
                        Timing.pause(.milliseconds(2))
                    })
            }
            queue.addBarrierBlock {
                barrierStarted.countDown()
                Timing.pause(.milliseconds(round % 2 == 0 ? 10 : 3))
                barrierDone.add()
            }
            func later(_ index: Int) -> L.Operation {
                layer.makeBlockOperation(label: "arena.op.barrier-before-later.\(round).later.\(index)") {
                    if barrierDone.value != 1 { seen.append("later operation \(index) started before the barrier block returned") }
                    done.countDown()
                }
            }
            // Half added before the barrier starts, half while it runs.
            for index in 0..<(count / 2) { queue.addOperation(later(index)) }
            try expectOpens(barrierStarted, "round \(round): the barrier block starting")
            for index in (count / 2)..<count { queue.addOperation(later(index)) }
            try expectOpens(done, "round \(round): \(count) operations added after the barrier")
            try expect(seen.count == 0, .wrongValue, "round \(round): \(seen.elements.prefix(3).joined(separator: "; "))")
        }
    }
}

enum OpBarrierWhileExecuting: OperationRule {
    static let id = "op.barrier-while-executing"
    static let title =
        "A barrier block added while an operation of its queue is executing (and others wait) starts only after all of them finished, and operations added after it start only after it finished."
    static let source = """
        Apple, OperationQueue.addBarrierBlock(_:) ('invokes a block when the queue finishes all enqueued operations, and \
        prevents subsequent operations from starting until the block has completed': executing operations are \
        enqueued ones); swift-corelibs-foundation Operation.swift (the barrier depends on every operation of the queue \
        not yet finished); the same contract as dispatch_barrier_async(3)
        """
    static let forbidden: [Outcome] = [.early, .ranWhileHeld, .missing]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.barrier-while-executing")
        for round in 0..<6 {
            // One operation executing, held until the check lets it go; then 0 to 2 quick ones, which the queue may
            // run beside it or after it (how many run at once is the queue's choice).
            let quick = round % 3
            let executing = 1 + quick
            let release = Latch()
            defer { release.countDown() }
            let running = Latch()
            let finished = Counter()
            queue.addOperation(
                layer.makeBlockOperation(label: "arena.op.barrier-while-executing.\(round).held") {
                    running.countDown()
                    release.wait(.seconds(5))
                    Timing.jitter(upTo: 300)
                    finished.add()
                })
            try expectOpens(running, "round \(round): an operation executing")
            for index in 0..<quick {
                queue.addOperation(layer.makeBlockOperation(label: "arena.op.barrier-while-executing.\(round).\(index)") { finished.add() })
            }
            let sawFinished = Locked<Int?>(nil)
            let barrierDone = Counter()
            let barrierRan = Latch()
            queue.addBarrierBlock {
                sawFinished.withLock { $0 = finished.value }
                Timing.pause(.milliseconds(1))
                barrierDone.add()
                barrierRan.countDown()
            }
            let later = 3
            let sawBarrier = Recorder<Int>()
            let laterDone = Latch(later)
            for index in 0..<later {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.barrier-while-executing.\(round).later.\(index)") {
                        sawBarrier.append(barrierDone.value)
                        laterDone.countDown()
                    })
            }
            Timing.pause(Timing.quietPeriod)
            let barrierEarly = barrierRan.isOpen
            let laterEarly = sawBarrier.count
            release.countDown()
            try expect(!barrierEarly, .early, "round \(round): the barrier block ran while an operation executing before it was held")
            try expect(laterEarly == 0, .ranWhileHeld, "round \(round): \(laterEarly) of \(later) operations added after the barrier ran")
            try expectOpens(barrierRan, "round \(round): the barrier block")
            try expectOpens(laterDone, "round \(round): the \(later) operations added after the barrier")
            let seen = sawFinished.snapshot ?? -1
            try expect(
                seen == executing, .early,
                "round \(round): the barrier block started with \(seen) of the \(executing) operations added before it finished")
            try expect(
                sawBarrier.elements.allSatisfy { $0 == 1 }, .ranWhileHeld,
                "round \(round): operations added after the barrier saw it finished \(sawBarrier.elements) times (1 each expected)")
        }
    }
}
