import ArenaContract
import ArgumentParser
import Conformance
import Glibc
import Mutants

/// `arena explain RULE`: one rule, for a reader learning the contract or whose engine just failed it. It prints what
/// the rule states, where that comes from, what the check does and the outcomes it forbids, the capabilities it needs,
/// and the mutants that break it; then, unless `--no-run`, it runs the rule once on the reference contender and once
/// on a mutant (the kill table's first for the rule, `Kill.first(for:)`), each in a child process under a watchdog as
/// `arena conform` runs rules, and prints what each saw. Exit 0 when the demonstration came out as it should (the
/// reference passed or could not run, the mutant failed or there is none), 1 otherwise, 64 for an unknown rule.
struct ExplainCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract:
            "Explain a rule: its statement, source, check and forbidden outcomes; then run it on the reference engine and on a mutant that breaks it.",
        discussion:
            "The runs are live: each in a child process of its own under a watchdog, as 'arena conform' runs rules. A mutant that passes (a race it missed) gets two more tries."
    )

    @Argument(help: "The rule's id ('arena rules' lists them).")
    var rule: String

    @Flag(name: .customLong("no-run"), help: "Print the explanation only, and run nothing.")
    var noRun = false

    @Option(help: "Seconds one run may take before it counts as timed out.")
    var timeout: Double = 10

    /// How many children a mutant gets to fail in: a mutant whose fault is a race may miss it once (as in `MutantTests`).
    static let mutantTries = 3

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run(on lineup: Lineup) throws {
        guard let chosen = lineup.catalog.rule(id: rule) else {
            throw ValidationError("unknown rule '\(rule)' (see 'arena rules')")
        }
        let explanation = RuleExplanation(rule: chosen, reference: lineup.reference(of: chosen.referenceLayer)?.profile)
        print(explanation.text, terminator: "")
        if noRun { return }
        let runner = ConformanceRunner(timeout: .milliseconds(Int(timeout * 1000)), repeats: 1, launcher: ReexecLauncher())
        print("")
        print("Live: the rule once on each engine, in a child process of its own under a \(Self.seconds(timeout)) watchdog.")
        var asExpected = true

        if let contender = lineup.reference(of: chosen.referenceLayer) {
            let reference = contender.name
            if let lack = contender.profile.missing(chosen.requirements) {
                print(RuleExplanation.wrap("\(reference) (the reference): not run: it \(lack)", indent: "    ", first: "  "))
            } else {
                let result = Self.show("\(reference) (the reference)") { runner.run(chosen, on: contender.profile) }
                asExpected = asExpected && !result.status.isFailure
            }
        } else {
            print("  the reference: not run: this arena has no reference of \(chosen.referenceLayer.rawValue)")
        }

        if let kill = Kill.first(for: chosen.id), let mutant = Mutants.engine(named: Mutants.name(of: kill.fault)) {
            let profile = EngineProfile(mutant)
            var tries = 0
            let result = Self.show("\(profile.name) (\(kill.fault.summary))") {
                var result: RuleResult
                repeat {
                    tries += 1
                    result = runner.run(chosen, on: profile)
                } while result.status == .pass && tries < Self.mutantTries
                return result
            }
            if result.status == .pass {
                print("    (passed all \(tries) tries: its fault is a race these runs missed)")
            } else if tries > 1 {
                print("    (caught on try \(tries) of \(Self.mutantTries))")
            }
            asExpected = asExpected && result.status.isFailure
        } else {
            print("  no mutant breaks \(chosen.id): nothing here shows it failing")
        }
        if !asExpected { throw ExitCode.failure }
    }

    /// Prints `label`, runs `body`, then prints how it ended and what it saw; returns the result.
    private static func show(_ label: String, _ body: () -> RuleResult) -> RuleResult {
        print("  \(label): ", terminator: "")
        fflush(nil)  // the label shows while the child runs
        let result = body()
        print("\(result.status.rawValue) in \(seconds(result.seconds))")
        if result.failures.isEmpty {
            // A pass says nothing more, but a misuse rule's pass quotes the diagnostic seen; unsupported says why.
            if !result.detail.isEmpty { print(RuleExplanation.wrap(result.detail, indent: "    ")) }
        } else {
            for failure in result.failures {
                print(RuleExplanation.wrap("\(failure.outcome): \(failure.example)", indent: "    "))
            }
        }
        return result
    }

    private static func seconds(_ value: Double) -> String {
        value < 10 ? "\((value * 100).rounded() / 100) s" : "\(Int(value.rounded())) s"
    }
}

/// What `arena explain` prints about a rule before running it.
struct RuleExplanation {
    let rule: Rule
    /// The contender holding the reference role of the rule's `referenceLayer` in this lineup, if any.
    let reference: EngineProfile?

    /// The explanation, lines ending in newlines.
    var text: String {
        var lines = [Self.wrap("\(rule.id): \(rule.title)", indent: "  ", first: ""), ""]
        func field(_ name: String, _ values: [String]) {
            for (index, value) in values.enumerated() {
                let label = (index == 0 ? name : "") + String(repeating: " ", count: 11 - (index == 0 ? name.count : 0))
                lines.append(Self.wrap(value, indent: "  " + String(repeating: " ", count: 11), first: "  " + label))
            }
        }
        field("concept", ["\(rule.concept.heading) (\(rule.concept.rawValue))"])
        field("source", [rule.source])
        field("check", [check])
        field(
            "forbids",
            rule.forbidden.map { outcome in outcome.meaning.map { "\(outcome): \($0)" } ?? outcome.key }
                + ["(and, as any run may: \(Outcome.universal.map(\.key).joined(separator: ", ")))"])
        field("needs", [needs])
        field("reference", [referenceLine])
        let kills = Kill.kills(of: rule.id)
        field(
            "mutants",
            kills.isEmpty
                ? ["none breaks this rule"]
                : kills.map { kill in
                    let stress = Kill.preemptionOnly.contains(kill) ? " (caught under --stress only)" : ""
                    return "\(Mutants.name(of: kill.fault)): \(kill.fault.summary)\(stress)"
                })
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the check does, from the rule's kind.
    private var check: String {
        let watchdog =
            "It runs in a child process of its own, under a watchdog (--timeout); a run that does not end in time is a timeout."
        let mainLoop =
            rule.needsMainLoop
            ? " The child gives the engine's main loop the thread the process started on, and runs the check on another." : ""
        if let misuse = rule.misuse {
            return
                "A misuse rule: its trigger misuses an object labelled '\(misuse.objectLabel)', and the child must die with a diagnostic naming the object and the misuse (one of: \(misuse.keywords.joined(separator: ", "))). A trigger that returns means the engine let the misuse pass."
                + mainLoop
        }
        let what =
            switch rule.layer {
            case _ where rule.type is any GlobalExecutorRule.Type:
                "A global-executor rule, checked from a detached task with the engine installed as Swift's global executor in its child process."
            case .operationQueues: "An operation-queue rule, checked on the engine's operation layer (OperationQueue's contract)."
            case .executors: "An executor rule, checked from a detached task on the engine's executor layer."
            default: "A behaviour rule, checked on the engine's GCD objects."
            }
        return what
            + " The check passes when it returns, and fails naming the outcome it saw, one of those it forbids. "
            + watchdog + mainLoop
    }

    /// The capabilities the rule needs, the layer first.
    private var needs: String {
        let others = rule.needs.filter { $0 != rule.layer }.map(\.rawValue)
        return "\(rule.layer.rawValue) (the layer it checks)" + (others.isEmpty ? "" : ", " + others.joined(separator: ", "))
    }

    /// Which contender decides the rule, and why: the reference of the layer the rule belongs to.
    private var referenceLine: String {
        let layer = rule.referenceLayer
        let scope =
            rule.layer == .executors && layer == .dispatchObjects
            ? "the reference of \(layer.rawValue), which decides the GCD rules and those of serial executors over its queues"
            : "the reference of \(layer.rawValue), which decides its rules"
        return (reference.map { "\($0.name): " } ?? "none in this arena: ") + scope
    }

    /// `text` wrapped at 118 columns, the first line after `first` (default `indent`), the others after `indent`.
    static func wrap(_ text: String, indent: String, first: String? = nil, width: Int = 118) -> String {
        var lines: [String] = []
        var line = first ?? indent
        var empty = true
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
