import ArenaContract
import Harness

/// The main queue: a serial queue bound to the thread that runs the engine's main loop. Every rule here needs the
/// loop (`needsMainLoop`): its child gives the loop the thread the process started on and checks from another.
enum MainQueueRules: RuleFamily {
    static let concept = Concept.mainQueue
    static let rules: [any ConformanceRule.Type] = [
        MainThread.self, MainAsyncFromManyThreads.self, MainSyncFromBackground.self, MainHandOff.self, MainTarget.self,
        MainSyncOnSelf.self,
    ]
}

/// What a block on the main queue saw: where it ran and whether another block of the queue ran beside it.
private final class MainQueueProbe: Sendable {
    let offThread = Counter()
    let meter = ConcurrencyMeter()

    /// Runs `body` as a main-queue block would be measured.
    func observe(_ body: () -> Void) {
        if !MainLoopThread.isCurrent { offThread.add() }
        meter.measure(body)
    }

    func expectBound(_ what: String) throws {
        try expect(offThread.value == 0, .wrongPlace, "\(offThread.value) \(what) ran off the main-loop thread")
        try expect(meter.maximum <= 1, .overlap, "\(meter.maximum) blocks of the main queue ran at once")
    }
}

enum MainThread: BehaviourRule {
    static let id = "main.thread"
    static let title = "Blocks on the main queue run on the main-loop thread, one at a time, in submission order."
    static let source = """
        [Concurrency Programming Guide] ("The main dispatch queue is a globally available serial queue that executes \
        tasks on the application's main thread"); dispatch_get_main_queue(3), dispatch_main(3)
        """
    static let needsMainLoop = true

    static let forbidden: [Outcome] = [.missing, .overlap, .reordered, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let probe = MainQueueProbe()
        let order = Recorder<Int>()
        let done = Latch()
        let count = 500
        for index in 0..<count {
            engine.mainQueue.async {
                probe.observe {
                    order.append(index)
                    Timing.linger(index, every: 50)
                }
                if index == count - 1 { done.countDown() }
            }
        }
        try expectOpens(done, "the last main-queue block")
        try probe.expectBound("blocks")
        try expect(order.elements == Array(0..<count), .reordered, "blocks ran out of order: first \(Array(order.elements.prefix(12)))")
    }
}

enum MainAsyncFromManyThreads: BehaviourRule {
    static let id = "main.async-from-many-threads"
    static let title =
        "async onto the main queue from many threads at once: every block runs, on the main-loop thread, each thread's in its order."
    static let source =
        "dispatch_queue_create(3), MAIN QUEUE ('a default serial queue for the application to use'); [GCD Handbook] (background work coming back to the main queue)"
    static let needsMainLoop = true

    static let forbidden: [Outcome] = [.missing, .overlap, .reordered, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let threads = 8, perThread = 400
        let probe = MainQueueProbe()
        let seen = Recorder<(thread: Int, index: Int)>()
        let done = Latch(threads * perThread)
        Threads.race(threads) { thread in
            for index in 0..<perThread {
                engine.mainQueue.async {
                    probe.observe { seen.append((thread, index)) }
                    done.countDown()
                }
            }
        }
        try expectOpens(done, within: .seconds(10), "\(done.remainingCount) of \(threads * perThread) main-queue blocks")
        try probe.expectBound("blocks")
        for thread in 0..<threads {
            let indices = seen.elements.filter { $0.thread == thread }.map(\.index)
            try expect(
                indices == Array(0..<perThread), .reordered,
                "thread \(thread)'s blocks ran out of order or not once each (\(indices.count) ran)")
        }
    }
}

enum MainSyncFromBackground: BehaviourRule {
    static let id = "main.sync-from-background"
    static let title =
        "sync onto the main queue from a block on another queue runs on the main-loop thread, after the main queue's earlier blocks, and returns its value."
    static let source =
        "libdispatch tests dispatch_sync_on_main.c (ten syncs from a background queue, each on the main thread); dispatch_sync(3)"
    static let needsMainLoop = true

    static let forbidden: [Outcome] = [.missing, .overlap, .reordered, .wrongValue, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let background = engine.makeQueue(label: "arena.main.background")
        let probe = MainQueueProbe()
        let asyncsRun = Counter()
        let results = Recorder<Int>()
        let misordered = Counter()
        let done = Latch()
        background.async {
            for round in 0..<10 {
                engine.mainQueue.async { probe.observe { asyncsRun.add() } }
                let value = engine.mainQueue.sync {
                    probe.observe {
                        if asyncsRun.value != round + 1 { misordered.add() }
                    }
                    return round * 7
                }
                results.append(value)
            }
            done.countDown()
        }
        try expectOpens(done, "ten syncs onto the main queue from a background queue")
        try probe.expectBound("sync or async blocks")
        try expect(misordered.value == 0, .reordered, "\(misordered.value) syncs ran before an async submitted ahead of them")
        try expect(results.elements == (0..<10).map { $0 * 7 }, .wrongValue, "sync returned \(results.elements)")
    }
}

enum MainHandOff: BehaviourRule {
    static let id = "main.hand-off"
    static let title =
        "Background work delivering results to the main queue: each arrives on the main-loop thread in submission order, and a group's notify on the main queue comes after all."
    static let source = """
        [objc.io #2] (dispatch_group_notify on dispatch_get_main_queue after background work); [GCD Handbook] ("do some \
        work on a background queue, and then come back to the main queue"); \
        dispatch_async(3) (the completion-callback pattern)
        """
    static let needsMainLoop = true

    static let forbidden: [Outcome] = [.missing, .early, .overlap, .reordered, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let worker = engine.makeQueue(label: "arena.main.worker")
        let group = engine.makeGroup(label: "arena.main.hand-off")
        let probe = MainQueueProbe()
        let delivered = Recorder<Int>()
        let notified = Recorder<Int>()
        let done = Latch()
        let steps = 100
        for step in 0..<steps {
            group.async(on: worker) {
                let result = (0...step).reduce(0, +)  // the background work
                Timing.jitter()
                engine.mainQueue.async { probe.observe { delivered.append(result) } }
            }
        }
        for band in 0..<4 {
            group.async(on: engine.globalQueue) { Timing.linger(band, every: 2) }
        }
        group.notify(queue: engine.mainQueue) {
            probe.observe { notified.append(delivered.count) }
            done.countDown()
        }
        try expectOpens(done, "the group's notify on the main queue")
        try probe.expectBound("deliveries or the notify")
        try expect(
            delivered.elements == (0..<steps).map { (0...$0).reduce(0, +) }, .reordered,
            "results arrived out of order or wrong: first \(Array(delivered.elements.prefix(8)))")
        try expect(notified.elements == [steps], .early, "the notify ran after \(notified.elements) of \(steps) deliveries")
    }
}

enum MainTarget: BehaviourRule {
    static let id = "main.target"
    static let title = "A queue targeting the main queue runs its blocks on the main-loop thread, never beside a block of the main queue."
    static let source =
        "queue.h, dispatch_set_target_queue ('blocks submitted to a queue ... run on its target'); [Concurrency Programming Guide] (the main queue is serial)"
    static let needsMainLoop = true

    static let forbidden: [Outcome] = [.missing, .overlap, .reordered, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let child = engine.makeQueue(label: "arena.main.child", kind: .concurrent, startsInactive: false, target: engine.mainQueue)
        let probe = MainQueueProbe()
        let order = Recorder<Int>()
        let done = Latch(2 * 100)
        for index in 0..<100 {
            child.async {
                probe.observe {
                    order.append(index); Timing.linger(index, every: 10)
                }
                done.countDown()
            }
            engine.mainQueue.async {
                probe.observe { Timing.linger(index, every: 10) }
                done.countDown()
            }
        }
        try expectOpens(done, "\(done.remainingCount) blocks of the main queue and of a queue targeting it")
        try probe.expectBound("blocks")
        try expect(order.elements == Array(0..<100), .reordered, "the child queue's blocks started out of order")
    }
}

enum MainSyncOnSelf: MisuseRule {
    static let id = "main.sync-on-self"
    static let title =
        "sync onto the main queue from a block running on it (the main-loop thread) is misuse: a message naming the queue, never a hang."
    static let source = """
        dispatch_async(3), RECURSIVE LOCKS ('a recursive call to dispatch_sync() causes a simple deadlock'); \
        libdispatch dies 'dispatch_sync called on queue already owned by current thread' (measured on the main queue: \
        SIGILL without a message)
        """
    static let objectLabel = "main"
    static let keywords = ["sync"]
    static let needsMainLoop = true

    static func trigger<E: Engine>(_ engine: E) {
        let returned = Latch()
        engine.mainQueue.async {
            engine.mainQueue.sync {}
            returned.countDown()
        }
        _ = returned.wait(.seconds(5))
    }
}
