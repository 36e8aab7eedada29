import ArenaContract
import Harness

// Dependencies: an operation waits for the ones it depends on, on any queue; removing one; cycles.

enum OpDependency: OperationRule {
    static let id = "op.dependency"
    static let title = "An operation never starts before every one of its dependencies finished, whichever was added to the queue first."
    static let source =
        "Apple, Operation.addDependency(_:): 'The receiver is not considered ready to execute until all of its dependent operations have finished executing'; Operation.dependencies; [Concurrency Programming Guide] (configuring interoperation dependencies: cannot begin executing until the target finishes); swift-corelibs-foundation TestOperationQueue.swift test_ExecutionOrder, test_OperationDependencyCount"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongValue, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.dependency")
        for round in 0..<20 {
            let seen = Recorder<String>()
            if round % 2 == 0 {
                // Fan-in: one dependent on three, the dependent added first.
                let finished = Counter()
                let dependencies = (0..<3).map { index in
                    layer.makeBlockOperation(label: "arena.op.dependency.\(round).\(index)") {
                        Timing.pause(.microseconds(100 * (3 - index)))
                        Timing.jitter(upTo: 200)
                        finished.add()
                    }
                }
                let box = Locked<[L.Operation]>(dependencies)
                let done = Latch()
                let dependent = layer.makeBlockOperation(label: "arena.op.dependency.\(round).dependent") {
                    let unfinished = box.snapshot.filter { !$0.isFinished }.count
                    if finished.value != 3 || unfinished != 0 {
                        seen.append(
                            "round \(round): the dependent started with \(3 - finished.value) of 3 dependencies' work unfinished, \(unfinished) not reporting isFinished"
                        )
                    }
                    done.countDown()
                }
                for dependency in dependencies { dependent.addDependency(dependency) }
                try expect(
                    identities(dependent.dependencies) == identities(dependencies), .wrongValue,
                    "round \(round): dependencies lists \(dependent.dependencies.count) operations, not the 3 added in order")
                try expect(!dependent.isReady, .wrongState, "round \(round): an operation with 3 unfinished dependencies reports isReady")
                queue.addOperation(dependent)
                queue.addOperations(dependencies, waitUntilFinished: false)
                try expectOpens(done, "round \(round): the dependent")
                try expect(
                    identities(dependent.dependencies) == identities(dependencies), .wrongValue,
                    "round \(round): finished dependencies left the list (\(dependent.dependencies.count) of 3 listed)")
            } else {
                // A chain of five, added last first.
                let order = Recorder<Int>()
                let done = Latch(5)
                let chain = (0..<5).map { index in
                    layer.makeBlockOperation(label: "arena.op.dependency.\(round).chain.\(index)") {
                        Timing.jitter(upTo: 200)
                        order.append(index)
                        done.countDown()
                    }
                }
                for index in 1..<5 { chain[index].addDependency(chain[index - 1]) }
                for op in chain.reversed() { queue.addOperation(op) }
                try expectOpens(done, "round \(round): a chain of 5 dependent operations")
                if order.elements != Array(0..<5) {
                    seen.append("round \(round): a chain of 5 ran in the order \(order.elements)")
                }
            }
            try expect(seen.count == 0, .ranWhileHeld, seen.elements.joined(separator: "; "))
        }
    }
}

enum OpDependencyAcrossQueues: OperationRule {
    static let id = "op.dependency-across-queues"
    static let title = "A dependency on an operation of another queue holds as well: the dependent waits for it to finish there."
    static let source =
        "Apple, OperationQueue: 'Interoperation dependencies provide an absolute execution order for operations, even if those operations are located in different operation queues'; [Concurrency Programming Guide] (dependencies); swift-corelibs-foundation TestOperationQueue.swift test_CrossQueueDependency, test_WaitUntilFinished"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let first = layer.makeQueue(label: "arena.op.dependency-across-queues.first")
        let second = layer.makeQueue(label: "arena.op.dependency-across-queues.second")
        for round in 0..<12 {
            let gated = round < 4
            let gate = Latch()
            let finished = Counter()
            let started = Counter()
            let seen = Recorder<String>()
            let done = Latch()
            let dependency = layer.makeBlockOperation(label: "arena.op.dependency-across-queues.\(round).dependency") {
                if gated { gate.wait(.seconds(5)) } else { Timing.jitter(upTo: 300) }
                finished.add()
            }
            let box = Locked<L.Operation?>(dependency)
            let dependent = layer.makeBlockOperation(label: "arena.op.dependency-across-queues.\(round).dependent") {
                started.add()
                if finished.value != 1 || box.snapshot?.isFinished != true {
                    seen.append(
                        "round \(round): the dependent started with its dependency on the other queue \(finished.value == 1 ? "not reporting isFinished" : "still running")"
                    )
                }
                done.countDown()
            }
            dependent.addDependency(dependency)
            let (mine, theirs) = round % 2 == 0 ? (second, first) : (first, second)
            mine.addOperation(dependent)
            theirs.addOperation(dependency)
            if gated {
                Timing.pause(Timing.quietPeriod)
                try expect(
                    started.value == 0, .ranWhileHeld,
                    "round \(round): the dependent started while its dependency on the other queue was blocked")
                try expect(
                    !dependent.isReady, .wrongState,
                    "round \(round): the dependent reports isReady while its dependency runs on the other queue")
                gate.countDown()
            }
            try expectOpens(done, "round \(round): the dependent")
            box.withLock { $0 = nil }
            try expect(seen.count == 0, .ranWhileHeld, seen.elements.joined(separator: "; "))
        }
    }
}

enum OpRemoveDependency: OperationRule {
    static let id = "op.remove-dependency"
    static let title = "Removing an operation's last unfinished dependency makes it ready: waiting in its queue, it then starts."
    static let source =
        "Apple, Operation.removeDependency(_:) ('This method may change the isReady and dependencies properties of the receiver') and Operation.dependencies ('The only way to remove an operation from this list is to use the removeDependency(_:) method'); Operation.isReady; [Concurrency Programming Guide] (dependencies, addDependency: / removeDependency:)"
    static let needs: Set<Capability> = [.removeDependency]

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongValue, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.remove-dependency")
        let parked = layer.makeQueue(label: "arena.op.remove-dependency.parked")
        parked.isSuspended = true
        var leftovers: [L.Operation] = []
        defer {
            // A dependent the layer never started is cancelled, so that it clears; the parked dependencies run.
            for op in leftovers where !op.isFinished { op.cancel() }
            parked.isSuspended = false
        }
        for round in 0..<6 {
            // The removed dependency is on no queue, or waits on a suspended queue; the one kept has finished.
            let removed = layer.makeBlockOperation(label: "arena.op.remove-dependency.\(round).removed") {}
            let kept = layer.makeBlockOperation(label: "arena.op.remove-dependency.\(round).kept") {}
            let started = Counter()
            let ran = Latch()
            let op = layer.makeBlockOperation(label: "arena.op.remove-dependency.\(round)") {
                started.add()
                ran.countDown()
            }
            leftovers.append(op)
            op.addDependency(kept)
            op.addDependency(removed)
            if round % 2 == 1 { parked.addOperation(removed) }
            queue.addOperation(kept)
            queue.addOperation(op)
            try expectEventually("round \(round): the kept dependency finishing") { kept.isFinished }
            Timing.pause(Timing.quietPeriod)
            try expect(started.value == 0, .ranWhileHeld, "round \(round): the operation started with a dependency unfinished")
            try expect(!op.isReady, .wrongState, "round \(round): an operation with an unfinished dependency reports isReady")
            op.removeDependency(removed)
            try expect(
                identities(op.dependencies) == identities([kept]), .wrongValue,
                "round \(round): after removeDependency, dependencies lists \(op.dependencies.count) operations (the finished one expected)"
            )
            try expectEventually(
                within: .seconds(2), "round \(round): the operation reporting isReady after its last unfinished dependency was removed"
            ) {
                op.isReady
            }
            try expectOpens(
                ran, within: .seconds(2), "round \(round): the operation starting after its last unfinished dependency was removed")
        }
    }
}

enum OpDependencyCycle: OperationRule {
    static let id = "op.dependency-cycle"
    static let title =
        "Two operations that depend on each other never become ready (Foundation does not diagnose the cycle, it never starts them): the queue's other operations still run, and cancelling both clears them without their work."
    static let source =
        "Apple, Operation.addDependency(_:): 'It is a programmer error to create any circular dependencies among a set of operations. Doing so can cause a deadlock among the operations'; Foundation's behaviour, a bounded check (200 ms): swift-corelibs-foundation TestOperationQueue.swift test_DependencyCycleBreak (a cycle is broken by cancelling one of it); Operation.cancel()"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.dependency-cycle")
        let ran = Counter()
        let first = layer.makeBlockOperation(label: "arena.op.dependency-cycle.first") { ran.add() }
        let second = layer.makeBlockOperation(label: "arena.op.dependency-cycle.second") { ran.add() }
        first.addDependency(second)
        second.addDependency(first)
        let start = Deadline.now()
        queue.addOperation(first)
        queue.addOperation(second)
        let others = Latch(5)
        for index in 0..<5 {
            queue.addOperation(layer.makeBlockOperation(label: "arena.op.dependency-cycle.other.\(index)") { others.countDown() })
        }
        try expectOpens(others, "the queue's other operations beside a dependency cycle")
        let left = .milliseconds(200) - (Deadline.now() - start)
        if left > .zero { Timing.pause(left) }
        try expect(ran.value == 0, .ranWhileHeld, "an operation of a dependency cycle ran (\(ran.value) of 2)")
        try expect(
            !first.isReady && !second.isReady && !first.isExecuting && !second.isExecuting && !first.isFinished && !second.isFinished,
            .wrongState,
            "an operation of a dependency cycle reports isReady \(first.isReady)/\(second.isReady), isExecuting \(first.isExecuting)/\(second.isExecuting), isFinished \(first.isFinished)/\(second.isFinished)"
        )
        // Cancelled while the queue is suspended, neither can start before both are cancelled.
        queue.isSuspended = true
        first.cancel()
        second.cancel()
        queue.isSuspended = false
        try expectEventually("the cancelled operations of a dependency cycle finishing") { first.isFinished && second.isFinished }
        try expect(ran.value == 0, .ranWhileHeld, "\(ran.value) cancelled operations of a dependency cycle ran their work")
        let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
        try expect(drained.returns(), .missing, "waitUntilAllOperationsAreFinished did not return once the cycle was cancelled")
    }
}

enum OpDependencyOnFinished: OperationRule {
    static let id = "op.dependency-on-finished"
    static let title =
        "An operation that gains a dependency on one that already finished (it ran, or it was cancelled before it started and finished without running) is ready, and runs."
    static let source = """
        Apple, Operation.addDependency(_:) ('the receiver is not considered ready to execute until all of its dependent \
        operations have finished executing': a finished one holds nothing back) and Operation.cancel() (a cancelled \
        operation that was not executing finishes once a queue starts it); swift-corelibs-foundation Operation.swift \
        (addDependency counts only unfinished dependencies)
        """
    static let forbidden: [Outcome] = [.missing, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.dependency-on-finished")
        let other = layer.makeQueue(label: "arena.op.dependency-on-finished.other")
        for round in 0..<12 {
            let cancelledRan = Counter()
            let ran = layer.makeBlockOperation(label: "arena.op.dependency-on-finished.\(round).ran") {}
            let cancelled = layer.makeBlockOperation(label: "arena.op.dependency-on-finished.\(round).cancelled") { cancelledRan.add() }
            cancelled.cancel()
            other.addOperations([ran, cancelled], waitUntilFinished: false)
            try expectEventually(within: .seconds(5), "round \(round): an operation, and one cancelled before it started, finishing") {
                ran.isFinished && cancelled.isFinished
            }
            let done = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.dependency-on-finished.\(round).dependent") { done.countDown() }
            let what: String
            switch round % 3 {
            case 0:
                dependent.addDependency(ran)
                what = "an operation that ran"
            case 1:
                dependent.addDependency(cancelled)
                what = "an operation cancelled before it started"
            default:
                dependent.addDependency(ran)
                dependent.addDependency(cancelled)
                what = "an operation that ran and one cancelled before it started"
            }
            try expectEventually(
                within: .seconds(2), as: .wrongState, "round \(round): isReady of an operation depending only on \(what), finished"
            ) {
                dependent.isReady
            }
            // Half the rounds on a serial queue, where an unready head would also hold back what follows.
            if round % 2 == 1 { queue.maxConcurrentOperationCount = 1 } else { queue.maxConcurrentOperationCount = L.Queue.unlimited }
            queue.addOperation(dependent)
            try expectOpens(done, "round \(round): an operation depending only on \(what), finished, running")
            try expect(cancelledRan.value == 0, .wrongState, "round \(round): an operation cancelled before it started ran its work")
        }
    }
}
