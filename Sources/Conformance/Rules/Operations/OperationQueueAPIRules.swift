import ArenaContract
import Harness

/// The rest of `OperationQueue`'s API: the current queue, the list of operations, underlying dispatch queues, the main
/// operation queue, operations started by hand, and the contract's waits with a deadline (which Foundation lacks).
/// Listed in `OperationRules`, after the scheduling, cancellation and wait rules.

enum OpCurrentQueue: OperationRule {
    static let id = "op.current-queue"
    static let title =
        "currentQueue, read in an operation's work (block, main body, asynchronous start), is the queue running it; on a plain thread, and in an operation started by hand there, it is nil."
    static let source =
        "Apple, OperationQueue.current ('Returns the operation queue that launched the current operation … or nil if the queue could not be determined'); swift-corelibs-foundation TestOperationQueue.swift test_CurrentQueueOnBackgroundQueue, test_CurrentQueueOnBackgroundQueueWithSelfCancel, test_CurrentQueueWithCustomUnderlyingQueue"
    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queues = [layer.makeQueue(label: "arena.op.current-queue.a"), layer.makeQueue(label: "arena.op.current-queue.b")]
        let wrong = Recorder<String>()
        for round in 0..<4 {
            for (index, queue) in queues.enumerated() {
                queue.maxConcurrentOperationCount = round % 2 == 0 ? L.Queue.unlimited : 1
                @Sendable func seen(_ what: String) {
                    if layer.currentQueue !== queue { wrong.append("round \(round): \(what) on queue \(index) saw another queue") }
                }
                var ops: [L.Operation] = []
                for item in 0..<6 {
                    ops.append(
                        layer.makeBlockOperation(label: "arena.op.current-queue.\(round).\(index).\(item)") { seen("a block operation") })
                }
                ops.append(layer.makeOperation(label: "arena.op.current-queue.\(round).\(index).main") { _ in seen("a main body") })
                ops.append(
                    layer.makeAsynchronousOperation(label: "arena.op.current-queue.\(round).\(index).async") { _, finish in
                        seen("an asynchronous start")
                        finish()
                    })
                queue.addOperations(ops, waitUntilFinished: false)
                queue.addOperation { seen("a block added with addOperation") }
            }
            for queue in queues {
                let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
                try expect(drained.returns(), .missing, "round \(round): the operations did not finish within 5 s")
            }
        }
        try expect(wrong.count == 0, .wrongPlace, wrong.elements.prefix(4).joined(separator: "; "))
        // Off any queue: a plain thread (never the process's main thread, where Foundation answers its main queue).
        let outside = Locked<Bool?>(nil)
        let inStarted = Locked<Bool?>(nil)
        let plain = BlockingCall {
            outside.withLock { $0 = layer.currentQueue == nil }
            let op = layer.makeOperation(label: "arena.op.current-queue.by-hand") { _ in
                inStarted.withLock { $0 = layer.currentQueue == nil }
            }
            op.start()
        }
        try expect(plain.returns(), .missing, "a plain thread reading currentQueue and starting an operation did not return")
        try expect(outside.snapshot == true, .wrongPlace, "currentQueue on a plain thread was a queue, not nil")
        try expect(inStarted.snapshot == true, .wrongPlace, "currentQueue in an operation started by hand on a plain thread was a queue")
    }
}

enum OpOperationsList: OperationRule {
    static let id = "op.operations-list"
    static let title =
        "operations lists the operations added and not yet finished, waiting or running, in the order added (blocks added as blocks too, barriers not); a finished one leaves it, and a drained queue lists none."
    static let source =
        "Apple, OperationQueue.operations ('The operations currently in the queue … An array of operations in the order they were added to the queue'); swift-corelibs-foundation Operation.swift (_operations(includingBarriers: false)) and TestOperationQueue.swift test_OperationCount"
    static let forbidden: [Outcome] = [.wrongState, .reordered, .missing]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.operations-list")
        try expect(queue.operations.isEmpty, .wrongState, "a new queue listed \(queue.operations.count) operations")
        for round in 0..<3 {
            // Suspended: everything added is listed, in order.
            queue.isSuspended = true
            let ops = (0..<8).map { index in layer.makeBlockOperation(label: "arena.op.operations-list.\(round).\(index)") {} }
            queue.addOperation(ops[0])
            queue.addOperations(Array(ops[1..<5]), waitUntilFinished: false)
            queue.addBarrierBlock {}
            for op in ops[5...] { queue.addOperation(op) }
            queue.addOperation {}
            let listed = queue.operations
            try expect(
                listed.count == ops.count + 1, .wrongState,
                "round \(round): \(listed.count) operations listed on a suspended queue given \(ops.count) operations, a block and a barrier"
            )
            try expect(
                identities(Array(listed.prefix(ops.count))) == identities(ops), .reordered,
                "round \(round): the listed operations are not the added ones in the order added")
            queue.isSuspended = false
            let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
            try expect(drained.returns(), .missing, "round \(round): the operations did not finish within 5 s")
            try expect(queue.operations.isEmpty, .wrongState, "round \(round): a drained queue listed \(queue.operations.count) operations")

            // Serial, the first running: listed until it finished, then gone, the rest in order.
            queue.maxConcurrentOperationCount = 1
            let gates = [Latch(), Latch()]
            let started = Latch()
            let serial = (0..<5).map { index in
                layer.makeBlockOperation(label: "arena.op.operations-list.\(round).serial.\(index)") {
                    if index == 0 { started.countDown() }
                    if index < gates.count { gates[index].wait(.seconds(5)) }
                }
            }
            defer { for gate in gates { gate.countDown() } }
            queue.addOperations(serial, waitUntilFinished: false)
            try expectOpens(started, "round \(round): the first operation of a serial queue starting")
            try expect(
                identities(queue.operations) == identities(serial), .wrongState,
                "round \(round): with the first operation running, the list is not the 5 added in order")
            gates[0].countDown()
            try expectEventually(as: .wrongState, "round \(round): the finished first operation leaving the list") {
                !queue.operations.contains { $0 === serial[0] }
            }
            try expect(
                identities(queue.operations) == identities(Array(serial[1...])), .reordered,
                "round \(round): after the first finished, the list is not the other 4 in order")
            gates[1].countDown()
            let done = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
            try expect(done.returns(), .missing, "round \(round): the serial operations did not finish within 5 s")
            try expect(queue.operations.isEmpty, .wrongState, "round \(round): a drained queue listed \(queue.operations.count) operations")
            queue.maxConcurrentOperationCount = L.Queue.unlimited
        }
    }
}

enum OpUnderlyingQueue: OperationRule {
    static let id = "op.underlying-queue"
    static let title =
        "An operation queue given a serial dispatch queue as underlyingQueue runs its operations on it: none while it is suspended, never two at once, in the order added at width 1, with currentQueue still the operation queue; set back to nil, the queue runs on its own again."
    static let source =
        "Apple, OperationQueue.underlyingQueue ('The dispatch queue used to execute operations … The value of this property must not be changed while operations are in the queue'); swift-corelibs-foundation Operation.swift (_schedule submits to __dispatch_queue) and TestOperationQueue.swift test_CurrentQueueWithCustomUnderlyingQueue, test_CurrentQueueWithUnderlyingQueueResetToNil"
    static let forbidden: [Outcome] = [.wrongState, .ranWhileHeld, .missing, .overlap, .reordered, .wrongPlace]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.underlying-queue")
        try expect(queue.underlyingQueue == nil, .wrongState, "a new operation queue has an underlying queue")
        let underlying = layer.makeUnderlyingQueue(label: "arena.op.underlying-queue.dispatch", kind: .serial)
        queue.underlyingQueue = underlying
        try expect(queue.underlyingQueue === underlying, .wrongState, "underlyingQueue does not read back the queue set")
        for round in 0..<4 {
            let serial = round % 2 == 1
            queue.maxConcurrentOperationCount = serial ? 1 : L.Queue.unlimited
            let meter = ConcurrencyMeter()
            let order = Recorder<Int>()
            let elsewhere = Counter()
            let count = 16
            underlying.suspend()
            var suspended = true
            defer { if suspended { underlying.resume() } }
            for index in 0..<count {
                queue.addOperation(
                    layer.makeBlockOperation(label: "arena.op.underlying-queue.\(round).\(index)") {
                        meter.measure {
                            order.append(index)
                            if layer.currentQueue !== queue { elsewhere.add() }
                            Timing.jitter(upTo: 200)
                        }
                    })
            }
            Timing.pause(round < 2 ? Timing.quietPeriod : .milliseconds(5))
            try expect(
                order.count == 0, .ranWhileHeld,
                "round \(round): \(order.count) of \(count) operations ran while their underlying queue was suspended")
            underlying.resume()
            suspended = false
            let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
            try expect(drained.returns(), .missing, "round \(round): the operations did not finish within 5 s")
            try expect(order.count == count, .missing, "round \(round): \(order.count) of \(count) operations ran")
            try expect(
                meter.maximum <= 1, .overlap, "round \(round): \(meter.maximum) operations ran at once on a serial underlying queue")
            try expect(
                elsewhere.value == 0, .wrongPlace,
                "round \(round): in \(elsewhere.value) operations currentQueue was not the operation queue")
            if serial {
                try expect(
                    order.elements == Array(0..<count), .reordered,
                    "round \(round): at width 1 on a serial underlying queue the operations ran out of order: \(order.elements.prefix(10))")
            }
        }
        // Back to nil: the queue's own dispatch queue again, whatever the old one does.
        queue.underlyingQueue = nil
        try expect(queue.underlyingQueue == nil, .wrongState, "underlyingQueue set to nil reads back a queue")
        underlying.suspend()
        defer { underlying.resume() }
        let ran = Latch()
        queue.addOperation(layer.makeBlockOperation(label: "arena.op.underlying-queue.reset") { ran.countDown() })
        try expectOpens(ran, as: .ranWhileHeld, "an operation after underlyingQueue was set back to nil, with the old queue suspended,")
    }
}

enum OpUnderlyingQueueBusy: MisuseRule {
    static let id = "op.underlying-queue-busy"
    static let title =
        "Setting underlyingQueue on an operation queue that has operations is misuse: the process stops with a message naming the queue."
    static let source =
        "Apple, OperationQueue.underlyingQueue ('The value of this property must not be changed while operations are in the queue'); swift-corelibs-foundation Operation.swift (fatalError 'operation queue must be empty in order to change underlying dispatch queue')"
    static let objectLabel = "arena.op.underlying-queue-busy"
    static let keywords = ["underlying"]
    static let forbidden: [Outcome] = [.allowed, .unnamed]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        let layer = engine.operations
        let queue = layer.makeQueue(label: objectLabel)
        queue.isSuspended = true
        queue.addOperation(layer.makeBlockOperation(label: "arena.op.underlying-queue-busy.waiting") {})
        queue.underlyingQueue = layer.makeUnderlyingQueue(label: "arena.op.underlying-queue-busy.dispatch", kind: .serial)
    }
}

enum OpMainQueue: OperationRule {
    static let id = "op.main-queue"
    static let title =
        "The main operation queue is one queue, of width 1, whose operations run on the main-loop thread, one at a time, in the order added, with currentQueue the main queue."
    static let source =
        "Apple, OperationQueue.main ('Returns the operation queue associated with the main thread … The returned queue executes one operation at a time on the app's main thread'); swift-corelibs-foundation Operation.swift (init(asMainQueue:), _schedule onto DispatchQueue.main) and TestOperationQueue.swift test_CurrentQueueOnMainQueue"
    static let needsMainLoop = true
    static let forbidden: [Outcome] = [.wrongState, .missing, .wrongPlace, .overlap, .reordered]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let main = layer.mainQueue
        try expect(main === layer.mainQueue, .wrongState, "two reads of mainQueue gave two queues")
        try expect(
            main.maxConcurrentOperationCount == 1, .wrongState,
            "the main operation queue's width is \(main.maxConcurrentOperationCount), not 1")
        let meter = ConcurrencyMeter()
        let order = Recorder<Int>()
        let offLoop = Counter()
        let notMain = Counter()
        let count = 60
        let done = Latch()
        var ops: [L.Operation] = []
        for index in 0..<count {
            ops.append(
                layer.makeBlockOperation(label: "arena.op.main-queue.\(index)") {
                    meter.measure {
                        if !MainLoopThread.isCurrent { offLoop.add() }
                        if layer.currentQueue !== main { notMain.add() }
                        order.append(index)
                        Timing.linger(index, every: 10)
                    }
                    if index == count - 1 { done.countDown() }
                })
        }
        main.addOperations(Array(ops[..<(count / 2)]), waitUntilFinished: false)
        for op in ops[(count / 2)...] { main.addOperation(op) }
        try expectOpens(done, "the last operation of the main operation queue")
        try expect(offLoop.value == 0, .wrongPlace, "\(offLoop.value) of \(count) operations ran off the main-loop thread")
        try expect(meter.maximum <= 1, .overlap, "\(meter.maximum) operations of the main operation queue ran at once")
        try expect(notMain.value == 0, .wrongPlace, "in \(notMain.value) operations currentQueue was not the main operation queue")
        try expect(
            order.elements == Array(0..<count), .reordered, "the operations ran out of order: first \(order.elements.prefix(12))")
    }
}

enum OpStartOutsideQueue: OperationRule {
    static let id = "op.start-outside-queue"
    static let title =
        "start() on an operation outside any queue runs it on the caller's thread and returns once it finished (dependents then run, the completion block comes); a cancelled one finishes without its work, a finished one does nothing, an asynchronous one executes until its finish."
    static let source =
        "Apple, Operation.start() ('The default implementation of this method updates the execution state of the operation and calls the receiver's main() method … If the operation was cancelled … simply updates the execution state'); Concurrency Programming Guide, 'Executing Operations Manually'; swift-corelibs-foundation TestOperationQueue.swift test_SyncOperationWithoutAQueue, test_CancelOutOfQueue"
    static let forbidden: [Outcome] = [.missing, .wrongPlace, .early, .wrongState, .ranWhileHeld, .extra]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.start-outside-queue")
        for round in 0..<5 {
            let ranOn = Locked<UInt?>(nil)
            let executing = Locked(false)
            let runs = Counter()
            let op = layer.makeOperation(label: "arena.op.start-outside-queue.\(round)") { operation in
                ranOn.withLock { $0 = Threads.current }
                executing.withLock { $0 = operation.isExecuting }
                Timing.jitter(upTo: 300)
                runs.add()
            }
            let completed = Latch()
            op.completionBlock = { completed.countDown() }
            let dependentRan = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.start-outside-queue.\(round).dependent") { dependentRan.countDown() }
            dependent.addDependency(op)
            queue.addOperation(dependent)
            Timing.pause(round < 2 ? Timing.quietPeriod : .milliseconds(1))
            try expect(!dependentRan.isOpen, .ranWhileHeld, "round \(round): a dependent ran before its dependency was started")
            let caller = Locked<UInt>(0)
            let atReturn = Locked<(runs: Int, finished: Bool)?>(nil)
            let call = BlockingCall {
                caller.withLock { $0 = Threads.current }
                op.start()
                atReturn.withLock { $0 = (runs.value, op.isFinished) }
            }
            try expect(call.returns(), .missing, "round \(round): start() did not return within 5 s")
            try expect(atReturn.snapshot?.runs == 1, .early, "round \(round): start() returned before the operation's work ran")
            try expect(
                atReturn.snapshot?.finished == true, .wrongState, "round \(round): the operation was not finished when start() returned")
            try expect(
                ranOn.snapshot == caller.snapshot, .wrongPlace, "round \(round): the operation ran on another thread than start()'s caller")
            try expect(executing.snapshot, .wrongState, "round \(round): isExecuting was false in the work of a started operation")
            try expectOpens(completed, "round \(round): the completion block of an operation started by hand")
            try expectOpens(dependentRan, "round \(round): the dependent of an operation started by hand")
            // Started again, finished: nothing.
            let again = BlockingCall { op.start() }
            try expect(again.returns(), .missing, "round \(round): start() on a finished operation did not return")
            try expect(runs.value == 1, .extra, "round \(round): start() on a finished operation ran it again")
        }
        // Cancelled: finished without the work.
        let cancelledRuns = Counter()
        let cancelled = layer.makeBlockOperation(label: "arena.op.start-outside-queue.cancelled") { cancelledRuns.add() }
        cancelled.cancel()
        let cancelCall = BlockingCall { cancelled.start() }
        try expect(cancelCall.returns(), .missing, "start() on a cancelled operation did not return")
        try expect(cancelledRuns.value == 0, .ranWhileHeld, "start() on a cancelled operation ran its work")
        try expect(cancelled.isFinished, .wrongState, "a cancelled operation started by hand is not finished")
        // Asynchronous: executing from start until finish.
        let box = FinishBox()
        defer { box.finish() }
        let startedOn = Locked<UInt?>(nil)
        let asynchronous = layer.makeAsynchronousOperation(label: "arena.op.start-outside-queue.asynchronous") { _, finish in
            startedOn.withLock { $0 = Threads.current }
            box.keep(finish)
        }
        let asyncCaller = Locked<UInt>(0)
        let asyncCall = BlockingCall {
            asyncCaller.withLock { $0 = Threads.current }
            asynchronous.start()
        }
        try expect(asyncCall.returns(), .missing, "start() on an asynchronous operation did not return")
        try expect(startedOn.snapshot == asyncCaller.snapshot, .wrongPlace, "an asynchronous operation's start ran off start()'s caller")
        try expect(
            asynchronous.isExecuting && !asynchronous.isFinished, .wrongState,
            "an asynchronous operation started by hand was not executing until its finish")
        box.finish()
        try expectEventually(as: .missing, "an asynchronous operation started by hand finishing after its finish") {
            asynchronous.isFinished
        }
    }
}

enum OpStartNotReady: MisuseRule {
    static let id = "op.start-not-ready"
    static let title =
        "start() on an operation that is not ready (an unfinished dependency) and not cancelled is misuse: the process stops with a message naming the operation."
    static let source =
        "Apple, Operation.start() ('Calling this method on an operation that is not ready … raises an exception'); swift-corelibs-foundation Operation.swift (fatalError 'receiver is not yet ready to execute')"
    static let objectLabel = "arena.op.start-not-ready"
    static let keywords = ["ready"]
    static let forbidden: [Outcome] = [.allowed, .unnamed]
    static var layer: Capability { .operationQueues }

    static func trigger<E: Engine>(_ engine: E) {
        let layer = engine.operations
        let dependency = layer.makeBlockOperation(label: "arena.op.start-not-ready.dependency") {}
        let op = layer.makeBlockOperation(label: objectLabel) {}
        op.addDependency(dependency)
        op.start()
    }
}

enum OpWaitDeadline: OperationRule {
    static let id = "op.wait-deadline"
    static let title =
        "The waits with a deadline (an operation's, a queue's) return timed-out, not before the deadline, while the awaited operations are unfinished, and success once they finished, at once when they already had."
    static let source =
        "The contract's extension of Operation.waitUntilFinished() and OperationQueue.waitUntilAllOperationsAreFinished(), which have no deadline; semantics of dispatch_group_wait(3) ('Returns zero on success … non-zero if the timeout occurred'), as DispatchGroup.wait(timeout:) and swift-corelibs-foundation's Thread-based tests wait"
    static let forbidden: [Outcome] = [.wrongValue, .early, .missing]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.wait-deadline")
        for round in 0..<4 {
            let gate = Latch()
            defer { gate.countDown() }
            let op = layer.makeBlockOperation(label: "arena.op.wait-deadline.\(round)") { gate.wait(.seconds(5)) }
            queue.addOperation(op)
            queue.addOperation { Timing.jitter(upTo: 100) }
            let wait = Duration.milliseconds(round < 2 ? 40 : 5)
            let opResult = Locked<(WaitResult, early: Bool)?>(nil)
            let queueResult = Locked<(WaitResult, early: Bool)?>(nil)
            let waits = BlockingCall {
                let deadline = Deadline.now() + wait
                let result = op.waitUntilFinished(until: deadline)
                opResult.withLock { $0 = (result, Deadline.now() < deadline) }
                let queueDeadline = Deadline.now() + wait
                let all = queue.waitUntilAllOperationsAreFinished(until: queueDeadline)
                queueResult.withLock { $0 = (all, Deadline.now() < queueDeadline) }
            }
            try expect(waits.returns(), .missing, "round \(round): the waits with a deadline of \(wait) did not return within 5 s")
            try expect(
                opResult.snapshot?.0 == .timedOut, .wrongValue,
                "round \(round): waitUntilFinished(until:) reported success for an operation still blocked")
            try expect(opResult.snapshot?.early == false, .early, "round \(round): waitUntilFinished(until:) timed out before its deadline")
            try expect(
                queueResult.snapshot?.0 == .timedOut, .wrongValue,
                "round \(round): waitUntilAllOperationsAreFinished(until:) reported success with an operation still blocked")
            try expect(
                queueResult.snapshot?.early == false, .early,
                "round \(round): waitUntilAllOperationsAreFinished(until:) timed out before its deadline")
            gate.countDown()
            let finished = Locked<(WaitResult, WaitResult)?>(nil)
            let later = BlockingCall {
                let one = op.waitUntilFinished(until: .now() + .seconds(5))
                let all = queue.waitUntilAllOperationsAreFinished(until: .now() + .seconds(5))
                finished.withLock { $0 = (one, all) }
            }
            try expect(later.returns(within: .seconds(12)), .missing, "round \(round): the waits after the gate opened did not return")
            try expect(
                finished.snapshot?.0 == .success, .missing,
                "round \(round): waitUntilFinished(until:) timed out after the operation finished")
            try expect(
                finished.snapshot?.1 == .success, .missing,
                "round \(round): waitUntilAllOperationsAreFinished(until:) timed out after the operations finished")
            // Finished already: success even with a deadline that passed.
            try expect(
                op.waitUntilFinished(until: .now()) == .success, .wrongValue,
                "round \(round): waitUntilFinished(until: now) on a finished operation timed out")
            try expect(
                queue.waitUntilAllOperationsAreFinished(until: .now()) == .success, .wrongValue,
                "round \(round): waitUntilAllOperationsAreFinished(until: now) on a drained queue timed out")
        }
    }
}
