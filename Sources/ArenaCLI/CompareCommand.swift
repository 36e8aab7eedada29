import ArgumentParser
import Bench
import Reporting

/// `arena compare A B`: two results folders point by point. Exit 0 when no point got worse beyond the threshold,
/// 1 when one did (or failed where it had a number), 64 on a usage error.
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
        let before: ResultsFolder, after: ResultsFolder
        do {
            before = try ResultsFolder.load(baseline, workloads: lineup.workloads)
            after = try ResultsFolder.load(candidate, workloads: lineup.workloads)
        } catch {
            writeError("arena: \(error)")
            throw ExitCode(64)
        }
        guard !before.workloads.isEmpty else {
            writeError("arena: '\(baseline)' holds no workload results (<workload>.json)")
            throw ExitCode(64)
        }
        let comparison = Comparison(baseline: before, candidate: after, threshold: threshold / 100, significance: significance)
        print(ComparisonReport.table(comparison, baselineName: baseline, candidateName: candidate), terminator: "")
        if !comparison.regressions.isEmpty { throw ExitCode.failure }
    }
}
