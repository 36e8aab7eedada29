import Bench
import Glibc

/// Several machines' runs side by side (`arena machines DIR...`): what changes with the machine. Each run is read
/// from its record as `arena report` reads it; nothing is measured again.
///
/// It opens with the machines (cores, clock, date, commit), a warning where the runs come from different commits or
/// were measured with different settings, and every verdict that differs between them (a workload's leader, or a tie,
/// and each workload's own answer, such as queue, actor or lock). Then, per workload, each contender's ratio to the
/// reference on each machine (`WorkloadAnalysis.standings`, with its 95% interval) and its headline against the
/// machine's core count: the geometric mean of its medians over the points every machine measured for it, so that
/// a quick run and a full one are compared on the same points. Costs one pass over each run's points per workload.
public struct MachinesReport: Sendable {
    /// One machine's run.
    public struct Machine: Sendable {
        /// The results folder it was read from.
        public let folder: String
        public let run: RunAnalysis

        public init(folder: String, run: RunAnalysis) {
            self.folder = folder
            self.run = run
        }

        /// The machine's core count (online CPUs), 0 when the record does not say.
        public var cores: Int { run.machine?.numCPUs ?? 0 }

        /// How its benchmarks were measured: "quick" or "full", or "no benchmarks".
        public var settings: String {
            guard let benchmarks = run.record.benchmarks else { return "no benchmarks" }
            return benchmarks.settings.quick ? "quick" : "full"
        }

        /// The column header: the folder's last component and the core count.
        public var label: String {
            let name = folder.split(separator: "/").last.map(String.init) ?? folder
            return "\(name) (\(cores) cores)"
        }
    }

    /// One workload on every machine that measured it.
    public struct Workload: Sendable {
        public let name: String
        public let headline: Headline
        /// Per machine (in `machines` order), its analysis of the workload, if it measured it.
        public let analyses: [WorkloadAnalysis?]

        /// The references the machines' runs used (one, unless runs chose differently).
        public var references: [String] {
            var seen: [String] = []
            for reference in analyses.compactMap({ $0?.reference }) where !seen.contains(reference) { seen.append(reference) }
            return seen
        }

        /// Whether every machine that measured it with the same reference gave the same verdict (the same leader, or
        /// a tie on each); false when the references differ.
        public var verdictsAgree: Bool {
            let verdicts = analyses.compactMap { $0?.verdict }
            guard references.count <= 1, let first = verdicts.first else { return references.count <= 1 }
            return verdicts.allSatisfy(first.agrees(with:))
        }

        /// One contender's headline on each machine.
        public struct EngineHeadline: Sendable {
            public let engine: String
            /// Per machine: the geometric mean of its median headline over the shared points; `nil` where the
            /// machine did not measure the contender.
            public let values: [Double?]
            /// The points every machine that measured the contender has a number for.
            public let points: Int
        }

        /// Each contender's headline per machine, over the points every machine that measured it has a number for;
        /// a contender with no such point is left out. Computed once, with the report.
        public let headlines: [EngineHeadline]

        init(name: String, headline: Headline, analyses: [WorkloadAnalysis?]) {
            self.name = name
            self.headline = headline
            self.analyses = analyses
            headlines = Self.headlines(analyses)
        }

        /// Reads each machine's medians once (by contender, then point), then averages their logarithms over the
        /// points the machines share.
        private static func headlines(_ analyses: [WorkloadAnalysis?]) -> [EngineHeadline] {
            var engines: [String] = []
            let medians = analyses.map { analysis -> [String: [String: Double]] in
                guard let analysis else { return [:] }
                var byEngine: [String: [String: Double]] = [:]
                for engine in analysis.engines {
                    if !engines.contains(engine) { engines.append(engine) }
                    byEngine[engine] = [:]
                    for path in analysis.paths {
                        guard let result = analysis.result(engine, at: path),
                            let median = PointStatistics(result, headline: analysis.headline).headlineSummary?.median, median > 0
                        else { continue }
                        byEngine[engine]![path] = median
                    }
                }
                return byEngine
            }
            return engines.compactMap { engine in
                let measuring = medians.compactMap { $0[engine] }
                let shared = measuring[0].keys.filter { path in measuring.allSatisfy { $0[path] != nil } }.sorted()
                guard !shared.isEmpty else { return nil }
                let values = medians.map { machine in
                    machine[engine].map { own in exp(shared.map { log(own[$0]!) }.reduce(0, +) / Double(shared.count)) }
                }
                return EngineHeadline(engine: engine, values: values, points: shared.count)
            }
        }
    }

    /// The machines, fewest cores first.
    public let machines: [Machine]
    /// Every workload two machines measured (the one machine's, when only one is given), in the first run's order,
    /// then the others': a workload only one run has (the server, joined to one reference) has nothing to compare.
    public let workloads: [Workload]

    public init(_ machines: [Machine]) {
        let sorted = machines.enumerated().sorted { ($0.element.cores, $0.offset) < ($1.element.cores, $1.offset) }.map(\.element)
        self.machines = sorted
        var names: [String] = []
        for machine in sorted { for workload in machine.run.workloads where !names.contains(workload.name) { names.append(workload.name) } }
        workloads = names.compactMap { name in
            let analyses = sorted.map { machine in machine.run.workloads.first { $0.name == name } }
            guard let headline = analyses.compactMap({ $0?.headline }).first,
                analyses.compactMap({ $0 }).count >= min(2, sorted.count)
            else { return nil }
            return Workload(name: name, headline: headline, analyses: analyses)
        }
    }

    // MARK: Warnings

    /// Lines saying why a difference may not be the machine's: runs of different commits, of different settings
    /// (quick and full), with different references for a workload, or stopped before their end.
    public var warnings: [String] {
        var lines: [String] = []
        let commits = machines.map { $0.run.record.commit ?? "unknown" }
        if Set(commits).count > 1 {
            lines.append(
                "The runs come from different commits ("
                    + zip(machines, commits).map { "\($0.label): \($1)" }.joined(separator: ", ")
                    + "): a difference may be the code's, not the machine's.")
        }
        if Set(machines.map(\.settings)).count > 1 {
            lines.append(
                "The runs were measured with different settings ("
                    + machines.map { "\($0.label): \($0.settings)" }.joined(separator: ", ")
                    + "): headlines are compared over the points every machine measured.")
        }
        for workload in workloads where workload.references.count > 1 {
            lines.append(
                "\(workload.name): the runs take their ratios to different references (\(workload.references.joined(separator: ", "))): its verdicts are not compared."
            )
        }
        for machine in machines where machine.run.record.benchmarks?.stopped == true {
            lines.append("\(machine.label): its run was stopped before its end; it holds the points finished by then.")
        }
        return lines
    }

    // MARK: Verdicts

    /// How a verdict reads in a cell: "**lockfree** leads ×3.25 (3.11–3.40)", "tie: system, lockfree".
    static func verdictText(_ analysis: WorkloadAnalysis?) -> String {
        guard let analysis else { return "not measured" }
        let judgement = analysis.judgement
        let edge = judgement.nearEdge == nil ? "" : " (*near the edge*)"
        switch judgement.verdict {
        case .leader(let leader, let runnerUp, let margin):
            return "**\(leader)** leads \(runnerUp) \(ConsoleReport.summaryText(margin))" + edge
        case .tie(let first, let second, _): return "tie: \(first), \(second)" + edge
        case .alone(let engine): return "\(engine) alone"
        case .noReference: return "no reference"
        }
    }

    /// Each machine's answer of workloads that give one in the summary (queue, actor or lock?), by workload.
    func answers() -> [(workload: String, answers: [String?])] {
        workloads.compactMap { workload in
            let answers = zip(machines, workload.analyses).map { machine, analysis -> String? in
                guard let analysis, let code = analysis.workload else { return nil }
                return code.summaryAnswer(
                    WorkloadResults(results: analysis.results, engines: analysis.engines, reference: analysis.reference))
            }
            return answers.contains { $0 != nil } ? (workload.name, answers) : nil
        }
    }

    // MARK: Markdown

    /// `machines.md`: the machines, warnings, the verdicts that differ, each machine's answers, and per workload the
    /// ratios and headlines side by side, with `plots` (file names under plots/) where one was drawn.
    public func markdown(plots: [String] = []) -> String {
        var text = "# DispatchArena across machines\n\n"
        text += "| machine | folder | cores | MHz | date | commit | benchmarks |\n| --- | --- | ---: | ---: | --- | --- | --- |\n"
        for machine in machines {
            let context = machine.run.machine
            let threads = machine.run.record.benchmarks.map { ", threads " + $0.settings.threads.map(String.init).joined(separator: ",") }
            let settings = machine.settings + (threads ?? "")
            text +=
                "| \(context?.hostName ?? "?") | \(machine.folder) | \(machine.cores) | \(context?.mhzPerCPU ?? 0) | "
                + "\(context?.date ?? "?") | \(machine.run.record.commit ?? "unknown") | \(settings) |\n"
        }
        text += "\n"
        for warning in warnings { text += "**Warning**: \(warning)\n\n" }

        text += "## Verdicts that differ\n\n" + differencesMarkdown()

        text += "## Workloads\n\n"
        text +=
            "Per workload: the verdict on each machine; each contender's ratio to the reference over its points (the "
            + "summary's standing, with its 95% interval over paired rounds); and its headline against the core count: the "
            + "geometric mean of its medians over the points (n) every machine that measured it has a number for.\n\n"
        for workload in workloads {
            let direction = workload.headline.higherIsBetter ? "higher is better" : "lower is better"
            text += "### \(workload.name)\n\n"
            text += "\(workload.headline.title), \(direction); reference: \(workload.references.joined(separator: ", "))\n\n"
            let header =
                "| | " + machines.map(\.label).joined(separator: " | ") + " |\n| --- |"
                + String(repeating: " ---: |", count: machines.count) + "\n"
            text += header
            text += "| verdict | " + workload.analyses.map(Self.verdictText).joined(separator: " | ") + " |\n"
            for entry in workload.headlines {
                let ratios = workload.analyses.map { analysis -> String in
                    guard let analysis, let standing = analysis.standings.first(where: { $0.engine == entry.engine }) else {
                        return analysis?.isFloor(entry.engine) == true ? "C floor" : "-"
                    }
                    return entry.engine == analysis.reference ? "reference" : ConsoleReport.summaryText(standing.ratio)
                }
                text += "| \(entry.engine): ×reference | " + ratios.joined(separator: " | ") + " |\n"
                text +=
                    "| \(entry.engine): \(workload.headline.title) (\(entry.points)) | "
                    + entry.values.map { $0.map { Figures.format($0) } ?? "-" }.joined(separator: " | ") + " |\n"
            }
            text += "\n"
            let plot = "machines-\(workload.name).png"
            if plots.contains(plot) {
                text += "![\(workload.name) across machines](plots/\(plot))\n\n"
            }
        }
        return text
    }

    /// The verdicts that differ from machine to machine (a table of them, or "None"), then each machine's answer of
    /// the workloads that give one (queue, actor or lock?): machines.md's "Verdicts that differ", and what
    /// docs/BENCHMARKS.md shows of the committed machines.
    public func differencesMarkdown() -> String {
        var text = ""
        let differing = workloads.filter { !$0.verdictsAgree }
        if differing.isEmpty {
            text += "None: every workload names the same leader, or a tie, on every machine that measured it.\n\n"
        } else {
            text +=
                "\(differing.count) of \(workloads.count) workloads name a different leader (or a tie against a leader) "
                + "on different machines:\n\n"
            text += "| workload | " + machines.map(\.label).joined(separator: " | ") + " |\n"
            text += "| --- |" + String(repeating: " --- |", count: machines.count) + "\n"
            for workload in differing {
                text += "| \(workload.name) | " + workload.analyses.map(Self.verdictText).joined(separator: " | ") + " |\n"
            }
            text += "\n"
        }
        let answers = answers()
        if !answers.isEmpty {
            for (workload, perMachine) in answers {
                text += "**\(workload)**, per machine:\n\n"
                for (machine, answer) in zip(machines, perMachine) {
                    text += "- \(machine.label): " + (answer ?? "not measured") + "\n"
                }
                text += "\n"
            }
        }

        return text
    }

    // MARK: Plot data

    /// Whether every machine has a core count of its own, so a plot against the core count tells them apart; runs of
    /// one core count (two 2-core runs) are drawn a place each instead, in `machines` order.
    public var coresTellApart: Bool {
        let cores = machines.map(\.cores)
        return !cores.contains(0) && Set(cores).count == cores.count
    }

    /// The CSV a workload's plot reads: `engine,cores,machine,value` (the machine's place in `machines`, from 1; the
    /// headline's geometric mean), one row per contender and machine with a value, the C floor's engines among them.
    public func csv(_ workload: Workload) -> String {
        var text = "engine,cores,machine,value\n"
        for headline in workload.headlines {
            for (place, (machine, value)) in zip(machines, headline.values).enumerated() {
                guard let value else { continue }
                text += "\(headline.engine),\(machine.cores),\(place + 1),\(value)\n"
            }
        }
        return text
    }
}
