import ArgumentParser
import Reporting

/// The exit code of the commands that run or read checks (`conform`, `bench`, `report`): 1 when the run failed by
/// `RunFailures`' rule (an engine under test failed a rule or has a point without a number, a reference failed in a
/// way it documents nowhere, the benchmarks were stopped before their end), 0 otherwise, a reference's documented
/// deviation included; `--strict` makes any failure exit 1. README.md's "Exit codes" says the same to users.
enum ExitRule {
    /// `--strict`'s help, the same on every command.
    static let strictHelp =
        "Exit 1 on any failure, a reference's documented deviation included (without it, that is reported as the reference's own and leaves the exit code at 0)."

    /// Names each reference's failure on standard error, as the reference's own: with its finding, or saying that none
    /// documents it.
    static func name(_ failures: RunFailures) {
        for entry in failures.references {
            writeError(
                "\(Program.name): \(entry.contender), a reference, failed \(entry.subjectText(code: false)): "
                    + (entry.finding.map { "its documented deviation, \($0)" }
                        ?? "no finding documents this as its own (it fails the run: it may be the suite's)"))
        }
    }

    /// Ends the command with exit 1 when `failures` fail the run.
    static func check(_ failures: RunFailures, strict: Bool) throws {
        if failures.failsRun(strict: strict) { throw ExitCode.failure }
    }
}
