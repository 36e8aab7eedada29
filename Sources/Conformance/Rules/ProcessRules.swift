import ArenaContract
import Glibc
import Harness

/// Process sources: a process's exit, reported once to every observer.
enum ProcessRules: RuleFamily {
    static let concept = Concept.processes
    static let rules: [any ConformanceRule.Type] = [ProcessExit.self, ProcessObservers.self, ProcessExitedAlready.self]
}

/// A child process the check controls: `/bin/sleep 30`, killed by `terminate()` when the check wants it gone, and
/// reaped by `dispose()` whatever happened (every rule calls it in a `defer`). A spawned child inherits the calling
/// thread's signal mask, and libdispatch's worker threads block SIGTERM (measured; a check may run on one, as in the
/// tests' exit-test children): the child starts with no signal blocked and default actions, and ends by SIGKILL.
struct WatchedChild {
    let pid: pid_t

    init() throws {
        var pid = pid_t()
        let argv = (["/bin/sleep", "30"] as [String]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawn(&pid, "/bin/sleep", nil, &attributes, argv, environ)
        guard spawned == 0 else { throw RuleFailure(.setup, "posix_spawn /bin/sleep failed: \(spawned)") }
        self.pid = pid
    }

    /// Ends the child (SIGKILL).
    func terminate() { kill(pid, SIGKILL) }

    /// Waits (bounded) until the child has exited, without reaping it: it stays a zombie.
    func awaitExit() throws {
        try expectEventually("the child process \(pid) exiting") {
            var info = siginfo_t()
            let seen = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0
            return seen && info._sifields._sigchld.si_pid == pid
        }
    }

    /// Kills the child if it still runs and reaps it.
    func dispose() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

/// A process source on `child` asking for `.exit`, logging the data of every handler call; activated, and returned
/// once its registration handler ran (from then on it is watching).
private func watchExit<E: Engine>(
    _ engine: E, _ child: WatchedChild, label: String,
    queue: E.Queue
) throws -> (source: E.ProcessSource, calls: Recorder<UInt>) {
    let source = engine.makeProcessSource(label: label, processID: child.pid, events: .exit, queue: queue)
    return (source, try activateRecording(source, label: label))
}

/// What a source's log should be after one exit: one call, data exactly `.exit`.
private func expectOneExit(_ calls: [UInt], _ who: String) throws {
    let events = calls.map { ProcessEvents(rawValue: $0) }
    try expect(events.count == 1, .extra, "\(who) was called \(events.count) times after one exit: \(events)")
    try expect(events[0] == .exit, .wrongValue, "\(who)'s data was \(events[0]), not [exit]")
}

enum ProcessExit: BehaviourRule {
    static let id = "proc.exit"
    static let title =
        "A process source asking for exit stays quiet while the process runs and reports its exit once, with data exactly [exit]."
    static let source =
        "dispatch/source.h, DISPATCH_SOURCE_TYPE_PROC: 'The mask is a mask of desired events'; DISPATCH_PROC_EXIT: 'The process has exited (perhaps cleanly, perhaps not)'; [objc.io #2], 'Watching Processes'"
    static let needs: Set<Capability> = [.processSources]

    static let forbidden: [Outcome] = [.missing, .extra, .early, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let child = try WatchedChild()
        defer { child.dispose() }
        let label = "arena.proc.exit"
        let (source, calls) = try watchExit(engine, child, label: label, queue: engine.makeQueue(label: label))
        defer { cancelAndDrain(source) }
        Timing.pause(Timing.quietPeriod)
        try expect(calls.count == 0, .early, "the source fired \(calls.count) times while the process was running")
        child.terminate()
        try expectEventually("the exit being reported") { calls.count >= 1 }
        Timing.pause(.milliseconds(300))  // long enough for a second report to show
        try expectOneExit(calls.elements, "the source")
    }
}

enum ProcessObservers: BehaviourRule {
    static let id = "proc.observers"
    static let title =
        "Five process sources on one process each report its exit exactly once, and none reports anything more in the next half second."
    static let source =
        "libdispatch tests/dispatch_proc.c: five DISPATCH_PROC_EXIT observers of one child, 'verify all observers were notified', each event count checked after a delay 'to give a chance for any bugs that result in too many events to be noticed'"
    static let needs: Set<Capability> = [.processSources]
    static let observers = 5

    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let child = try WatchedChild()
        defer { child.dispose() }
        var watches: [(source: E.ProcessSource, calls: Recorder<UInt>)] = []
        defer { watches.forEach { cancelAndDrain($0.source) } }
        for index in 0..<observers {
            // On the global queue, as dispatch_proc.c: the observers' handlers may run at once.
            let label = "arena.proc.observers.\(index)"
            watches.append(try watchExit(engine, child, label: label, queue: engine.globalQueue))
        }
        child.terminate()
        try expectEventually("every observer seeing the exit (\(watches.map(\.calls.count)) calls so far)") {
            watches.allSatisfy { $0.calls.count >= 1 }
        }
        Timing.pause(.milliseconds(500))
        for (index, watch) in watches.enumerated() { try expectOneExit(watch.calls.elements, "observer \(index)") }
    }
}

enum ProcessExitedAlready: BehaviourRule {
    static let id = "proc.exited-already"
    static let title =
        "A process source made for a process that has already exited (a zombie not yet reaped) reports the exit at once, once."
    static let source =
        "libdispatch src/event/event_kevent.c: 'EVFILT_PROC may fail with ESRCH when the process exists but is a zombie. As a workaround, we simulate an exit event for any EVFILT_PROC with an invalid pid'"
    static let needs: Set<Capability> = [.processSources]

    static let forbidden: [Outcome] = [.missing, .extra, .wrongValue]

    static func check<E: Engine>(_ engine: E) throws {
        let child = try WatchedChild()
        defer { child.dispose() }
        child.terminate()
        try child.awaitExit()
        let label = "arena.proc.exited-already"
        let (source, calls) = try watchExit(engine, child, label: label, queue: engine.makeQueue(label: label))
        defer { cancelAndDrain(source) }
        try expectEventually("the exit of a process that had already exited being reported") { calls.count >= 1 }
        Timing.pause(.milliseconds(300))
        try expectOneExit(calls.elements, "the source")
    }
}
