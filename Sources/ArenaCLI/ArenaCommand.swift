import ArgumentParser
import Glibc

/// `arena`: the command-line front end. It parses, validates and hands over to the libraries; usage errors end
/// with one line on standard error and exit code 64 (EX_USAGE), before anything is written.
struct ArenaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "arena",
        abstract: "GCD-style concurrency engines side by side: conformance to the Grand Central Dispatch contract, and cost.",
        subcommands: [ListCommand.self, RulesCommand.self, ConformCommand.self, BenchCommand.self, PlotCommand.self,
                      ReportCommand.self, CompareCommand.self, ChildCommand.self,
                      BenchChildCommand.self])

    /// Parses the process arguments and runs the chosen command.
    static func start() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            // A command that throws an exit code has already said why.
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = ArenaCommand.message(for: error)
                    .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.joined(separator: " ")
                writeError("arena: \(message)")
                Glibc.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
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
