import Bench
import Conformance

/// The summary `report.md` opens with, computed from the run record like the sections below it (nothing in it is
/// written by hand): per contender, the rules kept, unsupported, failed and not checked; per workload, the verdict (a
/// leader, or a tie) with the leader's ratio to the workload's reference and to the native C floor, each with its
/// 95% interval; each workload's own answer (`Workload.summaryAnswer`: queue, actor or lock?); how the run was
/// ordered; and how many points were noisy or unstable.
///
/// A workload's standings are each contender's ratio to the reference over the points it shares with it, every
/// point weighing the same (`WorkloadAnalysis.overall`: the geometric mean of the per-round ratios, an unstable
/// point counting with its spread). The best is then compared directly with every other contender, paired round by
/// round: it leads only where each of those intervals lies wholly on the better side of 1, and the summary says "tie"
/// otherwise, naming the first it cannot be told apart from. The native C floor is the limit, never a leader.
public enum SummaryReport {
    /// The `## Summary` section, Markdown, ending with a blank line.
    public static func markdown(_ run: RunAnalysis) -> String {
        var text = "## Summary\n\n"
        if let stopped = stoppedLine(run) { text += stopped + "\n\n" }
        text += conformanceLines(run.record.conformance?.report)
        text += benchmarkLines(run)
        text += failureLines(run)
        text += coreCountLines(run)
        for workload in run.workloads {
            guard let code = workload.workload else { continue }
            let results = WorkloadResults(results: workload.results, engines: workload.engines, reference: workload.reference)
            if let answer = code.summaryAnswer(results) {
                text += answer + "\n\n"
                for other in KnownCoreCounts.others(KnownCoreCounts.answers[workload.name], than: run.machine?.numCPUs) {
                    text += "On \(other.cores) cores (\(KnownCoreCounts.source)): " + other.text.droppingLeadingBold + "\n\n"
                }
            }
        }
        if let server = run.record.server { text += server.summaryParagraph() }
        if let order = orderLine(run) { text += order + "\n\n" }
        text += noiseLine(run) + "\n\n"
        return text
    }

    // MARK: Conformance

    /// Per contender of a matrix, in its column order: how many rules it kept (`pass`), could not run
    /// (`unsupported`), failed (`fail` or `timeout`) and was not checked on (a rule of a layer it does not bring).
    public struct RuleCounts: Sendable, Equatable {
        public var engine: String
        public var kept = 0
        public var unsupported = 0
        public var failed = 0
        public var notChecked = 0

        public init(engine: String, kept: Int = 0, unsupported: Int = 0, failed: Int = 0, notChecked: Int = 0) {
            self.engine = engine
            self.kept = kept
            self.unsupported = unsupported
            self.failed = failed
            self.notChecked = notChecked
        }
    }

    /// The counts of `report`'s results.
    public static func ruleCounts(_ report: ConformanceReport) -> [RuleCounts] {
        report.engines.map { engine in
            let own = report.results.filter { $0.engine == engine.name }
            return RuleCounts(
                engine: engine.name, kept: own.filter { $0.status == .pass }.count,
                unsupported: own.filter { $0.status == .unsupported }.count, failed: own.filter { $0.status.isFailure }.count,
                notChecked: report.rules.count - own.count)
        }
    }

    static func conformanceLines(_ report: ConformanceReport?) -> String {
        guard let report else { return "**Conformance**: not run for this folder.\n\n" }
        var text =
            "**Conformance**, rules per contender (the matrix under Conformance; failed: `fail` or `timeout`, not "
            + "checked: `-`, a rule of a layer the contender does not bring):\n\n"
        text += "| contender | kept (pass) | unsupported | failed | not checked |\n| --- | ---: | ---: | ---: | ---: |\n"
        for count in ruleCounts(report) {
            let failed = count.failed > 0 ? "**\(count.failed)**" : "0"
            text += "| \(count.engine) | \(count.kept) | \(count.unsupported) | \(failed) | \(count.notChecked) |\n"
        }
        return text + "\n"
    }

    // MARK: Benchmarks

    static func benchmarkLines(_ run: RunAnalysis) -> String {
        guard !run.workloads.isEmpty else { return "" }
        let floors = run.floorEngines
        var text =
            "**Benchmarks**, the verdict per workload: each contender's ratio to the workload's reference over the points "
            + "it shares with it (the geometric mean of the per-round ratios, every point weighing the same; an unstable "
            + "point counts with its spread), with its 95% interval; the best leads only where its ratio to every other "
            + "contender (paired round by round) has an interval wholly on the better side of 1, and it is a tie with the "
            + "first it cannot be told apart from otherwise (best ÷ that one, or ÷ the runner-up for a leader). A verdict "
            + "*near the edge* has its deciding interval's near end within "
            + "\(Figures.fixed(WorkloadAnalysis.nearEdgeWithin, 1)) half-widths of 1: a second run reaches it less than about "
            + "87% of the time (docs/BENCHMARKS.md). "
            + "Above 1 leads where higher is better (↑), below 1 where lower is (↓); (n) is the number of points"
        text +=
            floors.isEmpty
            ? "; no native C floor in this folder.\n\n"
            : "; " + floors.map { "×\($0)" }.joined(separator: " and ")
                + (floors.count > 1 ? " are" : " is")
                + " the best contender's ratio to the native C floor (unpaired: another program measured it), over the "
                + "points the floor measured too.\n\n"
        return text + verdictTable(run) + "\n"
    }

    /// The verdict table alone: a row per workload, with its reference, verdict, best and runner-up and their ratios,
    /// and the best's ratio to each C floor (what docs/BENCHMARKS.md shows of the reference run).
    public static func verdictTable(_ run: RunAnalysis) -> String {
        let floors = run.floorEngines
        var text = "| workload | headline | reference | verdict | best: ×reference (n) | runner-up | best ÷ runner-up or tied |"
        text += floors.map { " ×\($0) (n) |" }.joined() + "\n"
        text += "| --- | --- | --- | --- | --- | --- | ---: |" + String(repeating: " ---: |", count: floors.count) + "\n"
        for workload in run.workloads {
            let headline = workload.headline.title + (workload.headline.higherIsBetter ? " ↑" : " ↓")
            let standings = workload.standings
            guard let best = standings.first, let reference = workload.reference else {
                text += "| \(workload.name) | \(headline) | none measured it |  |  |  |  |"
                text += String(repeating: "  |", count: floors.count) + "\n"
                continue
            }
            let verdict: String
            var margin = "-"
            let judgement = workload.judgement
            switch judgement.verdict {
            case .leader(let leader, _, let ratio):
                verdict = "**\(leader)** leads"
                margin = ConsoleReport.summaryText(ratio)
            case .tie(let first, let second, let ratio):
                verdict = "tie: \(first), \(second)"
                margin = ratio.map(ConsoleReport.summaryText) ?? "no interval"
            case .alone(let engine): verdict = "\(engine) alone"
            case .noReference: verdict = "no reference"
            }
            let edge = judgement.nearEdge == nil ? "" : " (*near the edge*)"
            let bestCell =
                "\(best.engine) " + (best.engine == reference ? "(itself)" : ConsoleReport.summaryText(best.ratio)) + " (\(best.points))"
            let runnerUp =
                standings.count > 1
                ? "\(standings[1].engine) "
                    + (standings[1].engine == reference ? "(itself)" : ConsoleReport.summaryText(standings[1].ratio))
                : "-"
            let referenceCell =
                workload.unnumberedReference.map { "\(reference) (for \($0), which has no number)" } ?? reference
            let floorCells = floors.map { floor -> String in
                guard let overall = workload.overall(best.engine, to: floor) else { return "-" }
                return "\(ConsoleReport.summaryText(overall.estimate)) (\(overall.points))"
            }
            text +=
                "| \(workload.name) | \(headline) | \(referenceCell) | \(verdict)\(edge) | \(bestCell) | \(runnerUp) | \(margin) |"
                + floorCells.map { " \($0) |" }.joined() + "\n"
        }
        return text
    }

    // MARK: Other core counts

    /// The verdicts of this run's workloads that the committed runs on other core counts answer otherwise
    /// (`KnownCoreCounts`, from results/machines); "" when none is known to.
    static func coreCountLines(_ run: RunAnalysis) -> String {
        let changing = run.workloads.compactMap { workload -> String? in
            let others = KnownCoreCounts.others(KnownCoreCounts.verdicts[workload.name], than: run.machine?.numCPUs)
            guard !others.isEmpty else { return nil }
            return "\(workload.name) (" + others.map { "\($0.cores) cores: \($0.text)" }.joined(separator: "; ") + ")"
        }
        guard !changing.isEmpty else { return "" }
        let cores = KnownCoreCounts.cores.map(String.init)
        return
            "**Known to change with cores**: on other core counts the committed runs (\(KnownCoreCounts.source), "
            + "\(cores.dropLast().joined(separator: ", ")) and \(cores.last ?? "") cores, of their own commits and sizes) answer "
            + "these workloads otherwise, so read their verdicts as this machine's: " + changing.joined(separator: "; ") + ".\n\n"
    }

    // MARK: Failures

    /// Every failed rule and point without a number, whose it is and whether it fails the run (`RunFailures`), and
    /// the workloads whose reference has no number at all (their verdict is among the others); "none" when nothing
    /// failed.
    static func failureLines(_ run: RunAnalysis) -> String {
        let failures = run.failures
        guard !failures.entries.isEmpty else {
            return run.record.conformance == nil && run.workloads.isEmpty ? "" : "**Failures**: none.\n\n"
        }
        let failing = failures.entries.filter { !$0.isDocumentedDeviation }
        var text =
            "**Failures**: \(failures.entries.count); \(failing.count) "
            + (failing.count == 1 ? "fails" : "fail") + " the run (exit 1), the rest are references' documented deviations: "
            + "results about the reference, named with their findings, which leave the exit code at 0 (`--strict` counts "
            + "them too).\n\n"
        for entry in failures.entries {
            let whose: String
            if entry.isReference {
                whose =
                    entry.finding.map { "the reference's own, documented: \($0)" }
                    ?? "a reference's, documented nowhere as its own: it may be the suite's, and fails the run"
            } else {
                whose = "an engine under test's: fails the run"
            }
            text += "- `\(entry.contender)`, \(entry.subjectText()): \(whose). \(entry.detail.firstLine)\n"
        }
        for workload in run.workloads {
            guard let missing = workload.unnumberedReference, let standIn = workload.reference else { continue }
            text +=
                "- \(workload.name): its reference `\(missing)` has no number at any point, so its verdict is among the "
                + "others, their ratios to `\(standIn)`.\n"
        }
        return text + "\n"
    }

    // MARK: How it was measured

    /// Says that the benchmarks were stopped before their end and what the record holds then; `nil` for a run that
    /// ended (or a record from before runs said so).
    static func stoppedLine(_ run: RunAnalysis) -> String? {
        guard let benchmarks = run.record.benchmarks, benchmarks.stopped else { return nil }
        let least = benchmarks.settings.leastRounds
        let short = benchmarks.points.filter { ($0.results.map(\.repetitions.count).max() ?? 0) < least }.count
        return
            "**Stopped before its end**: the benchmarks ran for \(Figures.fixed(benchmarks.seconds, 0)) s and were stopped "
            + "(an interrupt or a time limit). Everything below comes from the \(benchmarks.points.count) "
            + (benchmarks.points.count == 1 ? "point" : "points") + " measured by then, \(short) with fewer than the "
            + "\(least) rounds a point gets at least; later points have no row."
    }

    /// How the benchmarks were ordered, and what the waiting processes cost; `nil` without benchmarks.
    static func orderLine(_ run: RunAnalysis) -> String? {
        guard let benchmarks = run.record.benchmarks else { return nil }
        let counts = benchmarks.points.map { $0.results.map(\.repetitions.count).max() ?? 0 }.filter { $0 > 0 }
        let (fewest, most) = (counts.min() ?? benchmarks.settings.repetitions, counts.max() ?? benchmarks.settings.repetitions)
        let rounds = fewest == most ? "\(fewest)" : "\(fewest) to \(most)"
        var text = "**Order**: "
        switch benchmarks.order {
        case .interleaved:
            let settings = benchmarks.settings
            text +=
                "\(rounds) paired rounds per point"
                + (settings.sharesRounds && benchmarks.lifetime == .round
                    ? " (\(settings.leastRounds) at every point first, then the time of \(settings.repetitions) a point shared out "
                        + "where a round most raises the ratios a second run would reproduce within "
                        + "\(Figures.fixed((RoundAllocation.agreement - 1) * 100, 0))%, per second; a workload of fewer than "
                        + "\(BenchSettings.evidencePoints) points gets more of each)"
                    : " (a workload of fewer than \(BenchSettings.evidencePoints) points gets more)")
                + ", round r running repetition r of every contender once, one after another, in an order shuffled per round"
                + (benchmarks.lifetime == .round
                    ? ", each in a fresh process warmed up before the round, the rounds spread over the run"
                    : ", each contender in one process for the point")
        case .sequential:
            text += "\(rounds) repetitions per contender back to back, the contenders one after another (`--order sequential`)"
        }
        if let seed = benchmarks.seed { text += "; seed \(seed) (`arena bench --seed \(seed)` replays the orders)" }
        let kept = benchmarks.points.flatMap { point in (point.keptProcesses ?? []).map { "`\(point.point.benchmarkName(engine: $0))`" } }
        if !kept.isEmpty {
            text +=
                ". Kept their first process for every round, their start-up costing more than "
                + "\(Figures.fixed(PairedPoint.slowStartTrials, 0)) trials and a second: " + kept.joined(separator: ", ")
        }
        let waits = benchmarks.points.flatMap(\.rounds).filter { $0.waitingProcesses > 0 }
        let cpu = waits.compactMap(\.waitingCPUSeconds)
        if !cpu.isEmpty {
            let trials = waits.map(\.trialSeconds).reduce(0, +)
            let used = cpu.reduce(0, +)
            text +=
                ". While a contender's trial ran, the others' processes waited: they used \(Figures.fixed(used * 1000, 1)) ms "
                + "of CPU over \(Figures.fixed(trials, 1)) s of trials (\(Figures.percent(trials > 0 ? used / trials : 0)) of "
                + "one core; the most in one round: \(Figures.fixed((cpu.max() ?? 0) * 1000, 1)) ms)"
        }
        return text + "."
    }

    // MARK: Noise

    static func noiseLine(_ run: RunAnalysis) -> String {
        var total = 0
        var noisy = 0
        var without = 0
        var ratios = 0
        var unstable = 0
        for workload in run.workloads {
            for result in workload.results {
                total += 1
                let statistics = PointStatistics(result, headline: workload.headline)
                if statistics.headlineSummary == nil {
                    without += 1
                } else if run.noiseMark.marks(statistics.headlineSummary) {
                    noisy += 1
                }
                guard let reference = workload.reference, result.engine != reference,
                    let ratio = workload.ratioToReference(result.engine, at: result.point.parameterPath)
                else { continue }
                ratios += 1
                if ratio.isUnstable { unstable += 1 }
            }
        }
        return
            "**Noise**: \(noisy) of \(total) points have \(run.noiseMark.rule) (marked ! in the "
            + "tables, listed under Warnings: read them loosely); \(unstable) of \(ratios) ratios to the reference are "
            + "unstable (an interval wider than ×\(Figures.fixed(RatioEstimate.unstableWidth, 0)): the interval is given, "
            + "not the ratio); \(without) "
            + (without == 1 ? "has" : "have") + " no number (an error or a stop)."
    }
}

extension String {
    /// Without a leading bold label and the workload named after it ("**Queue, actor or lock?** (`actor-contention`) "),
    /// as a second answer under the first reads.
    fileprivate var droppingLeadingBold: String {
        guard hasPrefix("**"), let end = dropFirst(2).firstRange(of: "** ") else { return self }
        var rest = self[end.upperBound...]
        if rest.hasPrefix("(`"), let close = rest.firstRange(of: "`) ") { rest = rest[close.upperBound...] }
        return String(rest)
    }

    /// The text up to its first line break, at most 300 characters (a rule's detail or a point's message can run long;
    /// the matrix and the Warnings hold the whole).
    fileprivate var firstLine: String {
        let line = split(whereSeparator: \.isNewline).first.map(String.init) ?? self
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}
