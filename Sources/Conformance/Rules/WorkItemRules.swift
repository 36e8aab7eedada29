import ArenaContract
import Harness

/// Work items: cancel, notify, wait.
enum WorkItemRules: RuleFamily {
    static let concept = Concept.workItems
    static let rules: [any ConformanceRule.Type] = [
        WorkItemCancelBefore.self, WorkItemCancelDuring.self, WorkItemNotify.self, WorkItemWait.self,
        WorkItemAfterCancelled.self, WorkItemDoubleWait.self, WorkItemBarrierFlag.self, WorkItemGroupNotify.self,
        WorkItemNotifyWhileFinishing.self,
    ]
}

enum WorkItemCancelBefore: BehaviourRule {
    static let id = "workitem.cancel-before"
    static let title = "An item cancelled before it starts never runs its body; its notify and wait still complete."
    static let source =
        "dispatch_block_cancel(3): 'cancellation causes any future execution of the block to return immediately'; [GCD Handbook] (cancelling work items)"

    static let forbidden: [Outcome] = [.missing, .ranWhileHeld, .wrongState]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.cancel-before")
        let ran = Counter()
        for round in 0..<50 {
            let item = engine.makeWorkItem(label: "arena.workitem.cancel-before.\(round)") { ran.add() }
            let notified = Latch()
            item.notify(queue: queue) { notified.countDown() }
            if round % 2 == 0 {
                queue.suspend()
                queue.async(item)
                item.cancel()
                queue.resume()
            } else {
                item.cancel()
                item.perform()
            }
            try expect(item.isCancelled, .wrongState, "round \(round): isCancelled is false after cancel()")
            try expect(
                item.wait(until: .now() + .seconds(5)) == .success, .missing, "round \(round): wait on a cancelled item did not return")
            try expectOpens(notified, "round \(round): notify of a cancelled item")
        }
        queue.sync {}
        try expect(ran.value == 0, .ranWhileHeld, "cancelled items ran their body \(ran.value) times")
    }
}

enum WorkItemCancelDuring: BehaviourRule {
    static let id = "workitem.cancel-during"
    static let title = "Cancelling a running item only sets isCancelled, which the body can observe; the body runs to its end."
    static let source =
        "dispatch_block_cancel(3): 'cancellation has no effect on a block that is already in progress'; dispatch_block_testcancel(3)"

    static let forbidden: [Outcome] = [.missing, .wrongValue, .wrongState]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.cancel-during", kind: .concurrent)
        for round in 0..<10 {
            let started = Latch()
            let cancelled = Latch()
            let observed = Counter()
            let finished = Counter()
            let box = Locked<E.WorkItem?>(nil)
            let item = engine.makeWorkItem(label: "arena.workitem.cancel-during.\(round)") {
                started.countDown()
                cancelled.wait(.seconds(5))
                if box.snapshot?.isCancelled == true { observed.add() }
                finished.add()
            }
            box.withLock { $0 = item }
            try expect(!item.isCancelled, .wrongValue, "round \(round): a new item reports cancelled")
            queue.async(item)
            try expectOpens(started, "round \(round): the item starting")
            item.cancel()
            cancelled.countDown()
            try expect(item.wait(until: .now() + .seconds(5)) == .success, .missing, "round \(round): wait did not return")
            box.withLock { $0 = nil }
            try expect(finished.value == 1, .missing, "round \(round): the cancelled running body did not run to its end")
            try expect(observed.value == 1, .wrongState, "round \(round): the running body did not observe isCancelled")
        }
    }
}

enum WorkItemNotify: BehaviourRule {
    static let id = "workitem.notify"
    static let title = "notify runs after the item finished, whether it ran on a queue or by perform()."
    static let source = "dispatch_block_notify(3)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.notify", kind: .concurrent)
        let notifyQueue = engine.makeQueue(label: "arena.workitem.notify.target")
        for round in 0..<40 {
            let finished = Counter()
            let item = engine.makeWorkItem(label: "arena.workitem.notify.\(round)") {
                Timing.jitter(upTo: 500)
                finished.add()
            }
            let seen = Recorder<Int>()
            let notified = Latch(2)
            for _ in 0..<2 {
                item.notify(queue: notifyQueue) {
                    seen.append(finished.value)
                    notified.countDown()
                }
            }
            if round % 2 == 0 { queue.async(item) } else { Threads.detach { item.perform() } }
            try expectOpens(notified, "round \(round): two notifications")
            try expect(
                seen.elements == [1, 1], .early,
                "round \(round): notify ran with the body finished \(seen.elements) times (1 expected each)")
        }
    }
}

enum WorkItemWait: BehaviourRule {
    static let id = "workitem.wait"
    static let title = "wait returns after the item ran; with a deadline it can time out, and a later wait can still succeed."
    static let source = "dispatch_block_wait(3): 'returns non-zero if the timeout elapsed'"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.wait", kind: .concurrent)
        let finished = Counter()
        let slow = engine.makeWorkItem(label: "arena.workitem.wait.slow") {
            Timing.pause(.milliseconds(300))
            finished.add()
        }
        queue.async(slow)
        // 30 ms against a body of 300 ms: must time out even on a loaded machine.
        let first = slow.wait(until: .now() + .milliseconds(30))
        try expect(first == .timedOut, .early, "a wait of 30 ms on a 300 ms item returned \(first)")
        let second = slow.wait(until: .now() + .seconds(5))
        try expect(second == .success, .missing, "the wait after a time-out returned \(second)")
        try expect(finished.value == 1, .early, "wait succeeded before the body finished")

        for round in 0..<100 {
            let done = Counter()
            let item = engine.makeWorkItem(label: "arena.workitem.wait.\(round)") {
                Timing.jitter(upTo: 100)
                done.add()
            }
            queue.async(item)
            try expect(
                item.wait(until: .now() + .seconds(5)) == .success && done.value == 1, .early,
                "round \(round): wait returned with the body \(done.value == 1 ? "finished" : "unfinished")")
        }
    }
}

enum WorkItemAfterCancelled: BehaviourRule {
    static let id = "workitem.after-cancelled"
    static let title = "An item scheduled with asyncAfter and cancelled before its deadline never runs."
    static let source = "dispatch_block_cancel(3) with dispatch_after(3); [GCD Handbook] (cancelling a delayed work item)"

    static let forbidden: [Outcome] = [.missing, .lost, .ranWhileHeld]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.after-cancelled", kind: .concurrent)
        let ran = Counter()
        let kept = Counter()
        let count = 40
        let keptDone = Latch(count / 2)
        for index in 0..<count {
            let cancel = index % 2 == 0
            let item = engine.makeWorkItem(label: "arena.workitem.after-cancelled.\(index)") {
                if cancel { ran.add() } else { kept.add(); keptDone.countDown() }
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(60), item)
            if cancel { item.cancel() }
        }
        try expectOpens(keptDone, "the uncancelled delayed items")
        Timing.pause(.milliseconds(100))
        try expect(ran.value == 0, .ranWhileHeld, "\(ran.value) cancelled delayed items ran")
        try expect(kept.value == count / 2, .lost, "\(kept.value) of \(count / 2) uncancelled items ran")
    }
}

enum WorkItemDoubleWait: MisuseRule {
    static let id = "workitem.double-wait"
    static let title = "Waiting twice on one work item is misuse: the process stops with a message naming the item."
    static let source =
        "dispatch_block_wait(3): 'may only be waited upon once'; libdispatch crashes 'A block object may not be waited for more than once'"
    static let objectLabel = "arena.misuse.double-wait"
    static let keywords = ["twice", "more than once"]

    static func trigger<E: Engine>(_ engine: E) {
        let item = engine.makeWorkItem(label: objectLabel) {}
        engine.globalQueue.async(item)
        _ = item.wait(until: .distantFuture)
        _ = item.wait(until: .distantFuture)
    }
}

enum WorkItemBarrierFlag: BehaviourRule {
    static let id = "workitem.barrier-flag"
    static let title = "A work item flagged barrier, on a concurrent queue, starts after the blocks before it and runs alone."
    static let source = "DISPATCH_BLOCK_BARRIER in dispatch_block_create(3) (block.h); DispatchWorkItemFlags.barrier"

    static let forbidden: [Outcome] = [.missing, .overlap, .serialized]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.barrier", kind: .concurrent)
        let meter = ConcurrencyMeter()
        let finished = Counter()
        let seen = Recorder<String>()
        let done = Latch(5 * 9)
        for round in 0..<5 {
            for _ in 0..<4 {
                queue.async {
                    meter.measure { Timing.pause(.milliseconds(2)) }
                    finished.add()
                    done.countDown()
                }
            }
            let item = engine.makeWorkItem(label: "arena.workitem.barrier.\(round)", flags: .barrier) {
                let inside = meter.enter()
                let before = finished.value
                Timing.pause(.milliseconds(3))
                meter.leave()
                if inside != 1 || before != round * 8 + 4 {
                    seen.append("round \(round): \(inside) inside with it, \(before - round * 8) of 4 earlier finished")
                }
                done.countDown()
            }
            queue.async(item)
            for _ in 0..<4 {
                queue.async {
                    meter.measure { Timing.pause(.milliseconds(2)) }
                    finished.add()
                    done.countDown()
                }
            }
        }
        try expectOpens(done, "5 rounds of 4 blocks, a barrier item, 4 blocks")
        try expect(seen.count == 0, .overlap, seen.elements.prefix(2).joined(separator: "; "))
        try expect(meter.maximum > 1, .serialized, "blocks never overlapped (peak \(meter.maximum)): the queue is not concurrent")
    }
}

enum WorkItemGroupNotify: BehaviourRule {
    static let id = "workitem.group-notify"
    static let title =
        "A group notifies with a work item once empty: the item runs then; a cancelled one skips its block and still notifies."
    static let source = "dispatch_group_notify(3) with a block object (DispatchGroup.notify(queue:work:)); dispatch_block_cancel(3)"

    static let forbidden: [Outcome] = [.missing, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.group-notify")
        for round in 0..<10 {
            let group = engine.makeGroup(label: "arena.workitem.group-notify.\(round)")
            let left = Counter()
            let ran = Recorder<Int>()
            let notified = Latch(2)
            let item = engine.makeWorkItem(label: "arena.workitem.group-notify.\(round)") { ran.append(left.value) }
            let skipped = engine.makeWorkItem(label: "arena.workitem.group-notify.cancelled.\(round)") { ran.append(-1) }
            skipped.cancel()
            for piece in [item, skipped] { piece.notify(queue: queue) { notified.countDown() } }
            group.enter()
            group.notify(queue: queue, item: item)
            group.notify(queue: queue, item: skipped)
            Timing.pause(.milliseconds(round % 3))
            left.add()
            group.leave()
            try expectOpens(notified, "round \(round): both items' notifications")
            try expect(
                ran.elements == [1], .early,
                "round \(round): the items' blocks saw \(ran.elements) ([1]: the first, after the leave; -1: the cancelled one ran)")
        }
    }
}

enum WorkItemNotifyWhileFinishing: BehaviourRule {
    static let id = "workitem.notify-while-finishing"
    static let title =
        "A notify registered while the item is finishing (racing the end of its body) runs exactly once, after the body: whether it lands before or after the end, it is neither lost nor run twice."
    static let source = """
        dispatch_block_notify(3) ('schedule a notification block to be submitted to a queue when the execution of a \
        specified block object has completed'; registered after completion, it is submitted at once); libdispatch \
        block.cpp and queue.c (dispatch_block_notify on a finished block submits the notification directly)
        """
    static let forbidden: [Outcome] = [.missing, .extra, .early]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.workitem.notify-while-finishing", kind: .concurrent)
        let notifyQueue = engine.makeQueue(label: "arena.workitem.notify-while-finishing.notify", kind: .concurrent)
        let rounds = 400
        var notified: [Counter] = []
        let early = Counter()
        for round in 0..<rounds {
            let finished = Counter()
            let started = Latch()
            let go = Counter()
            let item = engine.makeWorkItem(label: "arena.workitem.notify-while-finishing.\(round)") {
                // The body spins until the registering side comes, so that a slow wake-up on a loaded machine cannot
                // put the registration long after the end: from the meeting, the body ends 0 to 20 µs later and the
                // notify is registered 0 to 20 µs later, on either side of the end and often in the middle of it. The
                // registering side, second to arrive, is woken (spinning, it could keep the body from a CPU).
                started.countDown()
                Timing.spinUntil(.milliseconds(200)) { go.value > 0 }
                Timing.jitter(upTo: 20)
                finished.add()
            }
            queue.async(item)
            try expect(started.wait(.seconds(5)), .missing, "round \(round): the item's body did not start within 5 s")
            go.add()
            Timing.jitter(upTo: 20)
            let count = Counter()
            item.notify(queue: notifyQueue) {
                if finished.value == 0 { early.add() }
                count.add()
            }
            notified.append(count)
        }
        let allRan = Timing.eventually(within: .seconds(5)) { notified.allSatisfy { $0.value > 0 } }
        Timing.pause(Timing.quietPeriod)
        let runs = notified.map(\.value)
        try expect(
            allRan, .missing,
            "\(runs.filter { $0 == 0 }.count) of \(rounds) notifies registered while their item finished never ran (5 s)")
        try expect(
            runs.allSatisfy { $0 == 1 }, .extra,
            "\(runs.filter { $0 > 1 }.count) of \(rounds) notifies registered while their item finished ran more than once")
        try expect(early.value == 0, .early, "\(early.value) of \(rounds) notifies ran before their item's body finished")
    }
}
