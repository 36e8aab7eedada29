import ArenaContract
import ArgumentParser
import Conformance
import Glibc
import Harness

/// `arena explore`: generated scenarios, checked against the model (`Scenario`, `ScenarioModel`). For each engine it
/// runs `--budget` programs, made from the seeds `--seed`, `--seed`+1, …, in child processes of 50 programs each
/// (a program that hangs or crashes ends its child; the next child goes on). The first program an engine disagrees
/// on is shrunk (`ScenarioShrinker`, each candidate up to five runs in a child of its own) and printed with the token
/// that replays it (`--replay`). Exit 0 when every engine agreed, 1 when one disagreed, 64 on a usage error.
struct ExploreCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Run generated GCD programs on engines and check each run against the model of the contract.")

    @Option(
        name: .customLong("engine"),
        help: "An engine to explore (repeatable; default: every engine with GCD objects; 'list --engines' names them).")
    var engines: [String] = []

    @Option(help: "The first seed (a decimal number below 2^64; default: one drawn at random and printed).")
    var seed: String?

    @Option(help: "How many programs each engine runs.")
    var budget: Int = ScenarioGenerator.defaultBudget

    @Option(name: .customLong("repeat"), help: "Runs of each program; it agrees only if every run does.")
    var repeats: Int = 1

    @Option(help: "Seconds one run of one program may take before it counts as a hang.")
    var timeout: Double = 10

    @Flag(help: "Run the programs under load: a spinning thread per core and as many real-time preempters.")
    var stress = false

    @Option(help: "Run one program, as a token printed by an earlier run (SEED or SEED@I,J,...), instead of exploring.")
    var replay: String?

    @Flag(help: "Print a disagreeing program as generated, without shrinking it.")
    var noShrink = false

    func validate() throws {
        guard budget >= 1 else { throw ValidationError("--budget must be at least 1, not \(budget)") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be at least 1, not \(repeats)") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        if let seed, UInt64(seed) == nil {
            throw ValidationError("--seed: '\(seed)' is not a seed: a decimal number below 2^64")
        }
        if let replay {
            do { _ = try ScenarioToken(parsing: replay) } catch { throw ValidationError("--replay: \(error.description)") }
        }
    }

    func run(on lineup: Lineup) throws {
        let contenders = try chosen(lineup)
        let first = seed.flatMap(UInt64.init) ?? UInt64.random(in: 0..<1_000_000_000)
        let explorer = Explorer(repeats: repeats, timeout: .milliseconds(Int64(timeout * 1000)), stress: stress)
        var agreed = true
        if let replay {
            let token = try ScenarioToken(parsing: replay)
            for contender in contenders where contender.profile.has([token.layer.capability]) {
                let listing: String
                do { listing = try token.listing(contender.profile.capabilities) } catch {
                    throw ValidationError("--replay: \(error.description)")
                }
                print("\(contender.name): \(token)")
                print(indent(listing))
                let outcome = explorer.run([token.description], on: contender.name)[0]
                if let disagreement = outcome.disagreement {
                    agreed = false
                    print("  disagrees in run \(outcome.runs) of \(repeats): \(disagreement)")
                } else {
                    print("  agrees in \(Program.count(outcome.runs, "run"))")
                }
            }
            if !agreed { throw ExitCode.failure }
            return
        }
        print(
            "explore: seed \(first), \(Program.count(budget, "program")) per engine, \(Program.count(repeats, "run")) each\(stress ? ", under stress" : "")"
        )
        let width = contenders.map(\.name.count).max() ?? 0
        for contender in contenders {
            for layer in ScenarioToken.Layer.allCases where contender.profile.has([layer.capability]) {
                let start = Deadline.now()
                let name = contender.name.padding(toLength: width, withPad: " ", startingAt: 0) + layer.title
                let capabilities = contender.profile.capabilities
                guard let (outcome, index) = explorer.explore(layer, from: first, budget: budget, on: contender.name) else {
                    let (reached, of, missed) = Self.reach(layer, capabilities, from: first, count: budget)
                    let unreached =
                        missed.isEmpty ? "" : " (not: \(missed.prefix(5).joined(separator: ", "))\(missed.count > 5 ? ", …" : ""))"
                    print(
                        "\(name)  \(budget) programs agree (\(seconds(since: start))), reaching \(reached) of the \(of) calls it can make\(unreached)"
                    )
                    continue
                }
                agreed = false
                let disagreement = outcome.disagreement!
                print("\(name)  program \(index + 1) of \(budget) (seed \(outcome.token)) disagrees: \(disagreement)")
                let pad = String(repeating: " ", count: width + 2)
                let token = try ScenarioToken(parsing: outcome.token)
                var replayToken = token
                if !noShrink && disagreement.key != .crash {
                    let steps = try token.steps(capabilities)
                    let shrunk = explorer.shrink(token, like: disagreement, on: contender.name, steps: steps)
                    replayToken = shrunk.token
                    print(
                        "\(pad)shrunk in \(Program.count(shrunk.tries, "candidate")) to \(Program.count(try replayToken.steps(capabilities), "step")): \(shrunk.disagreement)"
                    )
                }
                print(indent(try replayToken.listing(capabilities), by: pad + "  "))
                print("\(pad)replay: \(Program.name) explore --engine \(contender.name) --replay \(replayToken) --repeat 5")
            }
        }
        if !agreed {
            let reference = lineup.reference(of: .dispatchObjects)?.name
            if let reference, contenders.contains(where: { $0.name == reference }) {
                print("(\(reference) is the reference: where it disagrees, the model is wrong or the reference has a bug)")
            }
            throw ExitCode.failure
        }
    }

    private func chosen(_ lineup: Lineup) throws -> [Contender] {
        var contenders: [Contender] = []
        for name in engines {
            guard let contender = lineup.contender(named: name) ?? Contender.mutant(named: name) else {
                throw ValidationError("unknown engine '\(name)' (known: \(lineup.names.joined(separator: ", ")))")
            }
            guard Self.explorable(contender) else {
                throw ValidationError("engine '\(name)' has no GCD objects, operation-queue layer or executor layer of its own to explore")
            }
            contenders.append(contender)
        }
        return engines.isEmpty ? lineup.contenders.filter(Self.explorable) : contenders
    }

    /// Whether `contender` has a layer of its own that programs are generated for.
    static func explorable(_ contender: Contender) -> Bool {
        ScenarioToken.Layer.allCases.contains { contender.profile.has([$0.capability]) }
    }

    /// How many of the calls a contender with `capabilities` can make the `count` programs from `first` on reach, of
    /// how many, and those missed.
    static func reach(_ layer: ScenarioToken.Layer, _ capabilities: [Capability], from first: UInt64, count: Int)
        -> (Int, Int, [String])
    {
        switch layer {
        case .dispatch:
            let generator = ScenarioGenerator(features: .init(capabilities))
            let reach = ScenarioReach(generator, from: first, count: count)
            let missed = generator.aimable.filter { reach.calls[$0, default: 0] == 0 }.map { "\($0.operation) from \($0.place)" }
            return (generator.aimable.count - missed.count, generator.aimable.count, missed)
        case .operations:
            let reach = OperationReach(OperationGenerator(features: .init(capabilities)), from: first, count: count)
            let missed = reach.possible.filter { reach.programs[$0, default: 0] == 0 }.map(\.description)
            return (reach.reached.count, reach.possible.count, missed)
        case .executors:
            let reach = ExecutorReach(ExecutorGenerator(features: .init(capabilities)), from: first, count: count)
            let missed = reach.possible.filter { reach.programs[$0, default: 0] == 0 }
            return (reach.reached.count, reach.possible.count, missed)
        }
    }

    private func indent(_ text: String, by pad: String = "  ") -> String {
        text.split(separator: "\n").map { pad + $0 }.joined(separator: "\n")
    }

    private func seconds(since start: Deadline) -> String {
        let elapsed = (Deadline.now() - start).seconds
        return elapsed < 10 ? "\((elapsed * 10).rounded() / 10) s" : "\(Int(elapsed.rounded())) s"
    }
}

/// Runs programs in child processes and shrinks a disagreement.
private struct Explorer {
    let repeats: Int
    let timeout: Duration
    let stress: Bool
    /// Programs per child process.
    let batch = 50

    /// The outcome of every token on `engine`, from as many children as it takes.
    func run(_ tokens: [String], on engine: String, repeats: Int? = nil) -> [ScenarioOutcome] {
        var outcomes: [ScenarioOutcome] = []
        while outcomes.count < tokens.count {
            let request = ScenarioRequest(
                engine: engine, tokens: Array(tokens[outcomes.count...]), repeats: repeats ?? self.repeats, timeout: timeout,
                stress: stress)
            let reported = ScenarioChild.outcomes(of: ChildRequests.run(request), for: request)
            outcomes += reported
            if reported.isEmpty { break }  // cannot happen: a child that reports nothing gets a crash outcome
        }
        return outcomes
    }

    /// The first disagreement among `budget` programs of `layer` from `first` on, with its index, or `nil`.
    func explore(_ layer: ScenarioToken.Layer, from first: UInt64, budget: Int, on engine: String) -> (ScenarioOutcome, Int)? {
        var index = 0
        while index < budget {
            let count = min(batch, budget - index)
            let tokens = (0..<count).map { ScenarioToken(layer, seed: first &+ UInt64(index + $0)).description }
            for (offset, outcome) in run(tokens, on: engine).enumerated() where outcome.disagreement != nil {
                return (outcome, index + offset)
            }
            index += count
        }
        return nil
    }

    /// `token`'s program shrunk: the fewest steps found that still disagree with the key of `like` within five runs.
    func shrink(_ token: ScenarioToken, like: ScenarioDisagreement, on engine: String, steps: Int)
        -> (token: ScenarioToken, disagreement: ScenarioDisagreement, tries: Int)
    {
        var last = like
        let result = ScenarioShrinker().shrink(Array(0..<steps)) { kept in
            let candidate = ScenarioToken(token.layer, seed: token.seed, kept: kept).description
            guard let found = run([candidate], on: engine, repeats: max(5, repeats))[0].disagreement, found.key == like.key
            else { return false }
            last = found
            return true
        }
        let kept = result.kept.count == steps ? nil : result.kept
        return (ScenarioToken(token.layer, seed: token.seed, kept: kept), last, result.tries)
    }
}
