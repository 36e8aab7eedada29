import Bench

/// The figure `generic.gp` (Plots/Scripts) draws for a workload whose figure is `.generic`, chosen from its CSV.
///
/// - x axis: a numeric parameter that varies within a panel: the workload's `plotAxis` when it is one, else the one
///   with the most values (the first of those in the CSV's order on a tie). The series are the engines, lines with
///   min–max bars.
/// - No such parameter: bars, one per engine, with min–max bars.
/// - Panels: one per combination of the other parameters that vary, in the workload's point order; the parameters
///   with a single value are named under the title.
/// - Log x when the x values are positive and span a decade or more; log y when the headline's minima and maxima are
///   positive and span two decades or more.
public struct PlotLayout: Sendable, Equatable {
    /// The workload's name: the figure is `<workload>.png` and `.svg`.
    public let workload: String
    /// The title's line: the name and, when known, the workload's summary.
    public let title: String
    /// The y axis's label: the CSV's `metric` column (the headline's title).
    public let yLabel: String
    /// The parameter on the x axis (its name); `nil`: bars per engine.
    public let x: String?
    /// The x values, ascending (empty for bars).
    public let xValues: [Double]
    /// The parameters that vary from panel to panel (names).
    public let panelParameters: [String]
    /// Their CSV columns.
    let panelColumns: [String]
    /// One entry per panel: the values of `panelParameters`, in point order. One empty entry when none vary.
    public let panels: [[String]]
    /// The parameters with a single value, as name and value.
    public let fixed: [Parameter]
    public let xLog: Bool
    public let yLog: Bool

    /// The layout for `csv`, the results of the workload called `workload`; `axisHint` is its `plotAxis`, `summary`
    /// its summary when known.
    public init(csv: ResultsCSV, workload: String, summary: String? = nil, axisHint: String? = nil) {
        self.workload = workload
        let summary = summary.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") } ?? ""
        title = summary.isEmpty ? workload : "\(workload): \(summary)"
        var metrics: [String] = []
        for row in csv.rows {
            let metric = csv.cell(row, "metric")
            if !metric.isEmpty && !metrics.contains(metric) { metrics.append(metric) }
        }
        yLabel = metrics.joined(separator: " / ")

        let varying = csv.parameters.filter(\.varies)
        fixed = csv.parameters.filter { $0.values.count == 1 }.map { Parameter($0.name, $0.values[0]) }
        // An x axis must vary inside some panel, else every panel holds one point per engine.
        func variesWithinAPanel(_ candidate: ResultsCSV.ParameterColumn) -> Bool {
            let others = varying.filter { $0 != candidate }.map(\.column)
            var seen: [[String]: String] = [:]
            for row in csv.rows {
                let key = others.map { csv.cell(row, $0) }
                let value = csv.cell(row, candidate.column)
                if let first = seen[key], first != value { return true }
                seen[key] = value
            }
            return false
        }
        let candidates = varying.filter { $0.isNumeric && variesWithinAPanel($0) }
        let axis =
            candidates.first { $0.name == axisHint }
            ?? candidates.reduce(nil) { best, next in best.map { next.values.count > $0.values.count ? next : $0 } ?? next }
        x = axis?.name
        xValues = (axis?.values.compactMap(Double.init) ?? []).sorted()

        let panelColumns = varying.filter { $0 != axis }
        panelParameters = panelColumns.map(\.name)
        self.panelColumns = panelColumns.map(\.column)
        var combinations: [[String]] = []
        for row in csv.rows {
            let combination = panelColumns.map { csv.cell(row, $0.column) }
            if !combinations.contains(combination) { combinations.append(combination) }
        }
        // In point order: by each value's place in its parameter's order, the first parameter first.
        func rank(_ combination: [String]) -> [Int] {
            zip(panelColumns, combination).map { column, value in column.values.firstIndex(of: value) ?? column.values.count }
        }
        panels = combinations.isEmpty ? [[]] : combinations.sorted { rank($0).lexicographicallyPrecedes(rank($1)) }

        xLog = (xValues.first ?? 0) > 0 && xValues.last! / xValues.first! >= 10
        let bounds = csv.rows.flatMap { row in ["min", "max", "median"].compactMap { Double(csv.cell(row, $0)) } }
            .filter(\.isFinite)
        if let low = bounds.min(), let high = bounds.max(), low > 0 { yLog = high / low >= 100 } else { yLog = false }
    }

    /// Whether the figure is bars per engine (no numeric x).
    public var isBars: Bool { x == nil }

    /// The title of panel `index` (0-based): `name:value` of each panel parameter.
    public func panelTitle(_ index: Int) -> String {
        zip(panelParameters, panels[index]).map { "\($0):\($1.isEmpty ? "-" : $1)" }.joined(separator: " ")
    }

    /// The panel a row of `csv` belongs to (0-based).
    func panel(of row: [String], in csv: ResultsCSV) -> Int? {
        let combination = panelColumns.map { csv.cell(row, $0) }
        return panels.firstIndex(of: combination)
    }

    /// The CSV `generic.gp` reads: `engine`, `x` (the x parameter's value; empty for bars), `panel` (1-based),
    /// `median`, `min`, `max` (empty for a failed point), one row per row of `csv` that has a panel (and, for lines,
    /// a numeric x).
    public func derivedCSV(from csv: ResultsCSV) -> String {
        let xColumn = x.flatMap { name in csv.parameters.first { $0.name == name }?.column }
        var lines = ["engine,x,panel,median,min,max"]
        for row in csv.rows {
            guard let panel = panel(of: row, in: csv) else { continue }
            let xValue = xColumn.map { csv.cell(row, $0) } ?? ""
            if xColumn != nil && Double(xValue) == nil { continue }
            let figures = ["median", "min", "max"].map { column in
                Double(csv.cell(row, column)).map { $0.isFinite ? $0.description : "" } ?? ""
            }
            lines.append(([CSVReport.cell(row[0]), xValue, String(panel + 1)] + figures).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
