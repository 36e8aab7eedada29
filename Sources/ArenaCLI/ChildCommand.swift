import ArgumentParser
import Conformance
import ArenaContract
import Contenders

/// The child process of one rule: `arena conform` starts the executable again with this hidden command, so that a
/// deadlocked or crashing engine takes down one rule's process, never the run.
struct ChildCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "child", abstract: "Run one rule on one engine in this process (used by 'arena conform').",
        shouldDisplay: false)

    @Option var engine: String
    @Option var rule: String
    @Option(name: .customLong("repeat")) var repeats: Int = 1
    @Option var timeout: Double = 10
    @Flag var stress = false

    func validate() throws {
        guard repeats >= 1, timeout > 0 else { throw ValidationError("--repeat and --timeout must be positive") }
    }

    func run(on lineup: Lineup) throws {
        guard let chosen = lineup.contender(named: engine) else { throw ValidationError("unknown engine '\(engine)'") }
        guard let chosenRule = lineup.catalog.rule(id: rule) else { throw ValidationError("unknown rule '\(rule)'") }
        let request = ChildRequest(engine: engine, rule: rule, repeats: repeats,
                                   timeout: .milliseconds(Int64(timeout * 1000)), stress: stress)
        ConformanceChild.main(request, engine: chosen.engine, rule: chosenRule)
    }
}

extension ChildRequest {
    /// The command line that makes `arena` run this request as `ChildCommand`.
    var arenaArguments: [String] {
        ["child", "--engine", engine, "--rule", rule, "--repeat", "\(repeats)", "--timeout", "\(timeoutSeconds)"]
            + (stress ? ["--stress"] : [])
    }
}
