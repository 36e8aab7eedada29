import ArgumentParser
import Conformance
import Contenders

/// The child process of a misuse rule: `arena conform` starts the executable again with this hidden command,
/// which misuses the engine and is expected to die with a diagnostic.
struct MisuseChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "misuse-child", abstract: "Run one misuse rule's trigger (used by 'arena conform').",
        shouldDisplay: false)

    @Option var engine: String
    @Option var rule: String
    @Option var timeout: Double = 10

    func validate() throws {
        guard EngineRegistry.engine(named: engine) != nil else { throw ValidationError("unknown engine '\(engine)'") }
        guard let found = Catalog.rule(id: rule), found.isMisuse else { throw ValidationError("'\(rule)' is not a misuse rule") }
    }

    func run() {
        MisuseChild.run(engine: EngineRegistry.engine(named: engine)!, rule: Catalog.rule(id: rule)!,
                        timeout: .milliseconds(Int(timeout * 1000)))
    }
}
