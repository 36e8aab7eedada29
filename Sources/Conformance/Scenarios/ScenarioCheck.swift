import ArenaContract

/// How a trace broke the model: an outcome key, as the rules use them, and what was seen.
public struct ScenarioDisagreement: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public let key: Outcome
    public let detail: String

    public init(_ key: Outcome, _ detail: String) {
        self.key = key
        self.detail = detail
    }

    public var description: String { "\(key): \(detail)" }
}

/// Checks a trace against a scenario's model: every constraint of `ScenarioModel`, and what each wait and apply
/// returned. The first disagreement found, or `nil` when the contract allows the trace. Linear in the trace, and
/// quadratic in the blocks of one exclusion set (a few dozen at most).
public enum ScenarioCheck {
    public static func check(_ trace: [ScenarioEvent], against model: ScenarioModel) -> ScenarioDisagreement? {
        let index = TraceIndex(trace)
        // Checks in order, the first disagreement wins. Written as a loop: one `??` chain of ten calls took the type
        // checker 3.9 s in each build.
        let checks: [(TraceIndex, ScenarioModel) -> ScenarioDisagreement?] = [
            contexts, runs, waitResults, orders, fifo, exclusions, values, reads, datas, onces, sources, applies, semaphores,
            { _, _ in locks(trace) },
            handoffs,
        ]
        for check in checks {
            if let disagreement = check(index, model) { return disagreement }
        }
        return nil
    }

    /// Every step made in a context had its host run: the script waited 5 s for it, then stopped.
    private static func contexts(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (step, host) in model.hosts.sorted(by: { $0.key < $1.key }) where index.ends[host] == nil {
            return .init(.missing, "step \(step) (\(Scenario.describe(model.program[step]))): b\(host) did not end within 5 s")
        }
        return nil
    }

    private static func runs(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (id, block) in model.blocks.sorted(by: { $0.key < $1.key }) {
            let count = index.starts[id]?.count ?? 0
            switch block.runs {
            case .once where count == 0: return .init(.missing, "b\(id) (\(block.queueName)) never ran")
            case .once where count > 1, .atMostOnce where count > 1:
                return .init(.extra, "b\(id) (\(block.queueName)) ran \(count) times")
            case .never where count > 0:
                if model.finalizers.values.contains(where: { $0.block == id }) {
                    return .init(.extra, "finalizer b\(id) (\(block.queueName)) ran though its queue had no context when it went")
                }
                if let u = model.sources.first(where: { $0.value.handler == id })?.key {
                    return .init(
                        .ranWhileHeld,
                        "u\(u)'s handler b\(id) ran though nothing was left for it (cancelled before it could run, or replaced by zero last while it could not)"
                    )
                }
                return .init(.ranWhileHeld, "b\(id) (\(block.queueName)) ran though it was cancelled before it could")
            default: break
            }
            if (index.ends[id]?.count ?? 0) != count {
                return .init(.missing, "b\(id) (\(block.queueName)) started \(count) times but ended \(index.ends[id]?.count ?? 0)")
            }
        }
        return nil
    }

    private static func waitResults(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (step, expected) in model.waits.sorted(by: { $0.key < $1.key }) {
            guard let returned = index.returned[step] else {
                return .init(.missing, "step \(step) (\(Scenario.describe(model.program[step]))) never returned")
            }
            let succeeded = returned.value == 1
            if expected == .success && !succeeded {
                return .init(
                    .missing, "step \(step) (\(Scenario.describe(model.program[step]))) timed out; what it waits for could all run")
            }
            if expected == .timedOut && succeeded {
                return .init(.early, "step \(step) (\(Scenario.describe(model.program[step]))) succeeded while what it waits for was held")
            }
            guard succeeded else { continue }
            for point in model.onSuccess[step] ?? [] {
                guard let seen = index.seq(point) else { continue }
                if seen > returned.seq {
                    return .init(.early, "step \(step) (\(Scenario.describe(model.program[step]))) returned success before \(point)")
                }
            }
        }
        return nil
    }

    private static func orders(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for order in model.orders {
            guard let before = index.seq(order.before), let after = index.seq(order.after) else { continue }
            if after < before { return .init(order.key, "\(order.after) before \(order.before): \(order.why)") }
        }
        return nil
    }

    /// On a queue whose blocks start one at a time, a block submitted before another (its submission over before the
    /// other's began) starts first.
    private static func fifo(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for queue in model.fifo {
            for a in queue.submissions {
                guard let aEnd = index.seq(a.to), let aStart = index.seq(.start(a.block)) else { continue }
                for b in queue.submissions where b.block != a.block {
                    guard let bFrom = index.seq(b.from), aEnd < bFrom, let bStart = index.seq(.start(b.block)) else { continue }
                    if bStart < aStart {
                        return .init(
                            .reordered,
                            "q\(queue.queue) started b\(b.block) before b\(a.block), submitted earlier (\(a.to) before \(b.from))")
                    }
                }
            }
        }
        return nil
    }

    private static func exclusions(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for exclusion in model.exclusions {
            let spans = exclusion.blocks.compactMap { id in
                index.starts[id]?.first.flatMap { start in index.ends[id]?.first.map { (id, start, $0) } }
            }
            .sorted { $0.1 < $1.1 }
            if let alone = exclusion.alone {
                guard let barrier = spans.first(where: { $0.0 == alone }) else { continue }
                for other in spans where other.0 != alone && other.1 < barrier.2 && barrier.1 < other.2 {
                    return .init(.overlap, "b\(other.0) and b\(alone) overlapped: \(exclusion.why)")
                }
                continue
            }
            // Sorted by start: a span overlaps an earlier one when it starts before the latest end so far.
            var latest: (id: Int, end: Int)? = nil
            for span in spans {
                if let open = latest, span.1 < open.end {
                    return .init(.overlap, "b\(span.0) started while b\(open.id) ran: \(exclusion.why)")
                }
                if latest == nil || span.2 > latest!.end { latest = (span.0, span.2) }
            }
        }
        return nil
    }

    private static func values(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (id, block) in model.blocks.sorted(by: { $0.key < $1.key }) {
            for start in index.startEvents[id] ?? [] {
                let read: Int? = start.value < 0 ? nil : Int(start.value)
                if let allowed = block.specifics, !allowed.contains(read) {
                    let names = allowed.map { $0.map(String.init) ?? "nil" }.sorted().joined(separator: " or ")
                    return .init(.wrongValue, "b\(id) on \(block.queueName) read specific \(read.map(String.init) ?? "nil"), not \(names)")
                }
                if let step = block.deadlineStep, let deadline = index.mark[step]?.value, start.time < UInt64(max(0, deadline)) {
                    return .init(
                        .early,
                        "b\(id) on \(block.queueName) started \(UInt64(deadline) - start.time) ns before its deadline (step \(step))")
                }
            }
            if let expected = block.qos, let rank = index.qos[id]?.first, rank != Int64(expected.rank) {
                let seen = QoSClass.allCases.first { Int64($0.rank) == rank }?.rawValue ?? "rank \(rank)"
                return .init(.wrongValue, "b\(id) on \(block.queueName) ran at class \(seen), not \(expected.rawValue)")
            }
            if let allowed = block.specificsAtEnd {
                for reread in index.rereads[id] ?? [] where !allowed.contains(reread < 0 ? nil : Int(reread)) {
                    let names = allowed.map { $0.map(String.init) ?? "nil" }.sorted().joined(separator: " or ")
                    return .init(
                        .wrongValue,
                        "b\(id) on \(block.queueName) read specific \(reread < 0 ? "nil" : String(reread)) as it ended (after its calls), not \(names)"
                    )
                }
            }
            if let finalizer = model.finalizers.values.first(where: { $0.block == id }), let context = finalizer.context {
                for data in index.data[id] ?? [] where data != context {
                    return .init(.wrongValue, "finalizer b\(id) was given context \(data), not \(context)")
                }
            }
            if block.isTimerHandler {
                for data in index.data[id] ?? [] where data != 1 {
                    return .init(.wrongValue, "one-shot timer handler b\(id) saw data \(data), not 1")
                }
            }
        }
        return nil
    }

    /// Every `data` step made the bytes the model did: its checksum (`ScenarioModel.checksum`) matches.
    private static func datas(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (step, bytes) in model.datas.sorted(by: { $0.key < $1.key }) {
            guard let returned = index.returned[step], returned.value != ScenarioModel.checksum(bytes) else { continue }
            return .init(
                .wrongValue, "step \(step) (\(Scenario.describe(model.program[step]))) made other bytes than its \(bytes.count)")
        }
        return nil
    }

    /// Every `getSpecific` returned the queue's own value at its step.
    private static func reads(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (step, expected) in model.reads.sorted(by: { $0.key < $1.key }) {
            guard let returned = index.returned[step] else { continue }
            let read: Int? = returned.value < 0 ? nil : Int(returned.value)
            if read != expected {
                return .init(
                    .wrongValue,
                    "step \(step) (\(Scenario.describe(model.program[step]))) read \(read.map(String.init) ?? "nil"), not \(expected.map(String.init) ?? "nil")"
                )
            }
        }
        return nil
    }

    /// A once-object runs the body of one perform (of the first), and every perform returns after that body ended.
    private static func onces(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (n, once) in model.onces.sorted(by: { $0.key < $1.key }) {
            let ran = once.bodies.filter { index.starts[$0] != nil }
            if ran.count > 1 {
                return .init(.extra, "o\(n) ran the bodies of \(ran.count) performs: \(ran.map { "b\($0)" }.joined(separator: ", "))")
            }
            if once.certain && ran.isEmpty { return .init(.missing, "o\(n) was performed but ran no body") }
            let end = ran.first.flatMap { index.seq(.end($0)) }
            for performed in index.performed[n] ?? [] where end.map({ performed < $0 }) ?? true {
                return .init(
                    .early,
                    "a perform of o\(n) returned before its body \(ran.first.map { "b\($0)" } ?? "") ended\(end == nil ? " (it never did)" : "")"
                )
            }
        }
        return nil
    }

    /// A user-data source's handler runs one call at a time, each with data (non-zero) that the merges account for: the
    /// sum, the OR or one of the values merged, all of it where every merge must arrive; its cancel handler starts
    /// after the handler's last call ended, and the handler never runs again.
    private static func sources(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (u, source) in model.sources.sorted(by: { $0.key < $1.key }) {
            let h = source.handler
            let (starts, ends) = (index.starts[h] ?? [], index.ends[h] ?? [])
            for (call, start) in starts.enumerated().dropFirst() where call - 1 < ends.count && start < ends[call - 1] {
                return .init(.overlap, "u\(u)'s handler b\(h) started call \(call + 1) while call \(call) ran")
            }
            let data = (index.data[h] ?? []).map { UInt(truncatingIfNeeded: $0) }
            if data.contains(0) { return .init(.wrongValue, "u\(u)'s handler b\(h) ran with data 0") }
            let all = source.merged + source.mayMerge
            let seen: UInt
            switch source.merge {
            case .add:
                seen = data.reduce(0, &+)
                if seen > all.reduce(0, +) {
                    return .init(.extra, "u\(u)'s handler b\(h) saw \(seen) in all, more than the \(all.reduce(0, +)) merged")
                }
            case .or:
                seen = data.reduce(0, |)
                if seen & ~all.reduce(0, |) != 0 {
                    return .init(.wrongValue, "u\(u)'s handler b\(h) saw bits \(seen), beyond the \(all.reduce(0, |)) merged")
                }
            case .replace:
                seen = data.last ?? 0
                if let stray = data.first(where: { !all.contains($0) }) {
                    return .init(.wrongValue, "u\(u)'s handler b\(h) saw \(stray), which no merge gave")
                }
            }
            if source.exact && !source.merged.isEmpty && seen != source.total {
                return .init(
                    .missing, "u\(u)'s handler b\(h) saw \(source.merge.rawValue) \(seen) over \(data.count) calls, not \(source.total)")
            }
            for held in source.suspensions {
                guard let from = index.seq(held.from), let to = index.seq(held.to) else { continue }
                let calls = starts.filter { $0 > from && $0 < to }.count
                if calls > held.inFlight {
                    return .init(
                        .ranWhileHeld, "u\(u)'s handler b\(h) started \(calls) times while u\(u) was suspended (\(held.from) to \(held.to))"
                    )
                }
            }
            if let c = source.cancelHandler, let cancelled = index.starts[c]?.first {
                if let last = ends.last, last > cancelled {
                    return .init(.early, "u\(u)'s cancel handler b\(c) started before its handler b\(h)'s last call ended")
                }
                if starts.contains(where: { $0 > cancelled }) {
                    return .init(.extra, "u\(u)'s handler b\(h) ran after its cancel handler b\(c) started")
                }
            }
        }
        return nil
    }

    private static func applies(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (step, iterations) in model.applies.sorted(by: { $0.key < $1.key }) {
            let seen = index.indices[step] ?? []
            var counts = Array(repeating: 0, count: iterations)
            for (value, _) in seen {
                guard value >= 0 && value < iterations else {
                    return .init(.wrongValue, "apply(\(iterations)) at step \(step) ran index \(value)")
                }
                counts[value] += 1
            }
            if let missing = counts.firstIndex(of: 0) {
                return .init(.missing, "apply(\(iterations)) at step \(step) never ran index \(missing)")
            }
            if let twice = counts.firstIndex(where: { $0 > 1 }) {
                return .init(.extra, "apply(\(iterations)) at step \(step) ran index \(twice) \(counts[twice]) times")
            }
            if let returned = index.returned[step]?.seq, let late = seen.first(where: { $0.seq > returned }) {
                return .init(.early, "apply(\(iterations)) at step \(step) returned before index \(late.value) ran")
            }
        }
        return nil
    }

    /// A successful wait on a counting semaphore needs a signal for it, and each earlier success, before it returned;
    /// and only the script waits on these semaphores, so a signal made while it was not waiting on one wakes no one.
    private static func semaphores(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (semaphore, calls) in index.signalled {
            let windows = model.semaphoreWaits.filter { $0.value == semaphore }.compactMap { step, _ in
                index.mark[step].flatMap { mark in index.returned[step].map { (mark.seq, $0.seq) } }
            }
            for call in calls where call.woke {
                if !windows.contains(where: { $0.0 < call.returned && call.called < $0.1 }) {
                    return .init(
                        .wrongValue, "a signal on s\(semaphore) said it woke a waiter while none waited (a timed-out wait kept its claim?)")
                }
            }
        }
        var successes: [Int: Int] = [:]
        for (step, semaphore) in model.semaphoreWaits.sorted(by: { $0.key < $1.key }) {
            guard let returned = index.returned[step], returned.value == 1 else { continue }
            successes[semaphore, default: 0] += 1
            let signals = index.signals[semaphore]?.filter { $0 < returned.seq }.count ?? 0
            if signals < successes[semaphore]! {
                return .init(.early, "wait \(successes[semaphore]!) on s\(semaphore) (step \(step)) succeeded after \(signals) signals")
            }
        }
        return nil
    }

    /// Every block that waits inside for a unit got it: its giver ran while it waited.
    private static func handoffs(_ index: TraceIndex, _ model: ScenarioModel) -> ScenarioDisagreement? {
        for (waiter, giver) in model.handoffs.sorted(by: { $0.key < $1.key }) where index.handoffs[waiter] == 0 {
            return .init(.missing, "b\(waiter) waited 2 s in vain for the unit \(giver)")
        }
        return nil
    }

    private static func locks(_ trace: [ScenarioEvent]) -> ScenarioDisagreement? {
        var holder: [Int: Int] = [:]
        for event in trace {
            switch event.kind {
            case .enter:
                if let other = holder[event.subject] {
                    return .init(.overlap, "b\(event.value) entered lock l\(event.subject) while b\(other) held it")
                }
                holder[event.subject] = Int(event.value)
            case .leave: holder[event.subject] = nil
            case .lockTimedOut: return .init(.missing, "b\(event.value) waited 5 s for lock l\(event.subject) and timed out")
            default: break
            }
        }
        return nil
    }
}

/// A trace by block and step, for the checks.
private struct TraceIndex {
    var starts: [Int: [Int]] = [:]
    var startEvents: [Int: [ScenarioEvent]] = [:]
    var ends: [Int: [Int]] = [:]
    var mark: [Int: (seq: Int, value: Int64)] = [:]
    var returned: [Int: (seq: Int, value: Int64)] = [:]
    var contextCall: [Int: Int] = [:]
    var contextReturned: [Int: Int] = [:]
    var performed: [Int: [Int]] = [:]
    var rereads: [Int: [Int64]] = [:]
    var qos: [Int: [Int64]] = [:]
    var signals: [Int: [Int]] = [:]
    var indices: [Int: [(value: Int, seq: Int)]] = [:]
    var data: [Int: [Int64]] = [:]
    var handoffs: [Int: Int64] = [:]
    /// Signals by semaphore: when the call began and returned, and whether it said it woke a waiter.
    var signalled: [Int: [(called: Int, returned: Int, woke: Bool)]] = [:]
    private var calling: [[Int]: Int] = [:]  // (semaphore, block) → the signal's start

    init(_ trace: [ScenarioEvent]) {
        for (seq, event) in trace.enumerated() {
            switch event.kind {
            case .start:
                starts[event.subject, default: []].append(seq)
                startEvents[event.subject, default: []].append(event)
            case .end: ends[event.subject, default: []].append(seq)
            case .mark: mark[event.subject] = (seq, event.value)
            case .returned: returned[event.subject] = (seq, event.value)
            case .signal:
                signals[event.subject, default: []].append(seq)
                calling[[event.subject, Int(event.value)]] = seq
            case .signalled:
                let called = calling[[event.subject, Int(event.value / 2)]] ?? seq
                signalled[event.subject, default: []].append((called, seq, event.value % 2 == 1))
            case .index: indices[event.subject, default: []].append((Int(event.value), seq))
            case .data: data[event.subject, default: []].append(event.value)
            case .handoff: handoffs[event.subject] = event.value
            case .contextCall: contextCall[event.subject] = seq
            case .contextReturned: contextReturned[event.subject] = seq
            case .performed: performed[event.subject, default: []].append(seq)
            case .reread: rereads[event.subject, default: []].append(event.value)
            case .qos: qos[event.subject, default: []].append(event.value)
            case .enter, .leave, .lockTimedOut: break
            }
        }
    }

    /// Where `point` happened first, if it did.
    func seq(_ point: ScenarioModel.Point) -> Int? {
        switch point {
        case .start(let b): starts[b]?.first
        case .end(let b): ends[b]?.first
        case .mark(let s): mark[s]?.seq
        case .returned(let s): returned[s]?.seq
        case .contextCall(let s): contextCall[s]
        case .contextReturned(let s): contextReturned[s]
        }
    }
}
