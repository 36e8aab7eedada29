import ArenaContract
import Contenders
import Harness
import Testing

/// A quick look at `EngineOperations` on each engine: dependencies across queues, width, priority, cancellation,
/// asynchronous operations, barriers and waits. Every wait has a deadline, so a wedged layer fails instead of hanging.
extension ArenaTests {
    @Suite struct EngineOperationsSmokeTests {
        static let engines = ["system", "mutex", "lockfree", "actor"].filter(TestEngines.catalogEngines.contains)

        /// The engine's operation layer (opened back to its concrete type where a check takes `some OperationLayer`).
        static func layer(_ engine: String) -> any OperationLayer { TestEngines.named(engine)!.operations }

        @Test("a chain of 100 dependent operations across two queues runs in order", arguments: engines)
        func chain(_ engine: String) { Self.chain(Self.layer(engine)) }

        @Test("width 3 is never exceeded", arguments: engines)
        func width(_ engine: String) { Self.width(Self.layer(engine)) }

        @Test("a resumed serial queue runs the ready operations by priority, then by addition", arguments: engines)
        func priority(_ engine: String) { Self.priority(Self.layer(engine)) }

        @Test("cancelled before starting: no work, completion runs, dependents released", arguments: engines)
        func cancel(_ engine: String) { Self.cancel(Self.layer(engine)) }

        @Test("an asynchronous operation holds its dependents until finish", arguments: engines)
        func asynchronous(_ engine: String) { Self.asynchronous(Self.layer(engine)) }

        @Test("a barrier runs after the earlier operations and before the later ones", arguments: engines)
        func barrier(_ engine: String) { Self.barrier(Self.layer(engine)) }

        @Test("the waits return once everything finished; completion blocks see it finished", arguments: engines)
        func waits(_ engine: String) { Self.waits(Self.layer(engine)) }

        static func chain<L: OperationLayer>(_ layer: L) {
            let queues = [layer.makeQueue(label: "test.chain.a"), layer.makeQueue(label: "test.chain.b")]
            let log = Locked<[Int]>([])
            var operations: [L.Operation] = []
            for index in 0..<100 {
                let operation = layer.makeBlockOperation(label: "test.chain.\(index)") { log.withLock { $0.append(index) } }
                if let previous = operations.last { operation.addDependency(previous) }
                operations.append(operation)
            }
            // Last first, so that addition order alone would run it backwards.
            for (index, operation) in operations.enumerated().reversed() { queues[index % 2].addOperation(operation) }
            // A dependency cycle on the same queue is never ready and stops nothing else; cancelling clears it.
            let cycle = [layer.makeBlockOperation(label: "test.cycle.a") {}, layer.makeBlockOperation(label: "test.cycle.b") {}]
            cycle[0].addDependency(cycle[1])
            cycle[1].addDependency(cycle[0])
            queues[0].addOperations(cycle, waitUntilFinished: false)
            let last = operations[99]
            #expect(within { last.waitUntilFinished() }, "the chain never finished")
            #expect(log.snapshot == Array(0..<100))
            #expect(queues[0].operationCount == 2 && !cycle[0].isReady)
            queues[0].cancelAllOperations()
            #expect(within { queues[0].waitUntilAllOperationsAreFinished() }, "the cancelled cycle never finished")
        }

        static func width(_ layer: some OperationLayer) {
            let queue = layer.makeQueue(label: "test.width")
            queue.maxConcurrentOperationCount = 3
            let now = Locked((running: 0, peak: 0))
            for _ in 0..<30 {
                queue.addOperation {
                    now.withLock {
                        $0.running += 1; $0.peak = max($0.peak, $0.running)
                    }
                    Threads.sleep(.milliseconds(2))
                    now.withLock { $0.running -= 1 }
                }
            }
            #expect(within { queue.waitUntilAllOperationsAreFinished() })
            #expect((1...3).contains(now.snapshot.peak), "peak \(now.snapshot.peak)")
        }

        static func priority<L: OperationLayer>(_ layer: L) {
            let queue = layer.makeQueue(label: "test.priority")
            queue.maxConcurrentOperationCount = 1
            queue.isSuspended = true
            let log = Locked<[String]>([])
            func operation(_ name: String, _ priority: OperationPriority) -> L.Operation {
                let operation = layer.makeBlockOperation(label: name) { log.withLock { $0.append(name) } }
                operation.queuePriority = priority
                return operation
            }
            // Added first and at the highest priority, but waiting for `gate`: everything ready runs before it.
            let gate = operation("gate", .normal)
            let waiting = operation("waiting", .veryHigh)
            waiting.addDependency(gate)
            queue.addOperation(waiting)
            let ready = [
                operation("low", .low), operation("normal1", .normal), operation("veryHigh", .veryHigh),
                operation("high", .high), operation("veryLow", .veryLow), operation("normal2", .normal),
            ]
            queue.addOperations(ready, waitUntilFinished: false)
            #expect(queue.operationCount == 7)
            queue.isSuspended = false
            #expect(within { for operation in ready { operation.waitUntilFinished() } })
            #expect(!waiting.isFinished)
            layer.makeQueue(label: "test.priority.gate").addOperation(gate)
            #expect(within { queue.waitUntilAllOperationsAreFinished() })
            #expect(log.snapshot == ["veryHigh", "high", "normal1", "normal2", "low", "veryLow", "gate", "waiting"])
        }

        static func cancel(_ layer: some OperationLayer) {
            let queue = layer.makeQueue(label: "test.cancel")
            let ran = Locked<[String]>([])
            let completed = Latch(3)
            let never = layer.makeBlockOperation(label: "never") {}  // never enqueued: its dependents wait for good
            let cancelled = [
                layer.makeBlockOperation(label: "block") { ran.withLock { $0.append("block") } },
                layer.makeOperation(label: "main") { _ in ran.withLock { $0.append("main") } },
                layer.makeAsynchronousOperation(label: "start") { _, finish in
                    ran.withLock { $0.append("start") }; finish()
                },
            ]
            let dependent = layer.makeBlockOperation(label: "dependent") { ran.withLock { $0.append("dependent") } }
            for operation in cancelled {
                operation.addDependency(never)
                operation.completionBlock = { completed.countDown() }
                dependent.addDependency(operation)
            }
            queue.addOperations(cancelled + [dependent], waitUntilFinished: false)
            Threads.sleep(.milliseconds(10))
            #expect(ran.snapshot.isEmpty && !dependent.isReady)
            for operation in cancelled { operation.cancel() }
            #expect(within { dependent.waitUntilFinished() }, "the dependent never ran")
            #expect(completed.wait(.seconds(5)), "a completion block never ran")
            #expect(ran.snapshot == ["dependent"])
            #expect(cancelled.allSatisfy { $0.isCancelled && $0.isFinished && !$0.isExecuting })
        }

        static func asynchronous(_ layer: some OperationLayer) {
            let queue = layer.makeQueue(label: "test.async")
            let finishes = Locked<[@Sendable () -> Void]>([])
            let started = Latch()
            let operation = layer.makeAsynchronousOperation(label: "async") { _, finish in
                finishes.withLock { $0.append(finish) }
                started.countDown()
            }
            let dependent = layer.makeBlockOperation(label: "dependent") {}
            dependent.addDependency(operation)
            queue.addOperations([operation, dependent], waitUntilFinished: false)
            #expect(started.wait(.seconds(5)), "start never ran")
            Threads.sleep(.milliseconds(20))
            #expect(operation.isExecuting && !operation.isFinished && !dependent.isFinished)
            #expect(queue.operationCount == 2)
            finishes.snapshot.first?()
            #expect(within { queue.waitUntilAllOperationsAreFinished() })
            #expect(operation.isFinished && !operation.isExecuting && dependent.isFinished)
        }

        static func barrier(_ layer: some OperationLayer) {
            let queue = layer.makeQueue(label: "test.barrier")
            let log = Locked<[String]>([])
            for _ in 0..<4 {
                queue.addOperation {
                    Threads.sleep(.milliseconds(5)); log.withLock { $0.append("before") }
                }
            }
            queue.addBarrierBlock { log.withLock { $0.append("barrier") } }
            for _ in 0..<4 { queue.addOperation { log.withLock { $0.append("after") } } }
            #expect(within { queue.waitUntilAllOperationsAreFinished() })
            #expect(log.snapshot == Array(repeating: "before", count: 4) + ["barrier"] + Array(repeating: "after", count: 4))
        }

        static func waits(_ layer: some OperationLayer) {
            let queue = layer.makeQueue(label: "test.waits")
            let count = Locked(0)
            let sawFinished = Locked<[Bool]>([])
            let completions = Latch(10)
            let operations = (0..<10).map { index in
                layer.makeBlockOperation(label: "test.waits.\(index)") {
                    Threads.sleep(.milliseconds(1))
                    count.withLock { $0 += 1 }
                }
            }
            for operation in operations {
                operation.completionBlock = {  // holds its operation until it ran (the layer drops it then)
                    sawFinished.withLock { $0.append(operation.isFinished) }
                    completions.countDown()
                }
            }
            operations[0].addExecutionBlock { count.withLock { $0 += 1 } }
            operations[0].addExecutionBlock { count.withLock { $0 += 1 } }
            #expect(within { queue.addOperations(operations, waitUntilFinished: true) })
            #expect(count.snapshot == 12)
            for _ in 0..<10 {
                queue.addOperation {
                    Threads.sleep(.milliseconds(1)); count.withLock { $0 += 1 }
                }
            }
            #expect(within { queue.waitUntilAllOperationsAreFinished() })
            #expect(count.snapshot == 22 && queue.operationCount == 0)
            #expect(completions.wait(.seconds(5)))
            #expect(sawFinished.snapshot == Array(repeating: true, count: 10))
        }
    }
}

/// Runs `body` on a plain thread and waits for it until the deadline: false if it is still blocked then (the thread is
/// abandoned).
private func within(_ timeout: Duration = .seconds(5), _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = Latch()
    Threads.detach {
        body()
        done.countDown()
    }
    return done.wait(timeout)
}
