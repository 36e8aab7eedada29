import ArenaContract
import Harness

/// Operation queues: Foundation's `OperationQueue` contract, checked on each contender's operation layer
/// (`Engine.operations`). Every wait a check makes has a deadline: the layer's own waits have none, so they are
/// called from a plain thread (`BlockingCall`) and the check waits for that thread.
enum OperationRules: RuleFamily {
    static let concept = Concept.operations
    static let rules: [any ConformanceRule.Type] = [
        OpStates.self, OpDependency.self, OpDependencyAcrossQueues.self, OpRemoveDependency.self, OpMaxConcurrent.self,
        OpSerialReadiness.self, OpPriority.self, OpPriorityChange.self, OpCancelUnstarted.self,
        OpCancelIgnoresDependencies.self, OpCancelRunning.self, OpCompletion.self, OpAsyncOperation.self,
        OpWaitUntilFinished.self, OpWaitAll.self, OpAddWaiting.self, OpSuspend.self, OpBarrierAfterEarlier.self,
        OpBarrierBeforeLater.self, OpCancelAll.self, OpOperationCount.self, OpExecutionBlocks.self,
        OpDependencyCycle.self,
    ]
}

/// The identities of `operations`, to compare lists of operations.
private func identities<Operation: LayerOperation>(_ operations: [Operation]) -> [ObjectIdentifier] {
    operations.map(ObjectIdentifier.init)
}

/// An asynchronous operation's `finish`, kept until the check calls it; calling it a second time does nothing (the
/// contract makes a second call misuse, and a failing check may call it from its clean-up too).
private final class FinishBox: Sendable {
    private let stored = Locked<(@Sendable () -> Void)?>(nil)
    private let started = Latch()

    func keep(_ finish: @escaping @Sendable () -> Void) {
        stored.withLock { $0 = finish }
        started.countDown()
    }

    /// Opens once `start` handed its `finish` over.
    var hasStarted: Latch { started }

    /// Calls the kept `finish` once; later calls, or a call before `start`, do nothing.
    func finish() {
        let finish = stored.withLock { stored in
            defer { stored = nil }
            return stored
        }
        finish?()
    }
}

enum OpStates: OperationRule {
    static let id = "op.states"
    static let title = "An operation is ready, not executing, not finished and not cancelled when made; executing while its work runs; finished and no longer executing after; a dependent becomes ready when its dependency finishes, queue or not."
    static let source = "Apple, Operation.isExecuting, isFinished, isReady ('The NSOperation class manages dependencies on other operations and reports the readiness of the receiver based on those dependencies'); seed 001_e0090210cb443119.txt (isCancelled, isExecuting, isFinished, isReady); swift-corelibs-foundation TestOperationQueue.swift test_isExecutingWorks, test_SyncOperationWithoutAQueue"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.states")
        try expect(queue.name == "arena.op.states", "a queue made with label 'arena.op.states' is named \(queue.name ?? "nil")")
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
            try expect(op.name == label, "round \(round): an operation made with label '\(label)' is named \(op.name ?? "nil")")
            try expect(op.isReady && !op.isExecuting && !op.isFinished && !op.isCancelled,
                       "round \(round): a new operation reports isReady \(op.isReady), isExecuting \(op.isExecuting), isFinished \(op.isFinished), isCancelled \(op.isCancelled) (true, false, false, false expected)")
            try expect(op.dependencies.isEmpty, "round \(round): a new operation has \(op.dependencies.count) dependencies")
            queue.addOperation(op)
            try expectOpens(done, "round \(round): the operation's work")
            try expectEventually("round \(round): isFinished after the work returned") { op.isFinished }
            box.withLock { $0 = nil }
            try expect(!op.isExecuting, "round \(round): a finished operation still reports isExecuting")
            try expect(seen.count == 0, "round \(round): \(seen.elements.joined(separator: "; "))")
        }

        // A dependency finishing makes its dependent ready even when the dependent is on no queue.
        for round in 0..<5 {
            let gate = Latch()
            let dependency = layer.makeBlockOperation(label: "arena.op.states.dependency.\(round)") { gate.wait(.seconds(5)) }
            let dependent = layer.makeBlockOperation(label: "arena.op.states.dependent.\(round)") {}
            dependent.addDependency(dependency)
            queue.addOperation(dependency)
            try expect(!dependent.isReady, "round \(round): an operation whose dependency has not finished reports isReady")
            gate.countDown()
            try expectEventually("round \(round): the dependent (on no queue) becoming ready once its dependency finished") {
                dependent.isReady
            }
            try expect(dependency.isFinished, "round \(round): the dependent became ready before its dependency finished")
            try expect(!dependent.isExecuting && !dependent.isFinished,
                       "round \(round): an operation on no queue reports isExecuting \(dependent.isExecuting), isFinished \(dependent.isFinished)")
        }
    }
}

enum OpDependency: OperationRule {
    static let id = "op.dependency"
    static let title = "An operation never starts before every one of its dependencies finished, whichever was added to the queue first."
    static let source = "Apple, Operation.addDependency(_:): 'The receiver is not considered ready to execute until all of its dependent operations have finished executing'; Operation.dependencies; seed 001_e0090210cb443119.txt (configuring interoperation dependencies: cannot begin executing until the target finishes); swift-corelibs-foundation TestOperationQueue.swift test_ExecutionOrder, test_OperationDependencyCount"

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
                        seen.append("round \(round): the dependent started with \(3 - finished.value) of 3 dependencies' work unfinished, \(unfinished) not reporting isFinished")
                    }
                    done.countDown()
                }
                for dependency in dependencies { dependent.addDependency(dependency) }
                try expect(identities(dependent.dependencies) == identities(dependencies),
                           "round \(round): dependencies lists \(dependent.dependencies.count) operations, not the 3 added in order")
                try expect(!dependent.isReady, "round \(round): an operation with 3 unfinished dependencies reports isReady")
                queue.addOperation(dependent)
                queue.addOperations(dependencies, waitUntilFinished: false)
                try expectOpens(done, "round \(round): the dependent")
                try expect(identities(dependent.dependencies) == identities(dependencies),
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
            try expect(seen.count == 0, seen.elements.joined(separator: "; "))
        }
    }
}

enum OpDependencyAcrossQueues: OperationRule {
    static let id = "op.dependency-across-queues"
    static let title = "A dependency on an operation of another queue holds as well: the dependent waits for it to finish there."
    static let source = "Apple, OperationQueue: 'Interoperation dependencies provide an absolute execution order for operations, even if those operations are located in different operation queues'; seed 001_e0090210cb443119.txt (dependencies); swift-corelibs-foundation TestOperationQueue.swift test_CrossQueueDependency, test_WaitUntilFinished"

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
                    seen.append("round \(round): the dependent started with its dependency on the other queue \(finished.value == 1 ? "not reporting isFinished" : "still running")")
                }
                done.countDown()
            }
            dependent.addDependency(dependency)
            let (mine, theirs) = round % 2 == 0 ? (second, first) : (first, second)
            mine.addOperation(dependent)
            theirs.addOperation(dependency)
            if gated {
                Timing.pause(Timing.quietPeriod)
                try expect(started.value == 0, "round \(round): the dependent started while its dependency on the other queue was blocked")
                try expect(!dependent.isReady, "round \(round): the dependent reports isReady while its dependency runs on the other queue")
                gate.countDown()
            }
            try expectOpens(done, "round \(round): the dependent")
            box.withLock { $0 = nil }
            try expect(seen.count == 0, seen.elements.joined(separator: "; "))
        }
    }
}

enum OpRemoveDependency: OperationRule {
    static let id = "op.remove-dependency"
    static let title = "Removing an operation's last unfinished dependency makes it ready: waiting in its queue, it then starts."
    static let source = "Apple, Operation.removeDependency(_:) ('This method may change the isReady and dependencies properties of the receiver') and Operation.dependencies ('The only way to remove an operation from this list is to use the removeDependency(_:) method'); Operation.isReady; seed 001_e0090210cb443119.txt (dependencies, addDependency: / removeDependency:)"
    static let needs: Set<Capability> = [.removeDependency]

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
            try expect(started.value == 0, "round \(round): the operation started with a dependency unfinished")
            try expect(!op.isReady, "round \(round): an operation with an unfinished dependency reports isReady")
            op.removeDependency(removed)
            try expect(identities(op.dependencies) == identities([kept]),
                       "round \(round): after removeDependency, dependencies lists \(op.dependencies.count) operations (the finished one expected)")
            try expectEventually(within: .seconds(2), "round \(round): the operation reporting isReady after its last unfinished dependency was removed") {
                op.isReady
            }
            try expectOpens(ran, within: .seconds(2), "round \(round): the operation starting after its last unfinished dependency was removed")
        }
    }
}

enum OpMaxConcurrent: OperationRule {
    static let id = "op.max-concurrent"
    static let title = "A queue never runs more operations at once than maxConcurrentOperationCount (3, 2, 1), runs more than one at once at width 3, and at width 2 two operations that wait for each other meet; a new width applies to later starts."
    static let source = "Apple, OperationQueue.maxConcurrentOperationCount ('The maximum number of queued operations that can run at the same time … Reducing the number of concurrent operations does not affect any operations that are currently executing') and defaultMaxConcurrentOperationCount; seed 001_e0090210cb443119.txt (setMaxConcurrentOperationCount:); swift-corelibs-foundation TestOperationQueue.swift test_ConcurrentOperations (two operations at width 2 wait for each other)"

    /// Runs `count` operations sleeping 5 ms at `width` and returns how many ran at once at most.
    private static func peak<L: OperationLayer>(_ layer: L, _ queue: L.Queue, width: Int, count: Int) throws -> Int {
        queue.maxConcurrentOperationCount = width
        try expect(queue.maxConcurrentOperationCount == width,
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
        try expect(meter.maximum <= width, "\(meter.maximum) operations ran at once at width \(width)")
        return meter.maximum
    }

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.max-concurrent")
        try expect(queue.maxConcurrentOperationCount == L.Queue.unlimited,
                   "a new queue's maxConcurrentOperationCount is \(queue.maxConcurrentOperationCount), not unlimited (\(L.Queue.unlimited))")
        let atThree = try peak(layer, queue, width: 3, count: 30)
        try expect(atThree >= 2, "at width 3, 30 sleeping operations ran one at a time")

        // At width 2, two operations that each wait for the other must be running at once.
        queue.maxConcurrentOperationCount = 2
        for round in 0..<3 {
            let arrived = Latch(2)
            let met = Counter()
            let done = Latch(2)
            for index in 0..<2 {
                queue.addOperation(layer.makeBlockOperation(label: "arena.op.max-concurrent.meet.\(round).\(index)") {
                    arrived.countDown()
                    if arrived.wait(.seconds(3)) { met.add() }
                    done.countDown()
                })
            }
            try expectOpens(done, within: .seconds(8), "round \(round): two operations at width 2 finishing")
            try expect(met.value == 2, "round \(round): at width 2, two operations waiting for each other never ran at once")
        }
        _ = try peak(layer, queue, width: 2, count: 16)
        _ = try peak(layer, queue, width: 1, count: 10)
    }
}

enum OpSerialReadiness: OperationRule {
    static let id = "op.serial-readiness"
    static let title = "At width 1 operations run one at a time, ready ones in order of addition; one added later but ready runs before an earlier one still waiting for its dependency."
    static let source = "seed 001_e0090210cb443119.txt ('serial Operation Queue not same as serial dispatch Queue in GCD, since its order execution based on readiness of operation and priority'); Apple, OperationQueue ('If all of the queued operations have the same queuePriority and the isReady property returns true, the queue invokes them in the order you added them'); swift-corelibs-foundation TestOperationQueue.swift test_OperationOrder"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.serial-readiness")
        queue.maxConcurrentOperationCount = 1
        let meter = ConcurrencyMeter()
        let cell = UnguardedCell()
        let order = Recorder<Int>()
        let count = 40
        let done = Latch(count)
        for index in 0..<count {
            queue.addOperation(layer.makeBlockOperation(label: "arena.op.serial-readiness.\(index)") {
                meter.measure {
                    cell.value += 1
                    order.append(index)
                    Timing.linger(index, every: 8)
                }
                done.countDown()
            })
        }
        try expectOpens(done, "\(count) operations at width 1")
        try expect(meter.maximum == 1, "\(meter.maximum) operations ran at once at width 1")
        try expect(cell.value == count, "\(count - cell.value) unguarded increments were lost at width 1")
        try expect(order.elements == Array(0..<count), "ready operations of equal priority ran out of the order of addition: \(order.elements.prefix(12))…")

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
            try expect(laterFirst, "round \(round): a ready operation added later did not run while the earlier one waited for its dependency (ran: \(ran.elements))")
            try expectOpens(bothRan, "round \(round): the earlier operation once its dependency finished")
            try expect(ran.elements == ["later", "dependency", "waiting"], "round \(round): ran in the order \(ran.elements)")
        }
    }
}

/// `priorities` in the order a width-1 queue must start them: higher priority first, equal ones in order of addition.
private func expectedOrder(_ priorities: [OperationPriority]) -> [Int] {
    priorities.indices.sorted { priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1 }
}

enum OpPriority: OperationRule {
    static let id = "op.priority"
    static let title = "Among the ready operations of a saturated or suspended width-1 queue, higher queuePriority starts first, equal ones in order of addition."
    static let source = "Apple, OperationQueue ('the operation queue always invokes the operation with the highest priority relative to the other ready operations') and Operation.queuePriority; seed 001_e0090210cb443119.txt (setQueuePriority:, only within one queue); swift-corelibs-foundation TestOperationQueue.swift test_OperationPriorities, test_OperationOrder2"

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
            try expect(ops.map(\.queuePriority) == priorities, "round \(round): queuePriority does not read back what was set")
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
            try expect(order.elements == expected,
                       "round \(round) (\(suspended ? "suspended" : "saturated")): ran \(order.elements.map { "\($0):\(priorities[$0])" }) (expected \(expected.map { "\($0):\(priorities[$0])" }))")
        }
    }
}

enum OpPriorityChange: OperationRule {
    static let id = "op.priority-change"
    static let title = "Changing the queuePriority of an enqueued operation that has not started moves it among the ready ones."
    static let source = "Apple, Operation.queuePriority ('You should use priority values only as needed to classify the relative priority of non-dependent operations'; settable until the operation starts); Foundation's changePriority in swift-corelibs-foundation Operation.swift, which relinks an enqueued operation; seed 001_e0090210cb443119.txt (setQueuePriority:)"

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
            try expect(ops[4].queuePriority == .veryHigh && ops[0].queuePriority == .low,
                       "round \(round): queuePriority of enqueued operations reads \(ops[4].queuePriority), \(ops[0].queuePriority) after it was set")
            queue.isSuspended = false
            try expectOpens(done, "round \(round): 5 operations")
            try expect(order.elements == [4, 1, 2, 3, 0],
                       "round \(round): ran in the order \(order.elements) ([4, 1, 2, 3, 0]: the raised one first, the lowered one last)")
        }
    }
}

enum OpCancelUnstarted: OperationRule {
    static let id = "op.cancel-unstarted"
    static let title = "An operation cancelled before it starts finishes without running its work (block, main or start), and its dependents then run."
    static let source = "Apple, Operation.cancel() and OperationQueue ('For operations that are queued but not yet executing, the queue must still call the operation object's start method so that it can processes the cancellation event and mark itself as finished'); seed 001_e0090210cb443119.txt (canceling operations; start checks isCancelled first); swift-corelibs-foundation TestOperationQueue.swift test_CancelDependency, test_CancelWhileSuspended, test_CancelOneOperation"

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
                let op: L.Operation = switch index % 3 {
                case 0: layer.makeBlockOperation(label: label) { bodies.hit(index) }
                case 1: layer.makeOperation(label: label) { _ in bodies.hit(index) }
                default: layer.makeAsynchronousOperation(label: label) { _, finish in
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
                try expect(op.isCancelled && !op.isFinished && !op.isExecuting,
                           "round \(round): an operation cancelled on no queue reports isCancelled \(op.isCancelled), isFinished \(op.isFinished), isExecuting \(op.isExecuting) (true, false, false expected)")
            }
            queue.addOperations(Array(ops[..<(count - 2)]), waitUntilFinished: false)
            for index in stride(from: 0, to: count - 2, by: 2) { ops[index].cancel() }
            for op in ops[(count - 2)...] { queue.addOperation(op) }
            queue.isSuspended = false
            try expectOpens(dependentsRan, "round \(round): the dependents of \(count) operations, some cancelled")
            for (index, op) in ops.enumerated() {
                let cancelled = index % 2 == 0 || index >= count - 2
                try expectEventually("round \(round): operation \(index) (\(cancelled ? "cancelled" : "not cancelled")) reporting isFinished") { op.isFinished }
                try expect(op.isCancelled == cancelled && !op.isExecuting,
                           "round \(round): operation \(index) reports isCancelled \(op.isCancelled), isExecuting \(op.isExecuting)")
                try expect(bodies.hits(index) == (cancelled ? 0 : 1),
                           "round \(round): the work of \(cancelled ? "cancelled" : "uncancelled") operation \(index) (\(["block", "main", "start"][index % 3])) ran \(bodies.hits(index)) times")
            }
            try expect(seen.count == 0, "round \(round): \(seen.elements.joined(separator: "; "))")
        }
    }
}

enum OpCancelIgnoresDependencies: OperationRule {
    static let id = "op.cancel-ignores-dependencies"
    static let title = "Cancelling an enqueued operation that waits for unfinished dependencies lets it finish at once, without its work, and its own dependents run."
    static let source = "Apple, Operation.cancel(): 'if an operation is in a queue but waiting on unfinished dependent operations, those operations are subsequently ignored. Because it is already cancelled, this behavior allows the operation queue to call the operation's start() method sooner and clear the object out of the queue'; swift-corelibs-foundation TestOperationQueue.swift test_DependencyCycleBreak, test_Lifecycle"

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
            try expect(!op.isFinished && ran.value == 0, "round \(round): an operation with an unfinished dependency ran or finished")
            op.cancel()
            try expectEventually(within: .seconds(2), "round \(round): the cancelled operation finishing while its dependency is still unfinished") {
                op.isFinished
            }
            try expectOpens(dependentRan, within: .seconds(2), "round \(round): the dependent of the cancelled operation")
            try expect(ran.value == 0, "round \(round): the cancelled operation's work ran")
            try expect(!blocker.isFinished, "round \(round): the dependency finished, so the check proved nothing")
        }
    }
}

enum OpCancelRunning: OperationRule {
    static let id = "op.cancel-running"
    static let title = "Cancelling a running operation sets isCancelled, which its work sees; the work decides when to return, and the operation then finishes."
    static let source = "Apple, Operation.cancel(): 'This method does not force your operation code to stop. Instead, it updates the object's internal flags to reflect the change in state'; seed 001_e0090210cb443119.txt (Listing 2-4, responding to a cancellation request: main loops while !isCancelled)"

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
            try expect(!op.isCancelled && op.isExecuting,
                       "round \(round): a running operation reports isCancelled \(op.isCancelled), isExecuting \(op.isExecuting) (false, true expected)")
            if round % 2 == 1 { Timing.pause(.milliseconds(2)) }
            op.cancel()
            try expect(op.isCancelled, "round \(round): isCancelled is false right after cancel()")
            try expectEventually(within: .seconds(3), "round \(round): the cancelled running operation finishing") { op.isFinished }
            try expect(observed.value == 1, "round \(round): the running work never saw isCancelled (it returned after its 5 s bound)")
            try expect(returned.value == 1, "round \(round): the operation finished before its work returned")
            op.cancel()
            try expect(op.isCancelled && op.isFinished, "round \(round): cancelling a finished operation changed it")
        }
    }
}

enum OpCompletion: OperationRule {
    static let id = "op.completion"
    static let title = "The completion block runs exactly once, after the operation finished (isFinished true, work returned), also for a cancelled operation and an asynchronous one."
    static let source = "Apple, Operation.completionBlock: 'The completion block you provide is executed when the value in the isFinished property changes to true'; seed 001_e0090210cb443119.txt (setting up a completion block); swift-corelibs-foundation TestOperationQueue.swift test_ConcurrentOperationsWithDependenciesAndCompletions"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.completion")
        let kinds = ["block", "main", "asynchronous", "cancelled block", "cancelled main"]
        for round in 0..<30 {
            let kind = round % kinds.count
            let label = "arena.op.completion.\(round)"
            let cancelled = kind >= 3
            let work = Counter()
            let op: L.Operation = switch kind {
            case 0, 3: layer.makeBlockOperation(label: label) {
                Timing.jitter(upTo: 200)
                work.add()
            }
            case 2: layer.makeAsynchronousOperation(label: label) { _, finish in
                Threads.detach {
                    Timing.pause(.microseconds(300))
                    work.add()
                    finish()
                }
            }
            default: layer.makeOperation(label: label) { _ in
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
            try expect(op.completionBlock != nil, "round \(round): completionBlock reads nil after it was set")
            if cancelled { op.cancel() }
            queue.addOperation(op)
            try expectOpens(done, "round \(round): the completion block of a \(kinds[kind]) operation")
            Timing.pause(.milliseconds(round % 5 == 0 ? 20 : 1))
            box.withLock { $0 = nil }
            op.completionBlock = nil
            try expect(runs.value == 1, "round \(round): the completion block of a \(kinds[kind]) operation ran \(runs.value) times")
            try expect(seen.count == 0, "round \(round): the completion block of a \(kinds[kind]) operation ran with \(seen.elements.joined(separator: "; "))")
        }
    }
}

enum OpAsyncOperation: OperationRule {
    static let id = "op.async-operation"
    static let title = "An asynchronous operation executes from start until it calls finish: isExecuting meanwhile, its dependents, its waiters and its queue's slot wait for finish, not for start to return."
    static let source = "seed 001_e0090210cb443119.txt (configuring operations for concurrent execution: start, isExecuting, isFinished, Listings 2-5 to 2-7); Apple, Operation.isAsynchronous and start(); swift-corelibs-foundation TestOperationQueue.swift test_AsyncOperation"

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
            try expect(op.isExecuting && !op.isFinished,
                       "round \(round): between start and finish the operation reports isExecuting \(op.isExecuting), isFinished \(op.isFinished) (true, false expected)")
            try expect(!dependentRan.isOpen, "round \(round): a dependent ran after start returned, before finish")
            try expect(!waiter.hasReturned, "round \(round): waitUntilFinished returned after start returned, before finish")
            if onSerial {
                try expect(!nextRan.isOpen, "round \(round): at width 1, the next operation started while the asynchronous one was executing")
            }
            Threads.detach { box.finish() }
            try expect(waiter.returns(), "round \(round): waitUntilFinished did not return within 5 s of finish")
            try expect(op.isFinished && !op.isExecuting,
                       "round \(round): after finish the operation reports isFinished \(op.isFinished), isExecuting \(op.isExecuting)")
            try expectOpens(dependentRan, "round \(round): the dependent after finish")
            if onSerial { try expectOpens(nextRan, "round \(round): the next operation at width 1 after finish") }
        }
    }
}

enum OpWaitUntilFinished: OperationRule {
    static let id = "op.wait-until-finished"
    static let title = "waitUntilFinished returns only once the operation finished, to every waiter, and at once for a finished operation."
    static let source = "Apple, Operation.waitUntilFinished() ('Blocks execution of the current thread until the operation object finishes its task'); seed 001_e0090210cb443119.txt (waitUntilFinished of NSOperation); swift-corelibs-foundation TestOperationQueue.swift test_OperationWaitUntilFinished"

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
                        seen.append("a waiter returned with the work \(finished.value == 1 ? "done" : "unfinished"), isFinished \(op.isFinished)")
                    }
                }
            }
            Timing.pause(round < 3 ? Timing.quietPeriod : .milliseconds(1))
            try expect(!waiters.contains(where: \.hasReturned), "round \(round): waitUntilFinished returned while the operation was blocked")
            gate.countDown()
            for waiter in waiters { try expect(waiter.returns(), "round \(round): waitUntilFinished did not return within 5 s") }
            try expect(seen.count == 0, "round \(round): \(seen.elements.joined(separator: "; "))")
            // Waiters on the operation now finished.
            let many = (0..<3).map { _ in BlockingCall { op.waitUntilFinished() } }
            for waiter in many { try expect(waiter.returns(within: .seconds(2)), "round \(round): waitUntilFinished on a finished operation did not return") }
        }
    }
}

enum OpWaitAll: OperationRule {
    static let id = "op.wait-all"
    static let title = "waitUntilAllOperationsAreFinished returns only after every operation added before it finished (dependent, asynchronous, blocked ones too), and at once on an empty queue."
    static let source = "Apple, OperationQueue.waitUntilAllOperationsAreFinished() ('Blocks the current thread until all the receiver's queued and executing operations finish executing… If there are no operations in the queue, this method returns immediately'); seed 001_e0090210cb443119.txt (waitUntilAllOperationsAreFinished); swift-corelibs-foundation TestOperationQueue.swift test_WaitUntilFinished, test_OperationCount"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.wait-all")
        let empty = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
        try expect(empty.returns(within: .seconds(2)), "waitUntilAllOperationsAreFinished on an empty queue did not return")
        for round in 0..<6 {
            queue.maxConcurrentOperationCount = round % 2 == 0 ? L.Queue.unlimited : 1
            let gate = Latch()
            let finished = Counter()
            let asyncBox = FinishBox()
            defer { asyncBox.finish() }
            var ops: [L.Operation] = []
            for index in 0..<12 {
                ops.append(layer.makeBlockOperation(label: "arena.op.wait-all.\(round).\(index)") {
                    Timing.jitter(upTo: 300)
                    finished.add()
                })
                if index > 0 && index % 4 == 0 { ops[index].addDependency(ops[index - 1]) }
            }
            ops.append(layer.makeBlockOperation(label: "arena.op.wait-all.\(round).gated") {
                gate.wait(.seconds(5))
                finished.add()
            })
            ops.append(layer.makeAsynchronousOperation(label: "arena.op.wait-all.\(round).asynchronous") { _, finish in
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
            try expect(!waiter.hasReturned, "round \(round): waitUntilAllOperationsAreFinished returned with \(total - finished.value) of \(total) operations unfinished (one blocked)")
            gate.countDown()
            if round % 2 == 0 {
                try expectOpens(asyncBox.hasStarted, "round \(round): the asynchronous operation starting")
                Timing.pause(.milliseconds(2))
                try expect(!waiter.hasReturned, "round \(round): waitUntilAllOperationsAreFinished returned while an asynchronous operation had not called finish")
            }
            Threads.detach {
                asyncBox.hasStarted.wait(.seconds(5))
                Timing.pause(.milliseconds(1))
                asyncBox.finish()
            }
            try expect(waiter.returns(), "round \(round): waitUntilAllOperationsAreFinished did not return within 5 s")
            try expect(seen.snapshot == total, "round \(round): waitUntilAllOperationsAreFinished returned with \(total - (seen.snapshot ?? 0)) of \(total) operations unfinished")
        }
    }
}

enum OpAddWaiting: OperationRule {
    static let id = "op.add-waiting"
    static let title = "addOperations with waitUntilFinished returns only after every operation it added finished; without it, at once."
    static let source = "Apple, OperationQueue.addOperations(_:waitUntilFinished:): 'If true, the current thread is blocked until all of the specified operations finish executing. If false, the operations are added to the queue and control returns immediately to the caller'; seed 001_e0090210cb443119.txt (addOperations:waitUntilFinished:); swift-corelibs-foundation TestOperationQueue.swift test_OperationPriorities"

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
                try expect(!call.hasReturned, "round \(round): addOperations(waitUntilFinished: true) returned with an operation it added still blocked")
                gate.countDown()
                try expect(call.returns(), "round \(round): addOperations(waitUntilFinished: true) did not return within 5 s")
                try expect(seen.snapshot == count, "round \(round): addOperations(waitUntilFinished: true) returned with \(count - (seen.snapshot ?? 0)) of \(count) unfinished")
            } else {
                let returned = call.returns(within: .seconds(2))
                gate.countDown()
                try expect(returned, "round \(round): addOperations(waitUntilFinished: false) did not return while an operation it added was blocked")
                let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
                try expect(drained.returns(), "round \(round): the operations added without waiting did not finish")
            }
        }
    }
}

enum OpSuspend: OperationRule {
    static let id = "op.suspend"
    static let title = "A suspended queue starts nothing, ready or added meanwhile; an operation already running goes on; resuming starts what is ready."
    static let source = "Apple, OperationQueue.isSuspended: 'Setting this property to true prevents the queue from starting any queued operations, but already executing operations continue to execute'; seed 001_e0090210cb443119.txt ('setSuspended: method for a queue does not cause already executing operations to pause'); swift-corelibs-foundation TestOperationQueue.swift test_isSuspended, test_OperationOrder"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.suspend")
        try expect(!queue.isSuspended, "a new queue reports isSuspended")
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
            try expect(queue.isSuspended, "round \(round): isSuspended reads false after it was set")
            let atSuspend = ticks.value
            let ran = Counter()
            let count = 6
            let done = Latch(count)
            for index in 0..<count {
                queue.addOperation(layer.makeBlockOperation(label: "arena.op.suspend.\(round).\(index)") {
                    ran.add()
                    done.countDown()
                })
            }
            Timing.pause(Timing.quietPeriod)
            try expect(ran.value == 0, "round \(round): \(ran.value) of \(count) operations started on a suspended queue")
            try expect(ticks.value > atSuspend, "round \(round): the running operation made no progress once its queue was suspended")
            stop.countDown()
            try expectEventually("round \(round): the running operation finishing on the suspended queue") { runner.isFinished }
            Timing.pause(Timing.quietPeriod)
            try expect(ran.value == 0, "round \(round): \(ran.value) of \(count) operations started on a suspended queue once the running one finished")
            queue.isSuspended = false
            try expect(!queue.isSuspended, "round \(round): isSuspended reads true after it was cleared")
            try expectOpens(done, "round \(round): the operations added while suspended, after resuming")
        }
    }
}

enum OpBarrierAfterEarlier: OperationRule {
    static let id = "op.barrier-after-earlier"
    static let title = "A barrier block runs only after every operation added before it finished (blocked, dependent and asynchronous ones too), and on an empty queue it runs."
    static let source = "Apple, OperationQueue.addBarrierBlock(_:): 'Invokes a block when the queue finishes all enqueued operations … The block to invoke after all currently enqueued operations have finished'; similar to dispatch_barrier_async; swift-corelibs-foundation Operation.swift (addBarrierBlock makes the barrier depend on every operation of the queue)"

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
                queue.addOperation(layer.makeBlockOperation(label: "arena.op.barrier-after-earlier.\(round).\(index)") {
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
                queue.addOperation(layer.makeAsynchronousOperation(label: "arena.op.barrier-after-earlier.\(round).asynchronous") { _, finish in
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
            try expect(seen.elements == [earlier], "round \(round): the barrier block ran with \(earlier - (seen.elements.first ?? 0)) of \(earlier) earlier operations unfinished")
        }
    }
}

enum OpBarrierBeforeLater: OperationRule {
    static let id = "op.barrier-before-later"
    static let title = "No operation added after a barrier block starts before the block returned, whether added while earlier ones run or while the barrier itself runs."
    static let source = "Apple, OperationQueue.addBarrierBlock(_:): 'prevents subsequent operations from starting until the block has completed … Operations you add after the barrier block don't start until the block has completed'"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.barrier-before-later")
        for round in 0..<10 {
            let barrierStarted = Latch()
            let barrierDone = Counter()
            let seen = Recorder<String>()
            let count = 8
            let done = Latch(count)
            for index in 0..<2 {
                queue.addOperation(layer.makeBlockOperation(label: "arena.op.barrier-before-later.\(round).earlier.\(index)") {
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
            try expect(seen.count == 0, "round \(round): \(seen.elements.prefix(3).joined(separator: "; "))")
        }
    }
}

enum OpCancelAll: OperationRule {
    static let id = "op.cancel-all"
    static let title = "cancelAllOperations cancels every operation of the queue: none that had not started runs its work, all finish and run their completion blocks, the running one sees isCancelled."
    static let source = "Apple, OperationQueue.cancelAllOperations() ('This method calls the cancel() method on all operations currently in the queue'); seed 001_e0090210cb443119.txt (cancel or cancelAllOperations is the only way to dequeue); swift-corelibs-foundation TestOperationQueue.swift test_CancelOperationsOfSpecificQueuePriority, test_CurrentQueueOnBackgroundQueueWithSelfCancel"

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
                let op: L.Operation = switch index % 3 {
                case 0: layer.makeBlockOperation(label: label) { bodies.hit(index) }
                case 1: layer.makeOperation(label: label) { _ in bodies.hit(index) }
                default: layer.makeAsynchronousOperation(label: label) { _, finish in
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
            try expect(runner.isCancelled && ops.allSatisfy(\.isCancelled),
                       "round \(round): after cancelAllOperations \(ops.filter { !$0.isCancelled }.count + (runner.isCancelled ? 0 : 1)) of \(count + 1) operations report isCancelled false")
            gate.countDown()
            try expectOpens(completions, "round \(round): the completion blocks of \(count + 1) cancelled operations")
            try expectOpens(dependentRan, "round \(round): the dependent of a cancelled operation")
            for (index, op) in ops.enumerated() {
                try expectEventually("round \(round): cancelled operation \(index) reporting isFinished") { op.isFinished }
            }
            try expectEventually("round \(round): the running operation finishing") { runner.isFinished }
            let ranWork = (0..<count).filter { bodies.hits($0) > 0 }
            try expect(ranWork.isEmpty, "round \(round): the work of cancelled unstarted operations \(ranWork) ran")
            try expect(sawCancelled.value == 1 && runnerReturned.value == 1,
                       "round \(round): the running operation \(runnerReturned.value == 1 ? "ran to its end" : "was cut short") and \(sawCancelled.value == 1 ? "saw" : "did not see") isCancelled")
            Timing.pause(.milliseconds(2))
            try expect(completionRuns.value == count + 1, "round \(round): \(completionRuns.value) completion blocks ran for \(count + 1) operations")
        }
    }
}

enum OpOperationCount: OperationRule {
    static let id = "op.operation-count"
    static let title = "operationCount counts the operations added and not yet finished: waiting, suspended or running; it falls as they finish, to 0."
    static let source = "Apple, OperationQueue.operationCount ('The number of operations currently in the queue … Because the number of operations in the queue changes as those operations finish executing, the value returned by this property reflects the instantaneous number'); swift-corelibs-foundation TestOperationQueue.swift test_OperationCount, test_OperationWaitUntilFinished"

    static func check<L: OperationLayer>(_ layer: L) throws {
        let queue = layer.makeQueue(label: "arena.op.operation-count")
        try expect(queue.operationCount == 0, "a new queue counts \(queue.operationCount) operations")
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
            try expect(queue.operationCount == added, "round \(round): \(queue.operationCount) operations counted after \(added) were added to a suspended queue")
            queue.addOperations((4..<7).map { gated($0, second) }, waitUntilFinished: false)
            added += 3
            try expect(queue.operationCount == added, "round \(round): \(queue.operationCount) operations counted after \(added) were added (3 by addOperations)")
            queue.addOperation { second.wait(.seconds(5)) }
            added += 1
            try expect(queue.operationCount == added, "round \(round): \(queue.operationCount) operations counted after \(added) were added (1 as a block)")
            queue.isSuspended = false
            Timing.pause(.milliseconds(5))
            try expect(queue.operationCount == added, "round \(round): \(queue.operationCount) operations counted with \(added) running or waiting, none finished")
            first.countDown()
            try expectEventually("round \(round): operationCount falling to 4 once 4 of \(added) finished (\(queue.operationCount) counted)") {
                queue.operationCount == 4
            }
            second.countDown()
            try expectEventually("round \(round): operationCount falling to 0 once all finished (\(queue.operationCount) counted)") {
                queue.operationCount == 0
            }
        }
    }
}

enum OpExecutionBlocks: OperationRule {
    static let id = "op.execution-blocks"
    static let title = "A block operation runs each of its execution blocks exactly once, and finishes (waiters, dependents, completion) only after all of them returned."
    static let source = "Apple, BlockOperation.addExecutionBlock(_:) and executionBlocks; Concurrency Programming Guide ('only when all of the associated blocks have finished executing is the operation itself considered finished'); seed 001_e0090210cb443119.txt (NSBlockOperation, addExecutionBlock:); swift-corelibs-foundation TestOperationQueue.swift test_BlockOperationAddExecutionBlock"

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
            try expect(waiter.returns(), "round \(round): waitUntilFinished on a block operation of \(count) blocks did not return")
            try expectOpens(completed, "round \(round): the completion block")
            try expectOpens(dependentRan, "round \(round): the dependent")
            op.completionBlock = nil
            let wrong = hits.wrong()
            try expect(wrong.isEmpty, "round \(round): execution blocks run other than once: \(wrong.map { "block \($0.index) \($0.hits) times" }.joined(separator: ", "))")
            try expect(seen.count == 0, "round \(round): \(seen.elements.joined(separator: "; "))")
        }
    }
}

enum OpDependencyCycle: OperationRule {
    static let id = "op.dependency-cycle"
    static let title = "Two operations that depend on each other never become ready (Foundation does not diagnose the cycle, it never starts them): the queue's other operations still run, and cancelling both clears them without their work."
    static let source = "Apple, Operation.addDependency(_:): 'It is a programmer error to create any circular dependencies among a set of operations. Doing so can cause a deadlock among the operations'; Foundation's behaviour, a bounded check (200 ms): swift-corelibs-foundation TestOperationQueue.swift test_DependencyCycleBreak (a cycle is broken by cancelling one of it); Operation.cancel()"

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
        try expect(ran.value == 0, "an operation of a dependency cycle ran (\(ran.value) of 2)")
        try expect(!first.isReady && !second.isReady && !first.isExecuting && !second.isExecuting && !first.isFinished && !second.isFinished,
                   "an operation of a dependency cycle reports isReady \(first.isReady)/\(second.isReady), isExecuting \(first.isExecuting)/\(second.isExecuting), isFinished \(first.isFinished)/\(second.isFinished)")
        // Cancelled while the queue is suspended, neither can start before both are cancelled.
        queue.isSuspended = true
        first.cancel()
        second.cancel()
        queue.isSuspended = false
        try expectEventually("the cancelled operations of a dependency cycle finishing") { first.isFinished && second.isFinished }
        try expect(ran.value == 0, "\(ran.value) cancelled operations of a dependency cycle ran their work")
        let drained = BlockingCall { queue.waitUntilAllOperationsAreFinished() }
        try expect(drained.returns(), "waitUntilAllOperationsAreFinished did not return once the cycle was cancelled")
    }
}
