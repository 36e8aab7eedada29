import ArenaContract
import Conformance
import Contenders
import Harness
import Testing

/// Plain memory with no synchronisation of its own: only the engine's ordering keeps accesses apart. The checks pass
/// on any engine that keeps the order it promises; under ThreadSanitizer they also fail an engine whose ordering is
/// real but invisible to the sanitizer (as the actor engine's mailbox hand-off was, issue 12), because a user's
/// code on that engine would get the same false report.
final class PlainSlots: @unchecked Sendable {
    let count: Int
    private let base: UnsafeMutablePointer<Int>

    init(_ count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    deinit { base.deallocate() }

    subscript(index: Int) -> Int {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// The indices whose value is not `expected`, at most three.
    func wrong(_ expected: Int) -> [Int] { Array((0..<count).filter { base[$0] != expected }.prefix(3)) }
}

/// Each probe hands plain memory across one ordering edge of the contract, many times.
enum HappensBefore {
    static let rules: [Rule] =
        ([
            SerialAsync.self, SyncBothWays.self, BarrierEdges.self, GroupEdges.self, SemaphoreEdge.self, WorkItemEdges.self,
            OnceEdge.self, ApplyEdge.self, AfterEdge.self, TargetEdge.self, ResumeEdge.self, SourceEdge.self,
        ] as [any BehaviourRule.Type]).map { Rule($0, concept: .queues) }

    static func rule(id: String) -> Rule? { rules.first { $0.id == id } }

    /// Block n of a serial queue sees block n-1's write; the sync after them sees them all.
    enum SerialAsync: BehaviourRule {
        static let id = "hb.serial-async"
        static let title = "A serial queue's block sees the writes of the blocks before it."
        static let source = "dispatch_queue_create(3): blocks of a serial queue run one at a time, in order"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.serial-async")
            let cell = PlainSlots(1)
            for _ in 0..<2_000 { queue.async { cell[0] += 1 } }
            let seen = queue.sync { cell[0] }
            try expect(seen == 2_000, .stale, "the sync block saw \(seen) of 2000 increments")
        }
    }

    /// The caller's writes before sync reach the block, and the block's writes reach the caller after it returns,
    /// on serial and concurrent queues.
    enum SyncBothWays: BehaviourRule {
        static let id = "hb.sync"
        static let title = "sync orders the caller's writes before its block, and the block's before sync returns."
        static let source = "dispatch_sync(3): 'does not return until the block has finished'"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queues = [engine.makeQueue(label: "hb.sync.serial"), engine.makeQueue(label: "hb.sync.concurrent", kind: .concurrent)]
            let cell = PlainSlots(2)
            for round in 1...500 {
                cell[0] = round
                let seen = queues[round % 2].sync { () -> Int in
                    cell[1] = round
                    return cell[0]
                }
                try expect(seen == round && cell[1] == round, .stale, "round \(round): block saw \(seen), caller saw \(cell[1])")
            }
        }
    }

    /// Blocks before a barrier reach it; the barrier reaches the blocks after it; barrierSync reaches its caller.
    enum BarrierEdges: BehaviourRule {
        static let id = "hb.barrier"
        static let title = "A barrier sees the writes of the blocks before it; the blocks after it see its writes."
        static let source = "dispatch_barrier_async(3)"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.barrier", kind: .concurrent)
            let slots = PlainSlots(8), shared = PlainSlots(1), after = PlainSlots(8)
            for round in 1...100 {
                for index in 0..<8 { queue.async { slots[index] = round } }
                queue.barrierAsync {
                    if slots.wrong(round).isEmpty { shared[0] = round }
                }
                for index in 0..<8 { queue.async { after[index] = shared[0] } }
                let (sharedSeen, afterWrong) = queue.barrierSync { (shared[0], after.wrong(round)) }
                try expect(
                    sharedSeen == round && afterWrong.isEmpty, .stale,
                    "round \(round): barrier saw \(sharedSeen), later blocks wrong at \(afterWrong)")
            }
        }
    }

    /// A group's blocks reach the waiter after wait and the notify block.
    enum GroupEdges: BehaviourRule {
        static let id = "hb.group"
        static let title = "wait and notify see the writes of the group's blocks."
        static let source = "dispatch_group_wait(3), dispatch_group_notify(3)"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let notifyQueue = engine.makeQueue(label: "hb.group.notify")
            let notified = Latch(100)
            let notifyWrong = PlainSlots(100)
            for round in 1...100 {
                let group = engine.makeGroup(label: "hb.group")
                let slots = PlainSlots(8)
                for index in 0..<8 { group.async(on: engine.globalQueue) { slots[index] = round } }
                group.notify(queue: notifyQueue) {
                    notifyWrong[round - 1] = slots.wrong(round).count
                    notified.countDown()
                }
                try expect(group.wait(until: .now() + .seconds(5)) == .success, .missing, "round \(round): wait timed out")
                try expect(slots.wrong(round).isEmpty, .stale, "round \(round): after wait, slots \(slots.wrong(round)) unwritten")
            }
            try expect(notified.wait(.seconds(5)), .missing, "\(notified.remainingCount) notify blocks did not run")
            try expect(
                notifyWrong.wrong(0).isEmpty, .stale, "notify blocks saw unwritten slots in rounds \(notifyWrong.wrong(0).map { $0 + 1 })")
        }
    }

    /// What a thread wrote before signal reaches the thread its signal lets through.
    enum SemaphoreEdge: BehaviourRule {
        static let id = "hb.semaphore"
        static let title = "The thread a signal admits sees what the signalling thread wrote before it."
        static let source = "dispatch_semaphore_signal(3)"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let ping = engine.makeSemaphore(value: 0)!, pong = engine.makeSemaphore(value: 0)!
            let cell = PlainSlots(2)
            let done = Latch()
            Threads.detach {
                for _ in 1...1_000 {
                    guard ping.wait(until: .now() + .seconds(5)) == .success else { break }
                    cell[1] = cell[0]
                    pong.signal()
                }
                done.countDown()
            }
            for round in 1...1_000 {
                cell[0] = round
                ping.signal()
                try expect(pong.wait(until: .now() + .seconds(5)) == .success, .missing, "round \(round): no answer")
                try expect(cell[1] == round, .stale, "round \(round): the other thread saw \(cell[1])")
            }
            try expect(done.wait(.seconds(5)), .missing, "the other thread did not finish")
        }
    }

    /// A work item's writes reach its waiter and its notify block.
    enum WorkItemEdges: BehaviourRule {
        static let id = "hb.workitem"
        static let title = "wait and notify on a work item see the writes of its block."
        static let source = "DispatchWorkItem.wait, DispatchWorkItem.notify"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.workitem", kind: .concurrent)
            let notifyQueue = engine.makeQueue(label: "hb.workitem.notify")
            let notified = Latch(200)
            let notifySaw = PlainSlots(200)
            for round in 1...200 {
                let cell = PlainSlots(1)
                let item = engine.makeWorkItem(label: "hb.workitem") { cell[0] = round }
                item.notify(queue: notifyQueue) {
                    notifySaw[round - 1] = cell[0]
                    notified.countDown()
                }
                queue.async(item)
                try expect(item.wait(until: .now() + .seconds(5)) == .success, .missing, "round \(round): wait timed out")
                try expect(cell[0] == round, .stale, "round \(round): the waiter saw \(cell[0])")
            }
            try expect(notified.wait(.seconds(5)), .missing, "\(notified.remainingCount) notify blocks did not run")
            let wrong = (0..<200).filter { notifySaw[$0] != $0 + 1 }
            try expect(wrong.isEmpty, .stale, "notify blocks missed the item's write in rounds \(wrong.prefix(3).map { $0 + 1 })")
        }
    }

    /// Every caller of once, racing, sees what the body wrote.
    enum OnceEdge: BehaviourRule {
        static let id = "hb.once"
        static let title = "Every caller of once sees the body's writes when perform returns."
        static let source = "dispatch_once(3)"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            for round in 1...50 {
                let once = engine.makeOnce(label: "hb.once")
                let cell = PlainSlots(1)
                let saw = PlainSlots(4)
                Threads.race(4) { thread in
                    once.perform { cell[0] = round }
                    saw[thread] = cell[0]
                }
                try expect(saw.wrong(round).isEmpty, .stale, "round \(round): callers \(saw.wrong(round)) missed the body's write")
            }
        }
    }

    /// apply's iterations reach its caller.
    enum ApplyEdge: BehaviourRule {
        static let id = "hb.apply"
        static let title = "The caller of apply sees every iteration's writes when it returns."
        static let source = "dispatch_apply(3)"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            for round in 1...50 {
                let slots = PlainSlots(64)
                engine.apply(iterations: 64) { slots[$0] = round }
                try expect(slots.wrong(round).isEmpty, .stale, "round \(round): slots \(slots.wrong(round)) unwritten")
            }
        }
    }

    /// The submitter's writes reach a delayed block.
    enum AfterEdge: BehaviourRule {
        static let id = "hb.after"
        static let title = "A block submitted with asyncAfter sees what its submitter wrote before submitting."
        static let source = "dispatch_after(3)"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.after", kind: .concurrent)
            let cells = PlainSlots(50), saw = PlainSlots(50)
            let ran = Latch(50)
            for index in 0..<50 {
                cells[index] = index + 1
                queue.asyncAfter(deadline: .now() + .microseconds(100 * index)) {
                    saw[index] = cells[index]
                    ran.countDown()
                }
            }
            try expect(ran.wait(.seconds(5)), .missing, "\(ran.remainingCount) delayed blocks did not run")
            let wrong = (0..<50).filter { saw[$0] != $0 + 1 }
            try expect(wrong.isEmpty, .stale, "delayed blocks \(wrong.prefix(3)) missed the submitter's write")
        }
    }

    /// Blocks of a queue and of the serial queue it targets share one order.
    enum TargetEdge: BehaviourRule {
        static let id = "hb.target"
        static let title = "Blocks of a serial target and of the queues targeting it see one another's writes."
        static let source = "dispatch_set_target_queue(3)"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let target = engine.makeQueue(label: "hb.target")
            let inner = engine.makeQueue(label: "hb.target.inner", kind: .serial, startsInactive: false, target: target)
            let other = engine.makeQueue(label: "hb.target.other", kind: .concurrent, startsInactive: false, target: target)
            let cell = PlainSlots(1)
            // A group, not a sync on the target: nothing orders a sync on the target after blocks still waiting on
            // the queues that target it.
            let group = engine.makeGroup(label: "hb.target")
            for index in 0..<1_500 { group.async(on: [target, inner, other][index % 3]) { cell[0] += 1 } }
            try expect(group.wait(until: .now() + .seconds(5)) == .success, .missing, "the blocks did not finish")
            let seen = target.sync { cell[0] }
            try expect(seen == 1_500, .stale, "the target saw \(seen) of 1500 increments")
        }
    }

    /// What the caller wrote before resume reaches the blocks that waited for it.
    enum ResumeEdge: BehaviourRule {
        static let id = "hb.resume"
        static let title = "Blocks held by a suspension see what the caller wrote before resume."
        static let source = "dispatch_suspend(3), dispatch_resume(3)"
        static let forbidden: [Outcome] = [.stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.resume")
            for round in 1...100 {
                let cell = PlainSlots(1), saw = PlainSlots(1)
                queue.suspend()
                queue.async { saw[0] = cell[0] }
                cell[0] = round
                queue.resume()
                let seen = queue.sync { saw[0] }
                try expect(seen == round, .stale, "round \(round): the held block saw \(seen)")
            }
        }
    }

    /// What the merging thread wrote before merge reaches the handler that merge causes.
    enum SourceEdge: BehaviourRule {
        static let id = "hb.source"
        static let title = "A source's handler sees what the merging thread wrote before the merge."
        static let source = "dispatch_source_merge_data(3)"
        static let forbidden: [Outcome] = [.missing, .stale]

        static func check<E: Engine>(_ engine: E) throws {
            let queue = engine.makeQueue(label: "hb.source")
            let source = engine.makeUserDataSource(label: "hb.source", merge: .add, queue: queue)
            let cell = PlainSlots(2)
            let handled = Condition()
            let rounds = Locked(0)
            source.setEventHandler {
                cell[1] = cell[0]
                handled.update { rounds.withLock { $0 += 1 } }
            }
            source.activate()
            defer { source.cancel() }
            for round in 1...200 {
                cell[0] = round
                source.merge(1)
                let ran = handled.wait(until: .now() + .seconds(5)) { rounds.snapshot == round }
                try expect(ran, .missing, "round \(round): the handler did not run")
                try expect(cell[1] == round, .stale, "round \(round): the handler saw \(cell[1])")
            }
        }
    }
}

extension ArenaTests {
    /// The orderings the contract promises, over plain memory, on every engine, each in a child process. Without a
    /// sanitizer they check values; under `swift test --sanitize=thread` they are what keeps an engine from hiding
    /// its ordering from TSan.
    @Suite
    struct HappensBeforeTests {
        @Test("happens-before over plain memory", arguments: TestEngines.catalogEngines, HappensBefore.rules.map(\.id))
        func edge(engine: String, probe: String) async throws {
            let result = try #require(await runIsolated(RuleRequest(engine: engine, rule: probe, repeats: 1, timeout: .seconds(10))))
            #expect(result.status == .pass, "\(engine) \(probe): \(result.status.rawValue): \(result.detail)")
        }
    }
}
