import FaultyMinimalEngine
import Foundation
import Testing

/// The kill table of the faulty tutorial engine (docs/MUTANTS.md, Mutants/faults.txt): for every fault, a rule that
/// caught it when scripts/mutants/kill-rates.sh measured the catalog, or why no rule did. Each entry runs as a child
/// `faulty-arena conform` with ARENA_FAULT set, and must fail or time out: a catalog change that stops catching a
/// fault, or an engine change that heals it, shows here. A race-type fault that no one rule catches in 10 of 10 runs
/// names several, run in one child (caught when any fails), and every kill gets five tries.
@Suite(.serialized) struct FaultKillTests {
    @Test("every fault of faults.txt is in the kill table or listed as escaped, once")
    func everyFaultAccounted() {
        let caught = Set(FaultKillTable.caught.map(\.fault)), escaped = Set(FaultKillTable.escaped.map(\.fault))
        let all = Set(FaultCatalog.all.filter { $0.family == "catalog" }.map(\.fault.rawValue))
        #expect(caught.isDisjoint(with: escaped), "listed both caught and escaped: \(caught.intersection(escaped))")
        #expect(
            all.subtracting(caught).subtracting(escaped).isEmpty,
            "not in the table: \(all.subtracting(caught).subtracting(escaped).sorted())")
        #expect(caught.union(escaped).subtracting(all).isEmpty, "no such fault: \(caught.union(escaped).subtracting(all).sorted())")
        #expect(FaultKillTable.caught.count == caught.count, "a fault is in the kill table twice")
    }

    /// How many kills' first children run at once: most wait out a rule's deadline (up to the 4 s watchdog) for
    /// something the fault never does, asleep, and one after another the 52 took 76 s of CI.
    static let childrenAtOnce = 4

    @Test("the rule that caught a fault still catches it (first tries four at a time, the rest alone)")
    func caught() throws {
        let kills = FaultKillTable.caught
        let firstTries = Locked([String?](repeating: nil, count: kills.count))
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = Self.childrenAtOnce
        for (index, kill) in kills.enumerated() {
            queue.addOperation {
                let status = (try? FaultyArena.conform(rules: kill.rules, fault: kill.fault, stress: kill.stress)).map(kill.verdict)
                firstTries.withLock { $0[index] = status ?? "no result" }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        for (kill, first) in zip(kills, firstTries.withLock { $0 }) {
            var seen = [first ?? "no result"]
            // A miss beside three others is tried again alone, up to five children in all.
            while !["fail", "timeout"].contains(seen.last!) && seen.count < 5 {
                seen.append(kill.verdict(try FaultyArena.conform(rules: kill.rules, fault: kill.fault, stress: kill.stress)))
            }
            #expect(
                ["fail", "timeout"].contains(seen.last!),
                "\(kill.rules.joined(separator: ", ")) did not catch \(kill.fault)\(kill.stress ? " under stress" : "") in 5 tries: \(seen)"
            )
        }
    }

    @Test("with no fault, the faulty engine passes what the tutorial engine passes (a sample of every family)")
    func noFaultPasses() throws {
        let sample = [
            "serial.fifo", "serial.exclusive", "sync.after-earlier", "barrier.alone", "target.serializes",
            "suspend.counted", "group.notify-after-all", "semaphore.signal-wakes", "once.exactly", "workitem.notify",
            "apply.every-index", "source.add-coalesces", "timer.repeat", "op.max-concurrent", "executor.serial-exclusive",
        ]
        let results = try FaultyArena.conform(rules: sample, fault: nil, stress: false)
        for rule in sample { #expect(results[rule] == "pass", "\(rule): \(results[rule] ?? "no such rule")") }
    }
}

/// The measured kills: fault → the rule that caught it (the quickest, among those that did), and whether only under
/// stress; and the escaped faults with the reason no rule can see them.
enum FaultKillTable {
    struct Kill: Sendable, CustomTestStringConvertible {
        let fault: String, rules: [String], stress: Bool

        init(fault: String, rule: String, stress: Bool) { (self.fault, rules, self.stress) = (fault, [rule], stress) }

        /// Several rules, each catching the fault in most runs but none in 10 of 10; one child runs them all.
        init(fault: String, rules: [String], stress: Bool) { (self.fault, self.rules, self.stress) = (fault, rules, stress) }

        var testDescription: String { "\(fault) by \(rules.joined(separator: ", "))\(stress ? " (stress)" : "")" }

        /// "fail" or "timeout" when a rule of the kill saw the fault, else what the first rule reported.
        func verdict(_ results: [String: String]) -> String {
            let statuses = rules.map { results[$0] ?? "no result" }
            return statuses.first { ["fail", "timeout"].contains($0) } ?? statuses[0]
        }
    }

    static let caught: [Kill] = [
        Kill(fault: "wait-single-pass", rule: "group.wait", stress: false),
        Kill(fault: "wait-timeout-ignores-condition", rule: "semaphore.timeout-races-signal", stress: false),
        Kill(fault: "blocked-worker-not-counted", rule: "sync.reentrant-concurrent", stress: false),
        Kill(fault: "starved-ignores-blocked", rule: "sync.reentrant-concurrent", stress: false),
        Kill(fault: "after-starts-no-worker", rule: "timer.not-early", stress: false),
        Kill(fault: "timers-cleared-wholesale", rule: "timer.one-shot", stress: false),
        Kill(fault: "retarget-marker-dropped", rule: "target.change-between-blocks", stress: false),
        Kill(fault: "job-end-no-broadcast", rule: "sync.after-earlier", stress: false),
        Kill(fault: "take-job-no-broadcast", rule: "sync.reentrant-concurrent", stress: false),
        Kill(fault: "workers-take-main-jobs", rule: "main.hand-off", stress: false),
        Kill(fault: "serial-head-not-alone", rule: "serial.fifo", stress: false),
        Kill(fault: "realtime-condition-clock", rule: "group.wait", stress: false),
        Kill(fault: "barrier-waits-for-one-block", rule: "barrier.after-earlier", stress: false),
        Kill(fault: "may-start-walks-one-level", rule: "target.width", stress: false),
        Kill(fault: "hold-walks-one-level", rule: "target.width", stress: false),
        Kill(fault: "resume-no-broadcast", rule: "suspend.through-target", stress: false),
        Kill(fault: "over-resume-unchecked", rule: "suspend.over-resume", stress: false),
        Kill(fault: "sync-any-ticket", rule: "sync.after-earlier", stress: false),
        Kill(fault: "sync-end-no-broadcast", rule: "barrier.sync", stress: false),
        Kill(fault: "sync-deadlock-check-own-queue", rule: "sync.on-own-queue-through-target", stress: false),
        Kill(fault: "enqueue-first-appends", rule: "source.registration-first", stress: false),
        Kill(fault: "take-head-listed-off-by-one", rule: "concurrent.parallel", stress: false),
        Kill(fault: "specific-own-queue-only", rule: "target.set-while-inactive", stress: false),
        Kill(fault: "qos-own-queue-only", rule: "qos.inherit-target", stress: false),
        Kill(fault: "group-leave-compares-one", rule: "main.hand-off", stress: false),
        Kill(fault: "group-notify-checks-outside-lock", rule: "group.reuse", stress: false),
        Kill(fault: "group-async-leaves-first", rule: "main.hand-off", stress: false),
        Kill(fault: "semaphore-last-waiter-no-handoff", rule: "semaphore.count", stress: false),
        Kill(fault: "semaphore-signal-no-broadcast", rule: "semaphore.signal-wakes", stress: false),
        Kill(fault: "once-done-before-body", rule: "once.recursive", stress: false),
        Kill(fault: "once-racers-do-not-wait", rule: "once.exactly", stress: false),
        Kill(fault: "work-item-late-notify-dropped", rule: "workitem.notify-while-finishing", stress: false),
        Kill(fault: "work-item-cancelled-never-finishes", rule: "workitem.cancel-before", stress: false),
        Kill(fault: "work-item-timed-out-wait-counts", rule: "workitem.wait", stress: false),
        Kill(fault: "apply-skips-index-per-chunk", rule: "apply.busy-pool", stress: false),
        Kill(fault: "apply-waits-for-claims", rule: "op.execution-blocks", stress: false),
        Kill(fault: "source-replace-zero-delivered", rule: "timer.reschedule", stress: false),
        Kill(fault: "source-or-adds", rule: "source.or-coalesces", stress: false),
        Kill(fault: "source-cancel-handler-on-target", rules: ["source.cancel", "timer.cancel"], stress: false),
        Kill(fault: "timer-generation-kept", rule: "timer.reschedule", stress: false),
        Kill(fault: "op-cancel-not-readied", rule: "op.cancel-ignores-dependencies", stress: false),
        Kill(fault: "op-cancelled-still-runs", rule: "op.cancel-all", stress: false),
        Kill(fault: "op-remove-dependency-not-readied", rule: "op.remove-dependency", stress: false),
        Kill(fault: "op-priority-not-refiled", rule: "op.priority-change", stress: false),
        Kill(fault: "opq-width-off-by-one", rule: "op.operations-list", stress: false),
        Kill(fault: "opq-barrier-tracks-one-member", rule: "op.barrier-after-earlier", stress: false),
        Kill(
            fault: "opq-enter-after-submit", rules: ["op.completion", "op.states", "op.current-queue", "op.add-waiting"],
            stress: false),
        Kill(fault: "opq-finished-barrier-keeps-slot", rule: "op.operations-list", stress: false),
        Kill(fault: "actor-queue-concurrent", rule: "executor.serial-exclusive", stress: false),
        Kill(fault: "actor-isolation-unmarked", rule: "executor.assume-isolated-in-block", stress: false),
        Kill(fault: "pool-mark-never-set", rule: "executor.preference-on-pool", stress: false),
        Kill(fault: "semaphore-timeout-keeps-claim", rule: "semaphore.timeout", stress: false),
        Kill(fault: "global-honours-barrier-items", rule: "barrier.on-global", stress: false),
        Kill(fault: "queues-do-not-take-turns", rule: "global.takes-turns", stress: false),
        Kill(fault: "set-target-while-running", rule: "target.change-while-running", stress: false),
        Kill(fault: "source-waiting-cleared-late", rule: "source.merge-at-call-start", stress: false),
        Kill(fault: "timer-counts-one-per-fire", rule: "timer.past-start", stress: false),
        Kill(fault: "opq-suspend-ignored-on-ready", rule: "op.suspend", stress: false),
        Kill(fault: "op-finish-group-after-finish", rule: "op.wait-while-finishing", stress: false),
        Kill(fault: "apply-completed-unlocked", rule: "apply.rounds", stress: false),
        Kill(fault: "timer-rearms-after-cancel", rule: "timer.cancel-disarms", stress: false),
    ]

    static let escaped: [(fault: String, reason: String)] = [
        (
            "group-enter-unlocked",
            "caught in the measurement (group.multi-queue, quiet, 1 of 2 runs), not in 3 tries against the catalog of fcf6185 (those rules were reworked since): a race the rules no longer reach"
        ),
        (
            "pool-mark-not-restored",
            "caught once in the first quiet run (by once.exactly, semaphore.signal-wakes, timer.data-counts-fires), then by no rule in a whole-catalog recheck of two runs: not counted"
        ),
        (
            "any-job-end-clears-alone",
            "equivalent in this engine, as far as we can see: no other job runs through a link while one holds it alone, so none can end there"
        ),
        (
            "work-item-notify-checks-outside-lock",
            "a window of a few instructions between two lock rounds: workitem.notify-while-finishing, which races notify against the finish, lands in it in 4 of 10 runs, too seldom for three tries to be sure"
        ),
        (
            "timer-rearmed-from-now",
            "the fires drift later but are counted from the schedule's start, so counts stay right; only the fire times show it, and tests assert no timing"
        ),
    ]
}

/// `faulty-arena conform` as a child process, beside this test bundle.
enum FaultyArena {
    /// Each rule's status (pass, fail, timeout, unsupported) from one `conform` run with ARENA_FAULT set to `fault`.
    static func conform(rules: [String], fault: String?, stress: Bool) throws -> [String: String] {
        let binary = Bundle.main.bundleURL.appendingPathComponent("faulty-arena")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Problem("\(binary.path) is missing: build the package first")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments =
            ["conform", "--engine", "minimal-faulty", "--timeout", "4", "--format", "json"]
            + rules.flatMap { ["--rule", $0] } + (stress ? ["--stress"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["ARENA_FAULT"] = fault ?? ""
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read on another thread, so that a child that never ends is stopped at the deadline rather than waited for.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var output = Data()
        Thread {
            output = stdout.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        let deadline = DispatchTime.now() + .seconds(30 + 10 * rules.count)
        if done.wait(timeout: deadline) == .timedOut {
            process.terminate()
            throw Problem("faulty-arena conform \(rules) with fault \(fault ?? "none") ran past its deadline")
        }
        process.waitUntilExit()
        struct Report: Decodable {
            struct Result: Decodable { let rule: String, status: String }
            let results: [Result]
        }
        let report = try JSONDecoder().decode(Report.self, from: output)
        return Dictionary(report.results.map { ($0.rule, $0.status) }, uniquingKeysWith: { $1 })
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A value behind a lock, for the kills' first tries, written from the operation queue's threads.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
