import Bench

/// Results as CSV, one row per point, for spreadsheets, pandas and gnuplot (`set datafile separator ","`, then
/// columns by header name: `plot "contention.csv" using "threads":"median"`).
///
/// Every figure is a median over the repetitions except the headline block, which has the full summary. Cells are
/// quoted per RFC 4180 when they hold a comma, a quote or a line break; the flags cell is always quoted. Lines end
/// in "\n" (not RFC 4180's "\r\n"), which every reader above accepts and which keeps `diff` and `grep` simple.
public enum CSVReport {
    /// The columns before the parameters.
    static let leadingColumns = ["engine"]
    /// The columns between the parameters and the counters.
    static let figureColumns = [
        "threads", "metric", "median", "mean", "stddev", "cv", "min", "max", "ci95_low", "ci95_high",
        "real_ns_per_op", "cpu_ns_per_op", "items_per_second", "p50_ns", "p90_ns", "p99_ns", "max_ns",
        "reference", "ratio", "ratio_low", "ratio_high",
    ]
    /// The columns after the counters.
    static let trailingColumns = [
        "flags", "peak_threads", "user_s", "sys_s", "voluntary_switches", "involuntary_switches", "peak_rss_kib",
    ]

    /// The CSV of one workload's points, with each point's ratio to the workload's reference.
    public static func csv(_ workload: WorkloadAnalysis) -> String {
        csv(workload.results, headline: workload.headline) { result in
            guard let reference = workload.reference else { return (nil, nil) }
            let path = result.point.parameterPath
            return (reference, workload.ratioToReference(result.engine, at: path))
        }
    }

    /// The CSV of `results` (one workload's points) under `headline`; `ratio` gives each point's reference and its
    /// ratio to it (none by default).
    ///
    /// Columns: `engine`; one per parameter name (the union over the points, in first-seen order; empty where a point
    /// lacks it); `threads`; `metric` (the headline's title) and the headline's median, mean, stddev, cv (a
    /// fraction), min, max and 95% confidence interval of the mean; the medians of real and CPU ns/op and items/s;
    /// the point's latency percentiles over all repetitions (empty when not recorded); the reference, the ratio to it
    /// and the ratio's 95% interval (empty for the reference itself or a run without one; the ratio alone empty where
    /// it is unstable, `RatioEstimate.isUnstable`); the
    /// median of every counter
    /// (the union, sorted by name); the flags joined with "; "; then the process's resource figures.
    ///
    /// A parameter or counter whose name is already a column is written as `param_<name>` or `counter_<name>`, so
    /// every header is unique (contention's `threads` parameter equals the `threads` column anyway). A failed point
    /// has its identity, its flag and empty figures.
    public static func csv(
        _ results: [PointResult], headline: Headline,
        ratio: (PointResult) -> (reference: String?, estimate: RatioEstimate?) = { _ in (nil, nil) }
    ) -> String {
        let statistics = results.map { PointStatistics($0, headline: headline) }
        var parameterNames: [String] = []
        for result in results {
            for parameter in result.point.parameters where !parameterNames.contains(parameter.name) {
                parameterNames.append(parameter.name)
            }
        }
        let counterNames = Set(statistics.flatMap(\.counterNames)).sorted()

        var taken = Set(leadingColumns + figureColumns + trailingColumns)
        func unique(_ name: String, prefix: String) -> String {
            var column = taken.contains(name) ? prefix + name : name
            while taken.contains(column) { column = prefix + column }
            taken.insert(column)
            return column
        }
        let parameterColumns = parameterNames.map { unique($0, prefix: "param_") }
        let counterColumns = counterNames.map { unique($0, prefix: "counter_") }
        let header = leadingColumns + parameterColumns + figureColumns + counterColumns + trailingColumns
        var lines = [header.map(cell).joined(separator: ",")]

        for (result, statistics) in zip(results, statistics) {
            var cells = [cell(result.engine)]
            cells += parameterNames.map { cell(result.point[$0] ?? "") }
            cells += [String(result.point.threads), cell(headline.title)]
            let summary = statistics.headlineSummary
            cells += [
                summary?.median, summary?.mean, summary?.standardDeviation, summary?.coefficientOfVariation,
                summary?.min, summary?.max, summary?.confidenceLow, summary?.confidenceHigh,
            ].map(number)
            cells += [
                statistics.realNanosecondsPerOperation?.median, statistics.cpuNanosecondsPerOperation?.median,
                statistics.itemsPerSecond?.median,
            ].map(number)
            let latency = result.succeeded ? result.latency : nil
            cells += [latency?.p50, latency?.p90, latency?.p99, latency?.max].map(number)
            let (reference, estimate) = ratio(result)
            let own = reference == result.engine
            cells.append(cell(reference ?? ""))
            // An unstable ratio keeps its interval and gives no estimate, as every report does.
            let value = own || estimate?.isUnstable == true ? nil : estimate?.value
            cells += [value, own ? nil : estimate?.low, own ? nil : estimate?.high].map(number)
            cells += counterNames.map { number(statistics.counters[$0]?.median) }
            cells.append(quoted(statistics.flags.joined(separator: "; ")))
            let resources = result.resources
            cells += [
                resources.map { String($0.peakThreads) } ?? "", number(resources?.userSeconds),
                number(resources?.systemSeconds), resources.map { String($0.voluntarySwitches) } ?? "",
                resources.map { String($0.involuntarySwitches) } ?? "", resources.map { String($0.peakResidentKiB) } ?? "",
            ]
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A number in Swift's shortest round-trip form ("1234.5", "1e-05"); empty for none and for NaN or infinity,
    /// which no reader agrees on.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return value.description
    }

    /// `text` as a cell: quoted (quotes doubled) when it holds a comma, a quote or a line break, as RFC 4180 asks.
    static func cell(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) ? quoted(text) : text
    }

    /// `text` quoted, with its quotes doubled.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}
