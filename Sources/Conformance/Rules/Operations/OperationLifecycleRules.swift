import ArenaContract
import Harness

// An operation's life: its states, its completion block, asynchronous operations, execution blocks.

enum OpStates: OperationRule {
    static let id = "op.states"
    static let title =
        "An operation is ready, not executing, not finished and not cancelled when made; executing while its work runs; finished and no longer executing after; a dependent becomes ready when its dependency finishes, queue or not."
    static let source =
        "Apple, Operation.isExecuting, isFinished, isReady ('The NSOperation class manages dependencies on other operations and reports the readiness of the receiver based on those dependencies'); [Concurrency Programming Guide] (isCancelled, isExecuting, isFinished, isReady); swift-corelibs-foundation TestOperationQueue.swift test_isExecutingWorks, test_SyncOperationWithoutAQueue"

    static let forbidden: [Outcome] = [.missing, .early, .wrongValue, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.states")
        try expect(
            queue.name == "arena.op.states", .wrongValue, "a queue made with label 'arena.op.states' is named \(queue.name ?? "nil")")
        for round in 0..<10 {
            let label = "arena.op.states.\(round)"
            let seen = Recorder<String>()
            let done = Latch()
            let box = Locked<L.Operation?>(nil)
            let op: L.Operation
            if round % 2 == 0 {
                op = layer.makeOperation(label: label) { me in
                    if !me.isExecuting || me.isFinished {
                        seen.append("inside main: isExecuting \(me.isExecuting), isFinished \(me.isFinished)")
                    }
                    done.countDown()
                }
            } else {
                op = layer.makeBlockOperation(label: label) {
                    if let me = box.snapshot, !me.isExecuting || me.isFinished {
                        seen.append("inside the block: isExecuting \(me.isExecuting), isFinished \(me.isFinished)")
                    }
                    done.countDown()
                }
                box.withLock { $0 = op }
            }
            try expect(
                op.name == label, .wrongValue, "round \(round): an operation made with label '\(label)' is named \(op.name ?? "nil")")
            try expect(
                op.isReady && !op.isExecuting && !op.isFinished && !op.isCancelled, .wrongState,
                "round \(round): a new operation reports isReady \(op.isReady), isExecuting \(op.isExecuting), isFinished \(op.isFinished), isCancelled \(op.isCancelled) (true, false, false, false expected)"
            )
            try expect(op.dependencies.isEmpty, .wrongValue, "round \(round): a new operation has \(op.dependencies.count) dependencies")
            queue.addOperation(op)
            try expectOpens(done, "round \(round): the operation's work")
            try expectEventually("round \(round): isFinished after the work returned") { op.isFinished }
            box.withLock { $0 = nil }
            try expect(!op.isExecuting, .wrongState, "round \(round): a finished operation still reports isExecuting")
            try expect(seen.count == 0, .wrongValue, "round \(round): \(seen.elements.joined(separator: "; "))")
        }

        // A dependency finishing makes its dependent ready even when the dependent is on no queue.
        for round in 0..<5 {
            let gate = Latch()
            let dependency = layer.makeBlockOperation(label: "arena.op.states.dependency.\(round)") { gate.wait(.seconds(5)) }
            let dependent = layer.makeBlockOperation(label: "arena.op.states.dependent.\(round)") {}
            dependent.addDependency(dependency)
            queue.addOperation(dependency)
            try expect(!dependent.isReady, .wrongState, "round \(round): an operation whose dependency has not finished reports isReady")
            gate.countDown()
            try expectEventually("round \(round): the dependent (on no queue) becoming ready once its dependency finished") {
                dependent.isReady
            }
            try expect(dependency.isFinished, .early, "round \(round): the dependent became ready before its dependency finished")
            try expect(
                !dependent.isExecuting && !dependent.isFinished, .wrongState,
                "round \(round): an operation on no queue reports isExecuting \(dependent.isExecuting), isFinished \(dependent.isFinished)")
        }
    }
}

enum OpCompletion: OperationRule {
    static let id = "op.completion"
    static let title =
        "The completion block runs exactly once, after the operation finished (isFinished true, work returned), also for a cancelled operation and an asynchronous one."
    static let source =
        "Apple, Operation.completionBlock: 'The completion block you provide is executed when the value in the isFinished property changes to true'; [Concurrency Programming Guide] (setting up a completion block); swift-corelibs-foundation TestOperationQueue.swift test_ConcurrentOperationsWithDependenciesAndCompletions"

    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.completion")
        let kinds = ["block", "main", "asynchronous", "cancelled block", "cancelled main"]
        for round in 0..<30 {
            let kind = round % kinds.count
            let label = "arena.op.completion.\(round)"
            let cancelled = kind >= 3
            let work = Counter()
            let op: L.Operation =
                switch kind {
                case 0, 3:
                    layer.makeBlockOperation(label: label) {
                        Timing.jitter(upTo: 200)
                        work.add()
                    }
                case 2:
                    layer.makeAsynchronousOperation(label: label) { _, finish in
                        Threads.detach {
                            Timing.pause(.microseconds(300))
                            work.add()
                            finish()
                        }
                    }
                default:
                    layer.makeOperation(label: label) { _ in
                        Timing.jitter(upTo: 200)
                        work.add()
                    }
                }
            let box = Locked<L.Operation?>(op)
            let runs = Counter()
            let seen = Recorder<String>()
            let done = Latch()
            op.completionBlock = {
                let finished = box.snapshot?.isFinished == true
                let worked = work.value
                if !finished || worked != (cancelled ? 0 : 1) {
                    seen.append("isFinished \(finished), work ran \(worked) times")
                }
                runs.add()
                done.countDown()
            }
            try expect(op.completionBlock != nil, .wrongValue, "round \(round): completionBlock reads nil after it was set")
            if cancelled { op.cancel() }
            queue.addOperation(op)
            try expectOpens(done, "round \(round): the completion block of a \(kinds[kind]) operation")
            Timing.pause(.milliseconds(round % 5 == 0 ? 20 : 1))
            box.withLock { $0 = nil }
            op.completionBlock = nil
            try expect(
                runs.value == 1, .extra, "round \(round): the completion block of a \(kinds[kind]) operation ran \(runs.value) times")
            try expect(
                seen.count == 0, .wrongValue,
                "round \(round): the completion block of a \(kinds[kind]) operation ran with \(seen.elements.joined(separator: "; "))")
        }
    }
}

enum OpAsyncOperation: OperationRule {
    static let id = "op.async-operation"
    static let title =
        "An asynchronous operation executes from start until it calls finish: isExecuting meanwhile, its dependents, its waiters and its queue's slot wait for finish, not for start to return."
    static let source =
        "[Concurrency Programming Guide] (configuring operations for concurrent execution: start, isExecuting, isFinished, Listings 2-5 to 2-7); Apple, Operation.isAsynchronous and start(); swift-corelibs-foundation TestOperationQueue.swift test_AsyncOperation"

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .wrongState]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.async-operation")
        let serial = layer.makeQueue(label: "arena.op.async-operation.serial")
        serial.maxConcurrentOperationCount = 1
        for round in 0..<6 {
            let onSerial = round % 2 == 1
            let home = onSerial ? serial : queue
            let box = FinishBox()
            defer { box.finish() }
            let returnedFromStart = Latch()
            let op = layer.makeAsynchronousOperation(label: "arena.op.async-operation.\(round)") { _, finish in
                box.keep(finish)
                returnedFromStart.countDown()
            }
            let dependentRan = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.async-operation.\(round).dependent") { dependentRan.countDown() }
            dependent.addDependency(op)
            let nextRan = Latch()
            let next = layer.makeBlockOperation(label: "arena.op.async-operation.\(round).next") { nextRan.countDown() }
            home.addOperation(op)
            (onSerial ? queue : serial).addOperation(dependent)
            if onSerial { serial.addOperation(next) }
            try expectOpens(box.hasStarted, "round \(round): start of the asynchronous operation")
            try expectOpens(returnedFromStart, "round \(round): start returning")
            let waiter = BlockingCall { op.waitUntilFinished() }
            Timing.pause(Timing.quietPeriod)
            try expect(
                op.isExecuting && !op.isFinished, .wrongState,
                "round \(round): between start and finish the operation reports isExecuting \(op.isExecuting), isFinished \(op.isFinished) (true, false expected)"
            )
            try expect(!dependentRan.isOpen, .early, "round \(round): a dependent ran after start returned, before finish")
            try expect(!waiter.hasReturned, .early, "round \(round): waitUntilFinished returned after start returned, before finish")
            if onSerial {
                try expect(
                    !nextRan.isOpen, .overlap,
                    "round \(round): at width 1, the next operation started while the asynchronous one was executing")
            }
            Threads.detach { box.finish() }
            try expect(waiter.returns(), .missing, "round \(round): waitUntilFinished did not return within 5 s of finish")
            try expect(
                op.isFinished && !op.isExecuting, .wrongState,
                "round \(round): after finish the operation reports isFinished \(op.isFinished), isExecuting \(op.isExecuting)")
            try expectOpens(dependentRan, "round \(round): the dependent after finish")
            if onSerial { try expectOpens(nextRan, "round \(round): the next operation at width 1 after finish") }
        }
    }
}

enum OpExecutionBlocks: OperationRule {
    static let id = "op.execution-blocks"
    static let title =
        "A block operation runs each of its execution blocks exactly once, and finishes (waiters, dependents, completion) only after all of them returned."
    static let source =
        "Apple, BlockOperation.addExecutionBlock(_:) and executionBlocks; [Concurrency Programming Guide] (NSBlockOperation and its addExecutionBlock: method; 'only when all of the associated blocks have finished executing is the operation itself considered finished'); swift-corelibs-foundation TestOperationQueue.swift test_BlockOperationAddExecutionBlock"

    static let forbidden: [Outcome] = [.missing, .wrongValue, .notOnce]

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.execution-blocks")
        for round in 0..<10 {
            let count = 10
            let hits = IndexCounters(count)
            let returned = Counter()
            let op = layer.makeBlockOperation(label: "arena.op.execution-blocks.\(round)") {
                Timing.jitter(upTo: 200)
                hits.hit(0)
                returned.add()
            }
            for index in 1..<count {
                op.addExecutionBlock {
                    Timing.pause(.microseconds(index % 3 == 0 ? 500 : 50))
                    hits.hit(index)
                    returned.add()
                }
            }
            let seen = Recorder<String>()
            let completed = Latch()
            op.completionBlock = {
                if returned.value != count { seen.append("the completion block ran after \(returned.value) of \(count) blocks") }
                completed.countDown()
            }
            let dependentRan = Latch()
            let dependent = layer.makeBlockOperation(label: "arena.op.execution-blocks.\(round).dependent") {
                if returned.value != count { seen.append("the dependent started after \(returned.value) of \(count) blocks") }
                dependentRan.countDown()
            }
            dependent.addDependency(op)
            queue.addOperation(dependent)
            queue.addOperation(op)
            let waiter = BlockingCall {
                op.waitUntilFinished()
                if returned.value != count { seen.append("waitUntilFinished returned after \(returned.value) of \(count) blocks") }
            }
            try expect(
                waiter.returns(), .missing, "round \(round): waitUntilFinished on a block operation of \(count) blocks did not return")
            try expectOpens(completed, "round \(round): the completion block")
            try expectOpens(dependentRan, "round \(round): the dependent")
            op.completionBlock = nil
            let wrong = hits.wrong()
            try expect(
                wrong.isEmpty, .notOnce,
                "round \(round): execution blocks run other than once: \(wrong.map { "block \($0.index) \($0.hits) times" }.joined(separator: ", "))"
            )
            try expect(seen.count == 0, .wrongValue, "round \(round): \(seen.elements.joined(separator: "; "))")
        }
    }
}
