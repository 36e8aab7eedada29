import ArenaContract
import Harness

/// User-data sources: merging, coalescing, lifecycle.
enum SourceRules: RuleFamily {
    static let concept = Concept.sources
    static let rules: [any ConformanceRule.Type] = [
        SourceAddCoalesces.self, SourceOrCoalesces.self, SourceReplace.self, SourceDataReset.self,
        SourceMergeAtCallStart.self, SourceZeroMerge.self, SourceHandlerNotReentrant.self, SourceOnTarget.self, SourceInactive.self,
        SourceSuspendCoalesces.self, SourceCancel.self, SourceCancelHandlerOnlyIfCancelled.self,
        SourceRegistrationFirst.self, SourceRegistrationNotIfCancelled.self,
    ]
}

enum SourceAddCoalesces: BehaviourRule {
    static let id = "source.add-coalesces"
    static let title =
        "An add source sums the merges between handler calls: every call's data is positive, the data over all calls adds up to the total merged, and a slow handler sees fewer calls than merges."
    static let source = "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_DATA_ADD; [GCD Handbook] (custom sources coalesce)"

    static let forbidden: [Outcome] = [.missing, .lost, .wrongValue, .uncoalesced]

    static func check<E: Engine>(_ engine: E) throws {
        // The handler is slower than the merges.
        let (source, log) = makeLoggedSource(engine, "arena.source.add") { _ in Timing.spin(.microseconds(50)) }
        source.activate()
        defer { cancelAndDrain(source) }
        let merged = Counter()
        let merges = 4 * 2500
        Threads.race(4) { _ in
            for index in 0..<2500 {
                let value = 1 + index % 3
                merged.add(value)
                source.merge(UInt(value))
            }
        }
        try expectEventually("handlers receiving \(merged.value) in total") { log.sum == UInt(merged.value) }
        Timing.pause(.milliseconds(10))
        try expect(log.sum == UInt(merged.value), .lost, "handlers received \(log.sum) of \(merged.value) merged")
        try expect(log.data.allSatisfy { $0 > 0 }, .wrongValue, "a handler call had data 0")
        try expect(log.count < merges, .uncoalesced, "\(merges) merges into a slow handler made \(log.count) calls: nothing coalesced")
    }
}

enum SourceOrCoalesces: BehaviourRule {
    static let id = "source.or-coalesces"
    static let title =
        "An or source ORs the merges between handler calls: every call's data is non-zero and the union over all calls is exactly the bits merged."
    static let source = "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_DATA_OR"

    static let forbidden: [Outcome] = [.missing, .wrongValue, .uncoalesced]

    static func check<E: Engine>(_ engine: E) throws {
        let (source, log) = makeLoggedSource(engine, "arena.source.or", merge: .or) { _ in Timing.spin(.microseconds(30)) }
        source.activate()
        defer { cancelAndDrain(source) }
        // Bits 0..<48 are merged, bits 48..<64 never are.
        let expected: UInt = (1 << 48) - 1
        Threads.race(4) { thread in
            for index in 0..<1000 {
                source.merge(1 << UInt((thread * 12 + index % 12) % 48))
            }
        }
        try expectEventually("handlers seeing every merged bit") { log.data.reduce(0, |) == expected }
        let union = log.data.reduce(0, |)
        try expect(
            union == expected, .wrongValue,
            "the union of handler data is \(String(union, radix: 16)), merged \(String(expected, radix: 16))")
        try expect(log.data.allSatisfy { $0 != 0 }, .wrongValue, "a handler call had data 0")
        try expect(log.count < 4000, .uncoalesced, "4000 merges into a slow handler made \(log.count) calls: nothing coalesced")
    }
}

enum SourceReplace: BehaviourRule {
    static let id = "source.replace"
    static let title = "A replace source's handler sees the last value merged before its call."
    static let source = "dispatch_source_create(3), DISPATCH_SOURCE_TYPE_DATA_REPLACE"

    static let forbidden: [Outcome] = [.missing, .reordered, .wrongValue, .uncoalesced]

    static func check<E: Engine>(_ engine: E) throws {
        let (source, log) = makeLoggedSource(engine, "arena.source.replace", merge: .replace) { _ in Timing.spin(.microseconds(20)) }
        source.activate()
        defer { cancelAndDrain(source) }
        let last: UInt = 5000
        for value in 1...last {
            source.merge(value)
        }
        try expectEventually("a handler call with the last value \(last)") { log.data.last == last }
        let seen = log.data
        try expect(
            seen.allSatisfy { (1...last).contains($0) }, .wrongValue,
            "a handler saw a value never merged: \(seen.filter { !(1...last).contains($0) }.prefix(3))")
        try expect(
            zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, .reordered,
            "handler values went backwards: a call saw an older value than the one before it")
        try expect(seen.count < Int(last), .uncoalesced, "\(last) replaces into a slow handler made \(seen.count) calls: nothing coalesced")
    }
}

enum SourceDataReset: BehaviourRule {
    static let id = "source.data-reset"
    static let title = "Pending data is taken and reset to zero when a handler call starts; merges during a call arrive in a later call."
    static let source = "dispatch_source_get_data(3); dispatch_source_merge_data(3)"

    static let forbidden: [Outcome] = [.missing, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<10 {
            let inFirst = Latch()
            let release = Latch()
            let (source, log) = makeLoggedSource(engine, "arena.source.data-reset.\(round)") { _ in
                inFirst.countDown()
                release.wait(.seconds(5))
            }
            source.activate()
            source.merge(5)
            try expectOpens(inFirst, "round \(round): the first handler call")
            source.merge(3)
            source.merge(4)
            release.countDown()
            try expectEventually("round \(round): a second call") { log.count >= 2 }
            Timing.pause(.milliseconds(5))
            cancelAndDrain(source)
            try expect(log.data == [5, 7], .wrongValue, "round \(round): handler data \(log.data), expected [5, 7]")
        }
    }
}

enum SourceMergeAtCallStart: BehaviourRule {
    static let id = "source.merge-at-call-start"
    static let title =
        "A merge racing the start of a handler call is never stranded: its data arrives, in that call or the next, with no further merge (400 rounds, each merging as a call begins)."
    static let source =
        "dispatch_source_merge_data(3) (the handler is submitted when data is merged); dispatch_source_get_data(3) (pending data is taken as the handler starts); libdispatch source.c (the source is woken whenever pending data is set)"

    static let forbidden: [Outcome] = [.missing, .extra]

    static func check<E: Engine>(_ engine: E) throws {
        // The handlers' queue is held by a block, so the call waiting behind it starts as that block ends: the second
        // merge comes 0 to 8 µs after the block is let go, around the moment the call takes the pending data.
        let queue = engine.makeQueue(label: "arena.source.merge-at-call-start")
        let (source, log) = makeLoggedSource(engine, "arena.source.merge-at-call-start", on: queue)
        source.activate()
        defer { cancelAndDrain(source) }
        let rounds = 400
        for round in 0..<rounds {
            let holding = Latch()
            let go = Counter()
            queue.async {
                holding.countDown()
                Timing.spinUntil(.seconds(1)) { go.value > 0 }
            }
            try expectOpens(holding, "round \(round): the block holding the handlers' queue")
            source.merge(1)
            go.add()
            Timing.jitter(upTo: 8)
            source.merge(1)
            let owed = UInt(2 * (round + 1))
            let arrived =
                Timing.spinUntil(.milliseconds(2)) { log.sum >= owed } || Timing.eventually(within: .seconds(2)) { log.sum >= owed }
            try expect(
                arrived, .missing,
                "round \(round): the handler calls summed \(log.sum) of the \(owed) merged, 2 s after the last merge (data \(log.data.suffix(4)))"
            )
            try expect(log.sum == owed, .extra, "round \(round): the handler calls summed \(log.sum), more than the \(owed) merged")
        }
    }
}

enum SourceZeroMerge: BehaviourRule {
    static let id = "source.zero-merge"
    static let title = "A merge that leaves the pending data zero fires no handler."
    static let source =
        "dispatch_source_merge_data(3): 'a value of zero has no effect and will not result in the submission of the event handler'"

    static let forbidden: [Outcome] = [.extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        for merge in DataMerge.allCases {
            let (source, log) = makeLoggedSource(engine, "arena.source.zero-merge.\(merge)", merge: merge)
            source.activate()
            for _ in 0..<100 { source.merge(0) }
            Timing.pause(Timing.quietPeriod)
            let afterZeros = log.count
            source.merge(1)
            let fired = Timing.eventually { log.count > afterZeros }
            cancelAndDrain(source)
            try expect(afterZeros == 0, .extra, "\(merge) source: 100 zero merges fired \(afterZeros) handler calls")
            try expect(fired && log.data.last == 1, .wrongValue, "\(merge) source: a merge of 1 after zeros delivered \(log.data)")
        }
    }
}

enum SourceHandlerNotReentrant: BehaviourRule {
    static let id = "source.handler-not-reentrant"
    static let title = "A source's handler never runs concurrently with itself, even on a concurrent queue."
    static let source = "dispatch_source_create(3): the event handler is serialised; libdispatch's source is a serial queue of its own"

    static let forbidden: [Outcome] = [.missing, .overlap]

    static func check<E: Engine>(_ engine: E) throws {
        let queue = engine.makeQueue(label: "arena.source.not-reentrant", kind: .concurrent)
        let calls = Counter()
        let (source, log) = makeLoggedSource(engine, "arena.source.not-reentrant", on: queue) { _ in
            Timing.jitter(upTo: 100)
            Timing.linger(calls.add(), every: 20)
        }
        source.activate()
        defer { cancelAndDrain(source) }
        Threads.race(4) { _ in
            for index in 0..<2000 {
                source.merge(1)
                if index % 100 == 0 { Timing.jitter(upTo: 200) }
            }
        }
        try expectEventually("handlers receiving all 8000 merges") { log.sum == 8000 }
        try expect(log.meter.maximum == 1, .overlap, "\(log.meter.maximum) handler calls of one source ran at once")
    }
}

enum SourceOnTarget: BehaviourRule {
    static let id = "source.on-target"
    static let title = "A source's handler runs on the source's queue, serialised with that queue's other blocks."
    static let source =
        "dispatch_source_create(3): 'the target queue'; queue.h: 'a dispatch source's target queue specifies where its event handler and cancellation handler blocks will be submitted'"

    static let forbidden: [Outcome] = [.missing, .overlap, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<String>("arena.source.on-target")
        let queue = engine.makeQueue(label: "arena.source.on-target")
        queue.setSpecific(key, "target")
        let meter = ConcurrencyMeter()
        let wrongQueue = Counter()
        let (source, log) = makeLoggedSource(engine, "arena.source.on-target", on: queue) { _ in
            meter.measure {
                if engine.currentSpecific(key) != "target" { wrongQueue.add() }
                Timing.jitter(upTo: 20)
            }
        }
        source.activate()
        defer { cancelAndDrain(source) }
        let blocks = 250
        let done = Latch(blocks)
        Threads.race(2) { thread in
            for _ in 0..<blocks {
                if thread == 0 {
                    queue.async {
                        meter.measure { Timing.jitter(upTo: 20) }
                        done.countDown()
                    }
                } else {
                    source.merge(1)
                }
            }
        }
        try expectOpens(done, "\(blocks) queue blocks")
        try expectEventually("handlers receiving all \(blocks) merges") { log.sum == UInt(blocks) }
        try expect(wrongQueue.value == 0, .wrongPlace, "\(wrongQueue.value) handler calls did not run on the source's queue")
        try expect(meter.maximum == 1, .overlap, "handlers and the queue's blocks overlapped (\(meter.maximum) at once)")
    }
}

enum SourceInactive: BehaviourRule {
    static let id = "source.inactive"
    static let title = "A new source delivers nothing until activated; data merged before activation is delivered after."
    static let source = "dispatch_source_create(3): 'dispatch sources are created in an inactive state'; dispatch_activate(3)"

    static let forbidden: [Outcome] = [.early, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<5 {
            let (source, log) = makeLoggedSource(engine, "arena.source.inactive.\(round)")
            source.merge(2)
            source.merge(1)
            Timing.pause(Timing.quietPeriod)
            let early = log.count
            source.activate()
            let delivered = Timing.eventually { log.sum == 3 }
            cancelAndDrain(source)
            try expect(early == 0, .early, "round \(round): \(early) handler calls before activation")
            try expect(delivered, .wrongValue, "round \(round): after activation the handlers saw \(log.data), expected a total of 3")
        }
    }
}

enum SourceSuspendCoalesces: BehaviourRule {
    static let id = "source.suspend-coalesces"
    static let title = "Merges while a source is suspended arrive coalesced, in one handler call, after resume."
    static let source =
        "dispatch_suspend(3) on sources in dispatch_source_create(3); [Concurrency Programming Guide] (suspending and resuming dispatch sources)"

    static let forbidden: [Outcome] = [.lost, .ranWhileHeld, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<5 {
            let (source, log) = makeLoggedSource(engine, "arena.source.suspend.\(round)")
            source.activate()
            source.merge(1)
            let first = Timing.eventually { log.count == 1 }
            source.suspend()
            for _ in 0..<10 { source.merge(1) }
            Timing.pause(Timing.quietPeriod)
            let whileSuspended = log.count
            source.resume()
            let delivered = Timing.eventually { log.sum == 11 }
            Timing.pause(.milliseconds(5))
            cancelAndDrain(source)
            try expect(first, .lost, "round \(round): the first merge was not delivered")
            try expect(whileSuspended == 1, .ranWhileHeld, "round \(round): \(whileSuspended - 1) handler calls while suspended")
            try expect(delivered && log.data == [1, 10], .wrongValue, "round \(round): handler data \(log.data), expected [1, 10]")
        }
    }
}

enum SourceCancel: BehaviourRule {
    static let id = "source.cancel"
    static let title =
        "After cancel no handler call starts, even with data pending; the cancel handler runs once, after the last handler call finished; later merges are ignored."
    static let source =
        "dispatch_source_cancel(3): 'prevents any further invocation of the event handler ... does not interrupt an event handler block that is already in progress'"

    static let forbidden: [Outcome] = [.missing, .extra, .ranWhileHeld, .overlap, .wrongState]

    static func check<E: Engine>(_ engine: E) throws {
        for round in 0..<10 {
            let queue = engine.makeQueue(label: "arena.source.cancel.\(round)", kind: round % 2 == 0 ? .serial : .concurrent)
            let inHandler = Latch()
            let release = Latch()
            let handlerRunning = Counter()
            let (source, log) = makeLoggedSource(engine, "arena.source.cancel.\(round)", on: queue) { _ in
                handlerRunning.add(1)
                inHandler.countDown()
                release.wait(.seconds(5))
                handlerRunning.add(-1)
            }
            let cancelRuns = Counter()
            let overlapped = Counter()
            let cancelled = Latch()
            source.setCancelHandler {
                if handlerRunning.value != 0 { overlapped.add() }
                cancelRuns.add()
                cancelled.countDown()
            }
            source.activate()
            source.merge(1)
            try expectOpens(inHandler, "round \(round): the first handler call")
            source.merge(5)  // pending when cancel comes
            source.cancel()
            try expect(source.isCancelled, .wrongState, "round \(round): isCancelled is false after cancel()")
            source.merge(7)  // after cancel: ignored
            release.countDown()
            try expectOpens(cancelled, "round \(round): the cancel handler")
            Timing.pause(.milliseconds(20))
            try expect(log.data == [1], .ranWhileHeld, "round \(round): handler calls \(log.data) (only [1] started before cancel)")
            try expect(cancelRuns.value == 1, .extra, "round \(round): the cancel handler ran \(cancelRuns.value) times")
            try expect(overlapped.value == 0, .overlap, "round \(round): the cancel handler ran while an event handler was running")
        }
    }
}

enum SourceCancelHandlerOnlyIfCancelled: BehaviourRule {
    static let id = "source.cancel-handler-only-if-cancelled"
    static let title = "Releasing an uncancelled source runs no cancel handler."
    static let source =
        "dispatch_source_set_cancel_handler(3): the handler runs 'once the source is cancelled'; measured on libdispatch: release without cancel runs none"

    static let forbidden: [Outcome] = [.missing, .extra]

    static func check<E: Engine>(_ engine: E) throws {
        let cancelRuns = Counter()
        let delivered = Counter()
        let queue = engine.makeQueue(label: "arena.source.only-if-cancelled")
        var sources = (0..<10).map { round in
            let source = engine.makeUserDataSource(label: "arena.source.only-if-cancelled.\(round)", merge: .add, queue: queue)
            source.setEventHandler { delivered.add() }
            source.setCancelHandler { cancelRuns.add() }
            source.activate()
            source.merge(1)
            return source
        }
        try expectEventually("the merges being delivered") { delivered.value == 10 }
        sources.removeAll()  // released, never cancelled
        Timing.pause(.milliseconds(50))
        queue.sync {}
        try expect(cancelRuns.value == 0, .extra, "\(cancelRuns.value) cancel handlers ran for sources released without cancel")
    }
}

enum SourceRegistrationFirst: BehaviourRule {
    static let id = "source.registration-first"
    static let title = "The registration handler runs once, on the source's queue, before any event handler call."
    static let source = """
        dispatch_source_set_registration_handler(3) in dispatch_source_create(3): 'the registration handler ... is \
        submitted to the source's target queue ... before any event handler'
        """

    static let forbidden: [Outcome] = [.missing, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let key = SpecificKey<String>("arena.source.registration")
        for round in 0..<5 {
            let queue = engine.makeQueue(label: "arena.source.registration.\(round)")
            queue.setSpecific(key, "its queue")
            let calls = Recorder<String>()
            let source = engine.makeUserDataSource(label: "arena.source.registration.\(round)", merge: .add, queue: queue)
            source.setEventHandler { calls.append("event") }
            source.setRegistrationHandler {
                calls.append(engine.currentSpecific(key) == "its queue" ? "registration" : "registration off its queue")
            }
            source.merge(2)  // before activation: delivered after it, and after the registration handler
            source.activate()
            source.activate()
            source.merge(1)
            let delivered = Timing.eventually { calls.elements.filter { $0 == "event" }.count >= 1 }
            Timing.pause(.milliseconds(5))
            cancelAndDrain(source)
            let seen = calls.elements
            try expect(delivered, .missing, "round \(round): no event handler call (calls: \(seen))")
            try expect(
                seen.first == "registration" && seen.dropFirst().allSatisfy { $0 == "event" }, .reordered,
                "round \(round): calls in order \(seen) (one registration first, on its queue, expected)")
        }
    }
}

enum SourceRegistrationNotIfCancelled: BehaviourRule {
    static let id = "source.registration-not-if-cancelled"
    static let title = "A source cancelled before it was activated never runs its registration handler; its cancel handler runs."
    static let source = """
        dispatch_source_set_registration_handler(3) in dispatch_source_create(3): 'if the source is canceled before \
        it is activated, the registration handler is never called'
        """

    static let forbidden: [Outcome] = [.missing, .extra]

    static func check<E: Engine>(_ engine: E) throws {
        let registered = Counter()
        let cancelled = Latch()
        let source = engine.makeUserDataSource(
            label: "arena.source.registration-cancelled", merge: .add,
            queue: engine.makeQueue(label: "arena.source.registration-cancelled"))
        source.setRegistrationHandler { registered.add() }
        source.setCancelHandler { cancelled.countDown() }
        source.merge(1)
        source.cancel()
        source.activate()
        try expectOpens(cancelled, "the cancel handler")
        Timing.pause(Timing.quietPeriod)
        try expect(registered.value == 0, .extra, "the registration handler ran \(registered.value) times")
    }
}
