import ArenaContract
import Harness

// Cancellation: of an operation not yet started, of one running, of a whole queue.

enum OpCancelUnstarted: OperationRule {
    static let id = "op.cancel-unstarted"
    static let title =
        "An operation cancelled before it starts finishes without running its work (block, main or start), and its dependents then run."
    static let source =
        "Apple, Operation.cancel() and OperationQueue ('For operations that are queued but not yet executing, the queue must still call the operation object's start method so that it can processes the cancellation event and mark itself as finished'); [Concurrency Programming Guide] (canceling operations; start checks isCancelled first); swift-corelibs-foundation TestOperationQueue.swift test_CancelDependency, test_CancelWhileSuspended, test_CancelOneOperation"

    static let forbidden: [Outcome] = [.missing, .lost, .wrongValue, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.cancel-unstarted")
        let after = layer.makeQueue(label: "arena.op.cancel-unstarted.after")
        for round in 0..<4 {
            queue.isSuspended = true
            let count = 12
            let bodies = IndexCounters(count)
            let seen = Recorder<String>()
            let dependentsRan = Latch(count)
            var ops: [L.Operation] = []
            for index in 0..<count {
                let label = "arena.op.cancel-unstarted.\(round).\(index)"
                let op: L.Operation =
                    switch index % 3 {
                    case 0: layer.makeBlockOperation(label: label) { bodies.hit(index) }
                    case 1: layer.makeOperation(label: label) { _ in bodies.hit(index) }
                    default:
                        layer.makeAsynchronousOperation(label: label) { _, finish in
                            bodies.hit(index)
                            finish()
                        }
                    }
                let box = Locked<L.Operation?>(op)
                let dependent = layer.makeBlockOperation(label: label + ".dependent") {
                    if box.snapshot?.isFinished != true { seen.append("\(index): its dependent started before it finished") }
                    box.withLock { $0 = nil }
                    dependentsRan.countDown()
                }
                dependent.addDependency(op)
                after.addOperation(dependent)
                ops.append(op)
            }
            // Two cancelled before they are enqueued at all, then half of the rest on the suspended queue.
            for op in ops[(count - 2)...] {
                op.cancel()
                try expect(
                    op.isCancelled && !op.isFinished && !op.isExecuting, .wrongState,
                    "round \(round): an operation cancelled on no queue reports isCancelled \(op.isCancelled), isFinished \(op.isFinished), isExecuting \(op.isExecuting) (true, false, false expected)"
                )
            }
            queue.addOperations(Array(ops[..<(count - 2)]), waitUntilFinished: false)
            for index in stride(from: 0, to: count - 2, by: 2) { ops[index].cancel() }
            for op in ops[(count - 2)...] { queue.addOperation(op) }
            queue.isSuspended = false
            try expectOpens(dependentsRan, "round \(round): the dependents of \(count) operations, some cancelled")
            for (index, op) in ops.enumerated() {
                let cancelled = index % 2 == 0 || index >= count - 2
                try expectEventually(
                    "round \(round): operation \(index) (\(cancelled ? "cancelled" : "not cancelled")) reporting isFinished"
                ) { op.isFinished }
                try expect(
                    op.isCancelled == cancelled && !op.isExecuting, .wrongState,
                    "round \(round): operation \(index) reports isCancelled \(op.isCancelled), isExecuting \(op.isExecuting)")
                try expect(
                    bodies.hits(index) == (cancelled ? 0 : 1), .lost,
                    "round \(round): the work of \(cancelled ? "cancelled" : "uncancelled") operation \(index) (\(["block", "main", "start"][index % 3])) ran \(bodies.hits(index)) times"
                )
            }
            try expect(seen.count == 0, .wrongValue, "round \(round): \(seen.elements.joined(separator: "; "))")
        }
    }
}

enum OpCancelIgnoresDependencies: OperationRule {
    static let id = "op.cancel-ignores-dependencies"
    static let title =
        "Cancelling an enqueued operation that waits for unfinished dependencies lets it finish at once, without its work, and its own dependents run."
    static let source =
        "Apple, Operation.cancel(): 'if an operation is in a queue but waiting on unfinished dependent operations, those operations are subsequently ignored. Because it is already cancelled, this behavior allows the operation queue to call the operation's start() method sooner and clear the object out of the queue'; swift-corelibs-foundation TestOperationQueue.swift test_DependencyCycleBreak, test_Lifecycle"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.cancel-ignores-dependencies")
        let parked = layer.makeQueue(label: "arena.op.cancel-ignores-dependencies.parked")
        parked.isSuspended = true
        // Every operation stays alive until the parked dependencies ran: the check is about readiness, not about a
        // dependency outliving its dependents (swift-corelibs-foundation keeps dependents unretained, and touches
        // them when the dependency finishes).
        var kept: [L.Operation] = []
        defer {
            parked.isSuspended = false
            _ = BlockingCall { parked.waitUntilAllOperationsAreFinished() }.returns()
            withExtendedLifetime(kept) {}
        }
        for round in 0..<6 {
            // The dependency never finishes while the check looks: it is on no queue, or on a suspended one.
            let blocker = layer.makeBlockOperation(label: "arena.op.cancel-ignores-dependencies.\(round).blocker") {}
            if round % 2 == 1 { parked.addOperation(blocker) }
            let ran = Counter()
            let op = layer.makeBlockOperation(label: "arena.op.cancel-ignores-dependencies.\(round)") { ran.add() }
            op.addDependency(blocker)
            let dependentRan = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.cancel-ignores-dependencies.\(round).dependent") {
                dependentRan.countDown()
            }
            dependent.addDependency(op)
            kept += [blocker, op, dependent]
            queue.addOperation(op)
            queue.addOperation(dependent)
            Timing.pause(.milliseconds(5))
            try expect(
                !op.isFinished && ran.value == 0, .ranWhileHeld,
                "round \(round): an operation with an unfinished dependency ran or finished")
            op.cancel()
            try expectEventually(
                within: .seconds(2), "round \(round): the cancelled operation finishing while its dependency is still unfinished"
            ) {
                op.isFinished
            }
            try expectOpens(dependentRan, within: .seconds(2), "round \(round): the dependent of the cancelled operation")
            try expect(ran.value == 0, .ranWhileHeld, "round \(round): the cancelled operation's work ran")
            try expect(!blocker.isFinished, .setup, "round \(round): the dependency finished, so the check proved nothing")
        }
    }
}

enum OpCancelRunning: OperationRule {
    static let id = "op.cancel-running"
    static let title =
        "Cancelling a running operation sets isCancelled, which its work sees; the work decides when to return, and the operation then finishes."
    static let source =
        "Apple, Operation.cancel(): 'This method does not force your operation code to stop. Instead, it updates the object's internal flags to reflect the change in state'; [Concurrency Programming Guide] (Listing 2-4, responding to a cancellation request: main loops while !isCancelled)"

    static let forbidden: [Outcome] = [.missing, .early, .ranWhileHeld, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.cancel-running")
        for round in 0..<10 {
            let started = Latch()
            let observed = Counter()
            let returned = Counter()
            let op = layer.makeOperation(label: "arena.op.cancel-running.\(round)") { me in
                started.countDown()
                let end = Deadline.now() + .seconds(5)
                while !me.isCancelled && Deadline.now() < end { Timing.spin(.microseconds(50)) }
                if me.isCancelled { observed.add() }
                returned.add()
            }
            queue.addOperation(op)
            try expectOpens(started, "round \(round): the operation starting")
            try expect(
                !op.isCancelled && op.isExecuting, .wrongState,
                "round \(round): a running operation reports isCancelled \(op.isCancelled), isExecuting \(op.isExecuting) (false, true expected)"
            )
            if round % 2 == 1 { Timing.pause(.milliseconds(2)) }
            op.cancel()
            try expect(op.isCancelled, .wrongState, "round \(round): isCancelled is false right after cancel()")
            try expectEventually(within: .seconds(3), "round \(round): the cancelled running operation finishing") { op.isFinished }
            try expect(
                observed.value == 1, .ranWhileHeld,
                "round \(round): the running work never saw isCancelled (it returned after its 5 s bound)")
            try expect(returned.value == 1, .early, "round \(round): the operation finished before its work returned")
            op.cancel()
            try expect(op.isCancelled && op.isFinished, .wrongState, "round \(round): cancelling a finished operation changed it")
        }
    }
}

enum OpCancelAll: OperationRule {
    static let id = "op.cancel-all"
    static let title =
        "cancelAllOperations cancels every operation of the queue: none that had not started runs its work, all finish and run their completion blocks, the running one sees isCancelled."
    static let source =
        "Apple, OperationQueue.cancelAllOperations() ('This method calls the cancel() method on all operations currently in the queue'); [Concurrency Programming Guide] (cancel or cancelAllOperations is the only way to dequeue); swift-corelibs-foundation TestOperationQueue.swift test_CancelOperationsOfSpecificQueuePriority, test_CurrentQueueOnBackgroundQueueWithSelfCancel"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongValue, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.cancel-all")
        queue.maxConcurrentOperationCount = 1
        let after = layer.makeQueue(label: "arena.op.cancel-all.after")
        for round in 0..<4 {
            let gate = Latch()
            let started = Latch()
            let sawCancelled = Counter()
            let runnerReturned = Counter()
            let runner = layer.makeOperation(label: "arena.op.cancel-all.\(round).running") { me in
                started.countDown()
                gate.wait(.seconds(5))
                if me.isCancelled { sawCancelled.add() }
                runnerReturned.add()
            }
            let count = 15
            let bodies = IndexCounters(count)
            let completions = Latch(count + 1)
            let completionRuns = Counter()
            runner.completionBlock = {
                completionRuns.add()
                completions.countDown()
            }
            var ops: [L.Operation] = []
            for index in 0..<count {
                let label = "arena.op.cancel-all.\(round).\(index)"
                let op: L.Operation =
                    switch index % 3 {
                    case 0: layer.makeBlockOperation(label: label) { bodies.hit(index) }
                    case 1: layer.makeOperation(label: label) { _ in bodies.hit(index) }
                    default:
                        layer.makeAsynchronousOperation(label: label) { _, finish in
                            bodies.hit(index)
                            finish()
                        }
                    }
                op.completionBlock = {
                    completionRuns.add()
                    completions.countDown()
                }
                ops.append(op)
            }
            let dependentRan = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.cancel-all.\(round).dependent") { dependentRan.countDown() }
            dependent.addDependency(ops[count / 2])
            after.addOperation(dependent)
            queue.addOperation(runner)
            try expectOpens(started, "round \(round): the first operation starting")
            queue.addOperations(ops, waitUntilFinished: false)
            queue.cancelAllOperations()
            try expect(
                runner.isCancelled && ops.allSatisfy(\.isCancelled), .wrongState,
                "round \(round): after cancelAllOperations \(ops.filter { !$0.isCancelled }.count + (runner.isCancelled ? 0 : 1)) of \(count + 1) operations report isCancelled false"
            )
            gate.countDown()
            try expectOpens(completions, "round \(round): the completion blocks of \(count + 1) cancelled operations")
            try expectOpens(dependentRan, "round \(round): the dependent of a cancelled operation")
            for (index, op) in ops.enumerated() {
                try expectEventually("round \(round): cancelled operation \(index) reporting isFinished") { op.isFinished }
            }
            try expectEventually("round \(round): the running operation finishing") { runner.isFinished }
            let ranWork = (0..<count).filter { bodies.hits($0) > 0 }
            try expect(ranWork.isEmpty, .ranWhileHeld, "round \(round): the work of cancelled unstarted operations \(ranWork) ran")
            try expect(
                sawCancelled.value == 1 && runnerReturned.value == 1, .wrongValue,
                "round \(round): the running operation \(runnerReturned.value == 1 ? "ran to its end" : "was cut short") and \(sawCancelled.value == 1 ? "saw" : "did not see") isCancelled"
            )
            Timing.pause(.milliseconds(2))
            try expect(
                completionRuns.value == count + 1, .wrongValue,
                "round \(round): \(completionRuns.value) completion blocks ran for \(count + 1) operations")
        }
    }
}
