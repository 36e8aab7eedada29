import ArenaContract
import Harness

// Waiting: for one operation, for a whole queue, while adding; the queue's operation count.

enum OpWaitUntilFinished: OperationRule {
    static let id = "op.wait-until-finished"
    static let title = "waitUntilFinished returns only once the operation finished, to every waiter, and at once for a finished operation."
    static let source =
        "Apple, Operation.waitUntilFinished() ('Blocks execution of the current thread until the operation object finishes its task'); [Concurrency Programming Guide] (waitUntilFinished of NSOperation); swift-corelibs-foundation TestOperationQueue.swift test_OperationWaitUntilFinished"

    static let forbidden: [Outcome] = [.missing, .early, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.wait-until-finished")
        for round in 0..<10 {
            let gate = Latch()
            let finished = Counter()
            let op = layer.makeBlockOperation(label: "arena.op.wait-until-finished.\(round)") {
                gate.wait(.seconds(5))
                Timing.jitter(upTo: 100)
                finished.add()
            }
            queue.addOperation(op)
            let seen = Recorder<String>()
            let waiters = (0..<3).map { _ in
                BlockingCall {
                    op.waitUntilFinished()
                    if finished.value != 1 || !op.isFinished {
                        seen.append(
                            "a waiter returned with the work \(finished.value == 1 ? "done" : "unfinished"), isFinished \(op.isFinished)")
                    }
                }
            }
            Timing.pause(round < 3 ? Timing.quietPeriod : .milliseconds(1))
            try expect(
                !waiters.contains(where: \.hasReturned), .early,
                "round \(round): waitUntilFinished returned while the operation was blocked")
            gate.countDown()
            for waiter in waiters { try expect(waiter.returns(), .missing, "round \(round): waitUntilFinished did not return within 5 s") }
            try expect(seen.count == 0, .wrongValue, "round \(round): \(seen.elements.joined(separator: "; "))")
            // Waiters on the operation now finished.
            let many = (0..<3).map { _ in BlockingCall { op.waitUntilFinished() } }
            for waiter in many {
                try expect(
                    waiter.returns(within: .seconds(2)), .missing,
                    "round \(round): waitUntilFinished on a finished operation did not return")
            }
        }
    }
}

enum OpWaitAll: OperationRule {
    static let id = "op.wait-all"
    static let title =
        "waitUntilAllOperationsAreFinished returns only after every operation added before it finished (dependent, asynchronous, blocked ones too), and at once on an empty queue."
    static let source =
        "Apple, OperationQueue.waitUntilAllOperationsAreFinished() ('Blocks the current thread until all the receiver's queued and executing operations finish executing… If there are no operations in the queue, this method returns immediately'); [Concurrency Programming Guide] (waitUntilAllOperationsAreFinished); swift-corelibs-foundation TestOperationQueue.swift test_WaitUntilFinished, test_OperationCount"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.wait-all")
        let empty = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
        try expect(empty.returns(within: .seconds(2)), .missing, "waitUntilAllOperationsAreFinished on an empty queue did not return")
        for round in 0..<6 {
            queue.maxConcurrentOperationCount = round % 2 == 0 ? L.Queue.unlimited : 1
            let gate = Latch()
            let finished = Counter()
            let asyncBox = FinishBox()
            defer { asyncBox.finish() }
            var ops: [L.Operation] = []
            for index in 0..<12 {
                ops.append(
                    layer.makeBlockOperation(label: "arena.op.wait-all.\(round).\(index)") {
                        Timing.jitter(upTo: 300)
                        finished.add()
                    })
                if index > 0 && index % 4 == 0 { ops[index].addDependency(ops[index - 1]) }
            }
            ops.append(
                layer.makeBlockOperation(label: "arena.op.wait-all.\(round).gated") {
                    gate.wait(.seconds(5))
                    finished.add()
                })
            ops.append(
                layer.makeAsynchronousOperation(label: "arena.op.wait-all.\(round).asynchronous") { _, finish in
                    asyncBox.keep {
                        finished.add()
                        finish()
                    }
                })
            for op in ops { queue.addOperation(op) }
            let total = ops.count
            let seen = Locked<Int?>(nil)
            let waiter = BlockingCall {
                queue.waitUntilAllOperationsAreFinished()
                seen.withLock { $0 = finished.value }
            }
            Timing.pause(round < 2 ? Timing.quietPeriod : .milliseconds(2))
            try expect(
                !waiter.hasReturned, .early,
                "round \(round): waitUntilAllOperationsAreFinished returned with \(total - finished.value) of \(total) operations unfinished (one blocked)"
            )
            gate.countDown()
            if round % 2 == 0 {
                try expectOpens(asyncBox.hasStarted, "round \(round): the asynchronous operation starting")
                Timing.pause(.milliseconds(2))
                try expect(
                    !waiter.hasReturned, .early,
                    "round \(round): waitUntilAllOperationsAreFinished returned while an asynchronous operation had not called finish")
            }
            Threads.detach {
                asyncBox.hasStarted.wait(.seconds(5))
                Timing.pause(.milliseconds(1))
                asyncBox.finish()
            }
            try expect(waiter.returns(), .missing, "round \(round): waitUntilAllOperationsAreFinished did not return within 5 s")
            try expect(
                seen.snapshot == total, .early,
                "round \(round): waitUntilAllOperationsAreFinished returned with \(total - (seen.snapshot ?? 0)) of \(total) operations unfinished"
            )
        }
    }
}

enum OpAddWaiting: OperationRule {
    static let id = "op.add-waiting"
    static let title = "addOperations with waitUntilFinished returns only after every operation it added finished; without it, at once."
    static let source =
        "Apple, OperationQueue.addOperations(_:waitUntilFinished:): 'If true, the current thread is blocked until all of the specified operations finish executing. If false, the operations are added to the queue and control returns immediately to the caller'; [Concurrency Programming Guide] (addOperations:waitUntilFinished:); swift-corelibs-foundation TestOperationQueue.swift test_OperationPriorities"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.add-waiting")
        for round in 0..<8 {
            let waits = round % 2 == 0
            let gate = Latch()
            let finished = Counter()
            let count = 6
            let ops = (0..<count).map { index in
                layer.makeBlockOperation(label: "arena.op.add-waiting.\(round).\(index)") {
                    if index == count - 1 { gate.wait(.seconds(5)) } else { Timing.jitter(upTo: 300) }
                    finished.add()
                }
            }
            if round % 4 == 1 { ops[2].addDependency(ops[count - 1]) }
            let seen = Locked<Int?>(nil)
            let call = BlockingCall {
                queue.addOperations(ops, waitUntilFinished: waits)
                seen.withLock { $0 = finished.value }
            }
            if waits {
                Timing.pause(round < 4 ? Timing.quietPeriod : .milliseconds(2))
                try expect(
                    !call.hasReturned, .early,
                    "round \(round): addOperations(waitUntilFinished: true) returned with an operation it added still blocked")
                gate.countDown()
                try expect(call.returns(), .missing, "round \(round): addOperations(waitUntilFinished: true) did not return within 5 s")
                try expect(
                    seen.snapshot == count, .early,
                    "round \(round): addOperations(waitUntilFinished: true) returned with \(count - (seen.snapshot ?? 0)) of \(count) unfinished"
                )
            } else {
                let returned = call.returns(within: .seconds(2))
                gate.countDown()
                try expect(
                    returned, .missing,
                    "round \(round): addOperations(waitUntilFinished: false) did not return while an operation it added was blocked")
                let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
                try expect(drained.returns(), .missing, "round \(round): the operations added without waiting did not finish")
            }
        }
    }
}

enum OpOperationCount: OperationRule {
    static let id = "op.operation-count"
    static let title =
        "operationCount counts the operations added and not yet finished: waiting, suspended or running; it falls as they finish, to 0."
    static let source =
        "Apple, OperationQueue.operationCount ('The number of operations currently in the queue … Because the number of operations in the queue changes as those operations finish executing, the value returned by this property reflects the instantaneous number'); swift-corelibs-foundation TestOperationQueue.swift test_OperationCount, test_OperationWaitUntilFinished"

    static let forbidden: [Outcome] = [.missing, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.operation-count")
        try expect(queue.operationCount == 0, .wrongState, "a new queue counts \(queue.operationCount) operations")
        for round in 0..<3 {
            queue.isSuspended = true
            let first = Latch()
            let second = Latch()
            var added = 0
            func gated(_ index: Int, _ gate: Latch) -> L.Operation {
                layer.makeBlockOperation(label: "arena.op.operation-count.\(round).\(index)") { gate.wait(.seconds(5)) }
            }
            for index in 0..<4 { queue.addOperation(gated(index, first)) }
            added += 4
            try expect(
                queue.operationCount == added, .wrongState,
                "round \(round): \(queue.operationCount) operations counted after \(added) were added to a suspended queue")
            queue.addOperations((4..<7).map { gated($0, second) }, waitUntilFinished: false)
            added += 3
            try expect(
                queue.operationCount == added, .wrongState,
                "round \(round): \(queue.operationCount) operations counted after \(added) were added (3 by addOperations)")
            queue.addOperation { second.wait(.seconds(5)) }
            added += 1
            try expect(
                queue.operationCount == added, .wrongState,
                "round \(round): \(queue.operationCount) operations counted after \(added) were added (1 as a block)")
            queue.isSuspended = false
            Timing.pause(.milliseconds(5))
            try expect(
                queue.operationCount == added, .wrongState,
                "round \(round): \(queue.operationCount) operations counted with \(added) running or waiting, none finished")
            first.countDown()
            try expectEventually(
                "round \(round): operationCount falling to 4 once 4 of \(added) finished (\(queue.operationCount) counted)"
            ) {
                queue.operationCount == 4
            }
            second.countDown()
            try expectEventually("round \(round): operationCount falling to 0 once all finished (\(queue.operationCount) counted)") {
                queue.operationCount == 0
            }
        }
    }
}

enum OpWaitWhileFinishing: OperationRule {
    static let id = "op.wait-while-finishing"
    static let title =
        "waitUntilFinished called just as the operation finishes (racing the end of its work) returns, and only once the operation finished: a wait that lands on either side of the finish, or in the middle of it, is neither lost nor early (400 rounds)."
    static let source =
        "Apple, Operation.waitUntilFinished() ('Blocks execution of the current thread until the operation object finishes its task'); swift-corelibs-foundation Operation.swift (waitUntilFinished on a finished operation returns at once)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.wait-while-finishing")
        let rounds = 400
        let reached = Counter()
        let stuck = Counter()
        let early = Recorder<Int>()
        // One thread waits in every round (waitUntilFinished has no deadline): the check waits for that thread with one.
        let waiter = BlockingCall {
            for round in 0..<rounds {
                reached.add()
                let started = Latch()
                let go = Counter()
                let finished = Counter()
                let op = layer.makeBlockOperation(label: "arena.op.wait-while-finishing.\(round)") {
                    // The work spins until the waiter comes, so that the wait and the end of the work are 0 to 10 µs
                    // apart either way; the waiter, second to arrive, is woken (a spinning waiter could keep the work
                    // from the CPU it waits for).
                    started.countDown()
                    Timing.spinUntil(.milliseconds(200)) { go.value > 0 }
                    Timing.jitter(upTo: 10)
                    finished.add()
                }
                queue.addOperation(op)
                guard started.wait(.seconds(5)) else {
                    stuck.add()
                    return
                }
                go.add()
                Timing.jitter(upTo: 10)
                op.waitUntilFinished()
                if finished.value == 0 || !op.isFinished { early.append(round) }
            }
        }
        try expect(
            waiter.returns(within: .seconds(20)), .missing,
            "waitUntilFinished racing the finish did not return within 20 s (round \(reached.value - 1) of \(rounds))")
        try expect(stuck.value == 0, .missing, "an operation did not start within 5 s (round \(reached.value - 1))")
        try expect(
            early.count == 0, .early,
            "\(early.count) of \(rounds) waits returned before their operation finished (first: round \(early.elements.first ?? -1))")
    }
}
