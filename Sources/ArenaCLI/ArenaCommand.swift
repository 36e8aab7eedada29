import ArenaContract
import ArgumentParser
import Conformance
import Glibc

/// `arena`: the command-line front end. It parses, validates and hands over to the libraries; usage errors end
/// with one line on standard error and exit code 64 (EX_USAGE), before anything is written.
///
/// The commands are ArgumentParser types, parsed without the lineup; a command that needs it (`LineupCommand`)
/// receives it when it runs, and checks engine and rule names first, so an unknown name is still a usage error.
struct ArenaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        // The program's own name: `arena` here, `my-arena` in an author's executable, in usage and errors alike.
        commandName: Program.name,
        abstract: "GCD-style concurrency engines side by side: conformance to the Grand Central Dispatch contract, and cost.",
        subcommands: [
            ListCommand.self, RulesCommand.self, ExplainCommand.self, ConformCommand.self, BenchCommand.self, PlotCommand.self,
            ReportCommand.self, MachinesCommand.self, CompareCommand.self, InstructionsCommand.self, ExploreCommand.self,
            DocsCommand.self, ExecCommand.self, ChildCommand.self,
        ])

    /// Parses the process arguments and runs the chosen command on `lineup`, then exits with its status. A child's
    /// arguments (`arena child --request JSON`) skip the parser (`ChildCommand.request(in:)`): its reflection of every
    /// command was most of a child's start, a run starts one per contender per round (measured in `swift
    /// build -c release`: 17 ms of a 24 ms child, start to `finish`), and the child's errors read the same either way.
    static func start(with lineup: Lineup) -> Never {
        if let name = getenv(GlobalExitProbe.variable).map({ String(cString: $0) }) {
            // The program global-executor.exit starts: nothing is parsed, the engine is installed and the program exits.
            guard let contender = lineup.contender(named: name) ?? Contender.mutant(named: name) else {
                writeError("\(Program.name): \(GlobalExitProbe.variable) names no engine: '\(name)'")
                Glibc.exit(64)
            }
            func probe<E: Engine>(_ engine: E) -> Never { GlobalExitProbe.run(engine) }
            probe(contender.engine)
        }
        do {
            if let request = ChildCommand.request(in: CommandLine.arguments.dropFirst()) {
                // The fast path: a run starts thousands of children, each with exactly these arguments.
                try ChildCommand.run(request: request, on: lineup)
            } else {
                var command = try parseAsRoot()
                if var command = command as? any LineupCommand {
                    try command.run(on: lineup)
                } else {
                    try command.run()
                }
            }
            Glibc.exit(0)
        } catch let code as ExitCode {
            // A command that throws an exit code has already said why.
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = ArenaCommand.message(for: error)
                    .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.joined(separator: " ")
                writeError("\(Program.name): \(message)")
                Glibc.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// A command that works on the lineup's engines or rules.
protocol LineupCommand: ParsableCommand {
    /// Runs the command on `lineup`; throws `ValidationError` for a name the lineup lacks, before writing anything.
    mutating func run(on lineup: Lineup) throws
}

extension LineupCommand {
    /// Never called: `ArenaCommand.start` calls `run(on:)`.
    func run() throws { preconditionFailure("\(Self.self) runs with a lineup") }
}

/// Writes one line to standard error.
func writeError(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
