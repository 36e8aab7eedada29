import Bench

/// The summary `report.md` opens with, computed from the same results as the sections below it (nothing in it is
/// written by hand): per contender, the rules kept, unsupported, failed and not checked, counted from the
/// conformance matrix; per workload, the leading contender with its ratio to `system` and to the native C floor;
/// the answer of `actor-contention`'s guards to "queue, actor or lock?"; and how many points were noisy.
///
/// The leader of a workload is the contender whose median, over the points it shares with `system`, of its headline
/// ratio to `system` (the `(×…)` of the details tables, every point the table shows) is best in the headline's
/// direction; `system` itself stands at ×1.00, ties go to the contender shown first. The native C floor (`c-dispatch`,
/// `c-mutex`) is the limit, never a leader: the leader's ratio to it is the median of the same ratio over the points
/// the floor measured too.
public enum SummaryReport {
    /// The contender every ratio is taken against, as in the details tables.
    public static let reference = "system"

    /// One contender's standing on one workload: the median of its ratio to `reference` over `points` points.
    public struct Standing: Sendable, Equatable {
        public let engine: String
        public let ratio: Double
        public let points: Int
    }

    /// The `## Summary` section, Markdown, ending with a blank line. `engines` gives the display order.
    public static func markdown(
        workloads: [(workload: any Workload, results: [PointResult])], engines: [String], conformance: String?
    ) -> String {
        var text = "## Summary\n\n"
        text += conformanceLines(conformance)
        text += benchmarkLines(workloads, engines: engines)
        if let guards = guardAnswer(workloads, engines: engines) { text += guards + "\n\n" }
        text += noiseLine(workloads) + "\n\n"
        return text
    }

    // MARK: Conformance

    /// Per contender of a matrix (`arena conform --format markdown`), in its column order: how many rules it kept
    /// (`pass`), could not run (`unsupported`), failed (`fail` or `timeout`) and was not checked on (`-`).
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

    /// The counts read off the matrix's cells: the table whose header starts `| Rule |`, a row per rule; a cell's
    /// first word is its status (`pass (3/3)` is a pass). Empty when the text holds no matrix.
    public static func ruleCounts(_ matrix: String) -> [RuleCounts] {
        func cells(_ line: Substring) -> [String] {
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingSpaces }
        }
        var counts: [RuleCounts] = []
        var inTable = false
        for line in matrix.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inTable {
                guard line.hasPrefix("| Rule |") else { continue }
                counts = cells(line).dropFirst().map { RuleCounts(engine: $0) }
                inTable = true
                continue
            }
            guard line.hasPrefix("|") else { break }
            let row = cells(line)
            guard let rule = row.first, rule.hasPrefix("`") else { continue }
            for (index, cell) in row.dropFirst().enumerated() where index < counts.count {
                switch cell.prefix(while: { $0 != " " && $0 != "(" }) {
                case "pass": counts[index].kept += 1
                case "unsupported": counts[index].unsupported += 1
                case "fail", "timeout": counts[index].failed += 1
                case "-", "": counts[index].notChecked += 1
                default: break
                }
            }
        }
        return counts
    }

    static func conformanceLines(_ matrix: String?) -> String {
        let counts = matrix.map(ruleCounts) ?? []
        guard !counts.isEmpty else { return "**Conformance**: not run for this folder.\n\n" }
        var text =
            "**Conformance**, rules per contender (the matrix under Conformance; failed: `fail` or `timeout`, not "
            + "checked: `-`, a rule of a layer the contender does not bring):\n\n"
        text += "| contender | kept (pass) | unsupported | failed | not checked |\n| --- | ---: | ---: | ---: | ---: |\n"
        for count in counts {
            let failed = count.failed > 0 ? "**\(count.failed)**" : "0"
            text += "| \(count.engine) | \(count.kept) | \(count.unsupported) | \(failed) | \(count.notChecked) |\n"
        }
        return text + "\n"
    }

    // MARK: Benchmarks

    /// Each contender's standing on `workload`, best first (`system` at ×1.00 among them); empty when `system` has
    /// no point with a number. The native floor is left out.
    public static func standings(_ workload: any Workload, _ results: [PointResult], engines: [String]) -> [Standing] {
        standings(workload, medians: headlineMedians(workload, results), engines: engines)
    }

    /// The standings from the headline medians `headlineMedians` made.
    static func standings(_ workload: any Workload, medians: [String: [String: Double]], engines: [String]) -> [Standing] {
        guard let references = medians[reference] else { return [] }
        let shown = [reference] + engines.filter { $0 != reference && !NativeFloor.engines.contains($0) && medians[$0] != nil }
        let standings = shown.compactMap { engine -> Standing? in
            ratio(medians[engine] ?? [:], to: references).map { Standing(engine: engine, ratio: $0.ratio, points: $0.points) }
        }
        let higher = workload.headline.higherIsBetter
        // A stable sort: ties keep the display order.
        return standings.enumerated().sorted { left, right in
            if left.element.ratio != right.element.ratio {
                return higher ? left.element.ratio > right.element.ratio : left.element.ratio < right.element.ratio
            }
            return left.offset < right.offset
        }.map(\.element)
    }

    /// The median of `values[path] / references[path]` over the paths both have (a reference above 0), with the
    /// number of paths; `nil` when they share none.
    static func ratio(_ values: [String: Double], to references: [String: Double]) -> (ratio: Double, points: Int)? {
        let ratios = values.compactMap { path, value in references[path].flatMap { $0 > 0 ? value / $0 : nil } }
        return Summary(ratios).map { ($0.median, ratios.count) }
    }

    /// The headline median per engine and point (`parameterPath`), for the points with a number.
    static func headlineMedians(_ workload: any Workload, _ results: [PointResult]) -> [String: [String: Double]] {
        var medians: [String: [String: Double]] = [:]
        for result in results where result.failure == nil {
            guard let median = PointStatistics(result, headline: workload.headline).headlineSummary?.median else { continue }
            if medians[result.engine]?[result.point.parameterPath] == nil {
                medians[result.engine, default: [:]][result.point.parameterPath] = median
            }
        }
        return medians
    }

    static func benchmarkLines(_ workloads: [(workload: any Workload, results: [PointResult])], engines: [String]) -> String {
        guard !workloads.isEmpty else { return "" }
        let floors = NativeFloor.engines.filter(engines.contains)
        var text =
            "**Benchmarks**, the leader per workload: the contender with the best median, over the points it shares "
            + "with `system`, of its headline's ratio to `system` (the `(×…)` in the tables below; `system` is ×1.00): "
            + "above 1 leads where higher is better (↑), below 1 where lower is (↓). (n) is the number of points a "
            + "median is over"
        text +=
            floors.isEmpty
            ? "; no native C floor in this folder.\n\n"
            : "; " + floors.map { "×\($0)" }.joined(separator: " and ")
                + (floors.count > 1 ? " are" : " is")
                + " the leader's ratio to the native C floor, over the points the floor measured too.\n\n"
        text += "| workload | headline | leader | ×system (n) | runner-up |" + floors.map { " ×\($0) (n) |" }.joined() + "\n"
        text += "| --- | --- | --- | ---: | --- |" + String(repeating: " ---: |", count: floors.count) + "\n"
        for (workload, results) in workloads {
            let headline = workload.headline.title + (workload.headline.higherIsBetter ? " ↑" : " ↓")
            let medians = headlineMedians(workload, results)
            let standings = standings(workload, medians: medians, engines: engines)
            guard let leader = standings.first else {
                text += "| \(workload.name) | \(headline) | no `system` point to compare with |  |  |"
                text += String(repeating: "  |", count: floors.count) + "\n"
                continue
            }
            let runnerUp = standings.count > 1 ? "\(standings[1].engine) \(Figures.ratio(standings[1].ratio))" : "-"
            let floorCells = floors.map { floor -> String in
                guard let ratio = ratio(medians[leader.engine] ?? [:], to: medians[floor] ?? [:]) else { return "-" }
                return "\(Figures.ratio(ratio.ratio)) (\(ratio.points))"
            }
            text +=
                "| \(workload.name) | \(headline) | **\(leader.engine)** | \(Figures.ratio(leader.ratio)) (\(leader.points)) | "
                + "\(runnerUp) |" + floorCells.map { " \($0) |" }.joined() + "\n"
        }
        return text + "\n"
    }

    // MARK: Queue, actor or lock?

    /// Two sentences from `actor-contention`'s guard table: which guard is fastest in how many of its rows (engine
    /// and task count), and each guard's increments/s at the largest task count on `system` (or the first engine
    /// measured there). `nil` without that workload or a number in it.
    static func guardAnswer(_ workloads: [(workload: any Workload, results: [PointResult])], engines: [String]) -> String? {
        guard let entry = workloads.first(where: { $0.workload is ActorContentionWorkload }) else { return nil }
        let rows = GuardReport.rows(entry.workload, entry.results, engines: engines).filter { $0.fastest != nil }
        guard !rows.isEmpty else { return nil }
        var wins: [(guarding: String, count: Int)] = []
        for row in rows {
            guard let fastest = row.fastest?.guarding else { continue }
            if let index = wins.firstIndex(where: { $0.guarding == fastest }) { wins[index].count += 1 } else { wins.append((fastest, 1)) }
        }
        // Most rows first; a tie keeps the order the guards were first met in.
        wins = wins.enumerated().sorted { ($0.element.count, $1.offset) > ($1.element.count, $0.offset) }.map(\.element)
        var text =
            "**Queue, actor or lock?** (`actor-contention`) The fastest guard is "
            + wins.map { "\($0.guarding) in \($0.count)" }.joined(separator: ", ")
            + " of the \(rows.count) rows of engine and task count."
        let largest = rows.map(\.tasks).max { (Int($0) ?? 0) < (Int($1) ?? 0) }!
        let atLargest = rows.filter { $0.tasks == largest }
        if let row = atLargest.first(where: { $0.engine == reference }) ?? atLargest.first, let fastest = row.fastest {
            let ordered = row.medians.sorted { $0.value > $1.value }
            let figures = ordered.map { guarding, median in
                "\(guarding) \(Figures.format(median))"
                    + (guarding == fastest.guarding || median <= 0 ? "" : " (÷\(Figures.format(fastest.median / median)))")
            }
            text += " At \(largest) tasks on \(row.engine): " + figures.joined(separator: ", ") + " increments/s."
        }
        return text
    }

    // MARK: Noise

    static func noiseLine(_ workloads: [(workload: any Workload, results: [PointResult])]) -> String {
        var total = 0
        var noisy = 0
        var without = 0
        for (workload, results) in workloads {
            for result in results {
                total += 1
                let statistics = PointStatistics(result, headline: workload.headline)
                if statistics.headlineSummary == nil { without += 1 } else if statistics.isNoisy { noisy += 1 }
            }
        }
        return
            "**Noise**: \(noisy) of \(total) points have a CV above \(Int(Summary.cvThreshold * 100))% (marked ! in the "
            + "tables, listed under Warnings: read them loosely); \(without) "
            + (without == 1 ? "has" : "have") + " no number (an error or a stop)."
    }
}

extension Substring {
    /// Without the leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
