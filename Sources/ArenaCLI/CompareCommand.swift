import ArgumentParser
import Bench
import Reporting

/// `arena compare A B`: two results folders point by point, each point's change with its 95% interval, and how far
/// the two runs' answers agree (their ratios to the references and their verdicts). Exit 0 when no point got worse
/// beyond the threshold and the noise, 1 when one did (or failed where it had a number), 64 on a usage error, 65 when
/// a folder holds no readable record.
struct CompareCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two results folders point by point; exit 1 when a point regressed beyond the threshold.")

    @Argument(help: "The baseline results folder (A).")
    var baseline: String

    @Argument(help: "The candidate results folder (B), compared against A.")
    var candidate: String

    @Option(help: "The change, in percent of A's median, beyond which a point counts as regressed or improved.")
    var threshold: Double = 10

    @Option(help: "Count a change only when the U test's p-value (where there is one) is below this level, such as 0.05.")
    var significance: Double?

    @Option(help: "The contender both runs' ratios are taken against (default: each run's choice, else each workload's layer's reference).")
    var reference: String?

    func validate() throws {
        guard threshold >= 0, threshold.isFinite else { throw ValidationError("--threshold must be a percentage of at least 0") }
        if let significance, !(significance > 0 && significance <= 1) {
            throw ValidationError("--significance must be a level in (0, 1], such as 0.05")
        }
        for folder in [baseline, candidate] where !Files.isDirectory(folder) {
            throw ValidationError("'\(folder)' is not a results folder")
        }
    }

    func run(on lineup: Lineup) throws {
        let before = try lineup.analysis(of: baseline, reference: reference)
        let after = try lineup.analysis(of: candidate, reference: reference)
        guard !before.workloads.isEmpty else {
            writeError("\(Program.name): '\(baseline)' holds no benchmarks")
            throw ExitCode(RecordError.exitCode)
        }
        let comparison = Comparison(baseline: before, candidate: after, threshold: threshold / 100, significance: significance)
        print(ComparisonReport.table(comparison, baselineName: baseline, candidateName: candidate), terminator: "")
        if !comparison.regressions.isEmpty { throw ExitCode.failure }
    }
}
