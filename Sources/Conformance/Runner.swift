import ArenaContract
import Harness

/// Checks rules on engines: the capability gate, repeats, a watchdog per run, and optionally a stress load.
///
/// With a `launcher`, every rule runs in child processes (misuse rules one child per run, behaviour rules one child
/// for as many runs as it can finish: a child whose run timed out or crashed is replaced by a fresh one for the runs
/// left). Without one, behaviour rules run in this process, which is what the child itself does, and misuse rules
/// cannot run.
///
/// Every run is made and counted, failed or not, so a result says how often a rule held (`passes`) and each
/// distinct failure with its count (`failures`).
public struct ConformanceRunner: Sendable {
    /// The longest one run of one rule may take.
    public var timeout: Duration
    /// How many times each rule runs; it passes only if every run passes.
    public var repeats: Int
    /// Whether rules run beside a `StressLoad` (a spinning thread per core, and as many real-time preempters waking at
    /// random), in the process that runs them.
    public var stress: Bool
    /// Starts child processes; `nil` runs behaviour rules in this process.
    public var launcher: (any ChildLauncher)?

    public init(timeout: Duration = .seconds(10), repeats: Int = 1, stress: Bool = false, launcher: (any ChildLauncher)? = nil) {
        self.timeout = timeout
        self.repeats = repeats
        self.stress = stress
        self.launcher = launcher
    }

    /// Runs `rule` on `engine`.
    public func run<E: Engine>(_ rule: Rule, on engine: E) -> RuleResult {
        run(rule, on: engine, observing: { _ in })
    }

    /// Runs `rule` on `engine`, telling `observe` how each run ended as soon as it did: in child processes when the
    /// runner has a launcher (the engine is then only named to them), in this process otherwise.
    public func run<E: Engine>(_ rule: Rule, on engine: E, observing observe: (RunOutcome) -> Void) -> RuleResult {
        if launcher != nil { return run(rule, on: EngineProfile(engine), observing: observe) }
        if let lack = EngineProfile(engine).missing(rule.requirements) {
            return RuleResult(engine: engine.name, rule: rule.id, unsupported: lack.description)
        }
        let start = Deadline.now()
        let outcomes = runHere(rule, on: engine, observing: observe)
        return RuleResult(engine: engine.name, rule: rule.id, outcomes: outcomes, seconds: (Deadline.now() - start).seconds)
    }

    /// Runs `rule` on the contender `profile` describes, in child processes started by the launcher, telling
    /// `observe` how each run ended as soon as it did. The parent's side: it decides from the profile alone whether
    /// the contender can run the rule, and hands the child the engine's name, never the engine.
    public func run(_ rule: Rule, on profile: EngineProfile, observing observe: (RunOutcome) -> Void = { _ in }) -> RuleResult {
        if let lack = profile.missing(rule.requirements) {
            return RuleResult(engine: profile.name, rule: rule.id, unsupported: lack.description)
        }
        let start = Deadline.now()
        guard let launcher else {
            misuse(
                "ConformanceRunner: rule \(rule.id) on '\(profile.name)': a profile names an engine to a child process, and this runner has no launcher"
            )
        }
        let outcomes =
            rule.misuse.map { runMisuse($0, on: profile.name, with: launcher, observing: observe) }
            ?? runInChildren(rule, on: profile.name, with: launcher, observing: observe)
        return RuleResult(engine: profile.name, rule: rule.id, outcomes: outcomes, seconds: (Deadline.now() - start).seconds)
    }

    /// Runs `rule` on `engine` from async code without blocking the caller's executor: the run happens on a thread
    /// of its own while the caller is suspended. On Linux the cooperative pool shares libdispatch's workers, so a
    /// blocked pool thread would take one of the engine's workers away and hide concurrency from the checks.
    public func run<E: Engine>(_ rule: Rule, on engine: E) async -> RuleResult {
        await withCheckedContinuation { continuation in
            Threads.detach { continuation.resume(returning: self.run(rule, on: engine)) }
        }
    }

    /// The runs of a behaviour rule in this process. A timed-out run ends the series: its check is abandoned on a
    /// thread that may hold the engine's state, so later runs here would measure that, not the rule.
    private func runHere<E: Engine>(_ rule: Rule, on engine: E, observing observe: (RunOutcome) -> Void) -> [RunOutcome] {
        let check: @Sendable () throws -> Void
        if let behaviour = rule.type as? any BehaviourRule.Type {
            check = { try behaviour.check(engine) }
        } else if let operations = rule.type as? any OperationRule.Type {
            check = { try operations.check(engine.operations) }
        } else if let executors = rule.type as? any ExecutorRule.Type {
            check = { try AsyncCheck.run(until: .now() + timeout) { try await executors.check(engine) } }
        } else if let global = rule.type as? any GlobalExecutorRule.Type {
            guard ConformanceChild.hostsRule else {
                let outcome = RunOutcome(
                    .fail, "rule \(rule.id) installs a global executor, which only a child process of its own may (arena conform)")
                observe(outcome)
                return [outcome]
            }
            check = { [timeout] in
                do { try GlobalExecutorTakeover.install(engine, main: rule.needsMainLoop) } catch {
                    throw RuleFailure(.setup, "\(error)")
                }
                try AsyncCheck.run(until: .now() + timeout) { try await global.check(engine) }
            }
        } else {
            let outcome = RunOutcome(
                .fail,
                rule.isMisuse
                    ? "misuse rules need a child process, and no launcher was given"
                    : "rule \(rule.id) is neither a behaviour, an operation, an executor nor a misuse rule")
            observe(outcome)
            return [outcome]
        }
        if rule.needsMainLoop && !MainLoopThread.isRunning {
            let outcome = RunOutcome(
                .fail, "rule \(rule.id) needs the engine's main loop, which runs only in a child process (arena conform)")
            observe(outcome)
            return [outcome]
        }
        let load = stress ? StressLoad.start(until: .now() + timeout * repeats) : nil
        defer { load?.stop() }
        var outcomes: [RunOutcome] = []
        while outcomes.count < repeats {
            let outcome: RunOutcome =
                switch Watchdog.run(timeout: timeout, check) {
                case .returned: RunOutcome(.pass)
                case .threw(let failure): RunOutcome(failure: failure)
                case .timedOut:
                    RunOutcome(.timeout, "no result within \(timeout.seconds) s (deadlock or lost wake-up)", outcome: .timeout)
                }
            observe(outcome)
            outcomes.append(outcome)
            if outcome.status == .timeout { break }
        }
        return outcomes
    }

    /// The runs of a behaviour rule in child processes: one child makes as many as it can, and a child that ended
    /// early (a timeout, a crash) is followed by a fresh one for the rest. Every child adds at least one outcome.
    private func runInChildren(
        _ rule: Rule, on engine: String, with launcher: any ChildLauncher,
        observing observe: (RunOutcome) -> Void
    ) -> [RunOutcome] {
        var outcomes: [RunOutcome] = []
        while outcomes.count < repeats {
            let request = RuleRequest(engine: engine, rule: rule.id, repeats: repeats - outcomes.count, timeout: timeout, stress: stress)
            for outcome in ConformanceChild.outcomes(of: launcher.launch(request), for: request) {
                observe(outcome)
                outcomes.append(outcome)
            }
        }
        return outcomes
    }

    /// The runs of a misuse rule: each a child that must die naming the object.
    private func runMisuse(
        _ misuse: any MisuseRule.Type, on engine: String, with launcher: any ChildLauncher,
        observing observe: (RunOutcome) -> Void
    ) -> [RunOutcome] {
        (0..<repeats).map { _ in
            let request = RuleRequest(engine: engine, rule: misuse.id, repeats: 1, timeout: timeout, stress: stress)
            let outcome = MisuseVerdict.judge(launcher.launch(request), rule: misuse)
            observe(outcome)
            return outcome
        }
    }
}
