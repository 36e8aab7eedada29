import Bench
import Glibc
import Harness

/// Runs gnuplot over a results folder: every results CSV there (`<workload>.csv` in the layout `arena bench` writes) is
/// drawn into `plots/<workload>[-<view>].png` and `.svg` by the figure its workload declares (`Workload.figure`): a
/// script this module carries (`PlotScripts`), the workload's own script text, or the generic plot (`generic.gp`
/// with a layout chosen from the data, `PlotLayout`), which a CSV of a workload the caller does not know gets too.
///
/// Every script gets its inputs as gnuplot variables (`variables(csv:path:outdir:engineOrder:cores:scripts:)`): `csv`,
/// `outdir`, `engines` (the engines in the CSV, in the engine order), `engine_order` (every engine the run knows,
/// which fixes each one's colour), `cores`, `scriptdir`, and the parameters read from the CSV: `params`,
/// `param_columns`, and for each parameter `values_<name>`, its values in the workload's point order. The generic
/// script gets its layout besides. Each script runs in a process of its own, bounded by a time limit, from a temporary
/// folder that holds the bundled scripts, the workloads' own and the generic layouts' CSVs, removed when the run ends.
public struct GnuplotRunner: Sendable {
    /// What one plot did.
    public struct Outcome: Sendable {
        public let workload: String
        /// The figure it was drawn with: its workload's, or `.generic` for a workload the caller does not know.
        public let figure: PlotFigure
        /// Empty on success; gnuplot's standard error otherwise (and any warnings it printed on success).
        public let errors: String
        public let succeeded: Bool

        /// The script that drew it: a bundled script's name, `generic.gp`, or `<workload>.own.gp` for the workload's
        /// own text.
        public var script: String { GnuplotRunner.scriptName(of: figure, workload: workload) }

        /// Whether the generic script drew it.
        public var isGeneric: Bool { figure == .generic }
    }

    /// The script drawing a workload whose figure is `.generic`.
    public static let genericScript = "generic.gp"

    /// The gnuplot executable.
    public let gnuplot: String
    /// A folder of scripts in place of the bundled ones (`arena plot --scripts`): it holds `common.gp`, `generic.gp`
    /// and every script a workload names by `.bundled(_:)`. `nil`: the scripts this module carries (`PlotScripts`).
    public let scripts: String?

    /// A runner of `gnuplot` with the bundled scripts, or with those of the folder `scripts` (as `--scripts` names it:
    /// `PlotScripts.folder(given:)` resolves a checkout's root).
    public init(gnuplot: String, scripts: String? = nil) {
        self.gnuplot = gnuplot
        self.scripts = scripts
    }

    /// `gnuplot` on `PATH`, or `nil` when there is none.
    public static func findGnuplot() -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/gnuplot" }.first { access($0, X_OK) == 0 }
    }

    /// A results CSV of a folder, read and parsed once: what one plot is drawn from.
    public struct Source: Sendable {
        /// The workload, named by the file (`<workload>.csv`).
        public let workload: String
        /// The file's path.
        public let path: String
        /// The file, parsed.
        public let table: ResultsCSV
    }

    /// The results CSVs in `directory` (`<name>.csv` whose header is `arena bench`'s), registered or not: those of
    /// `order` first, in its order, then the others by name. Reads and parses each CSV of the folder once.
    public func sources(in directory: String, order: [String] = []) -> [Source] {
        let found = Files.names(in: directory).filter { $0.hasSuffix(".csv") && $0.count > 4 }.compactMap { file -> Source? in
            let path = "\(directory)/\(file)"
            return Files.read(path).flatMap(ResultsCSV.init).map { Source(workload: String(file.dropLast(4)), path: path, table: $0) }
        }
        let named = order.compactMap { name in found.first { $0.workload == name } }
        return named + found.filter { !order.contains($0.workload) }.sorted { $0.workload < $1.workload }
    }

    /// The plots' data of `run`: each workload's CSV as the CSV reporter makes it from the record, written into
    /// `directory` (a temporary folder: never the results folder) and parsed, in the run's workload order.
    public func sources(from run: RunAnalysis, into directory: String) throws(FileError) -> [Source] {
        var sources: [Source] = []
        for output in CSVReporter().outputs(run) {
            guard case .file(let name) = output.destination, let table = ResultsCSV(output.text) else { continue }
            let path = directory + "/" + name
            try Files.writeWhole(output.text, to: path)
            sources.append(Source(workload: String(name.dropLast(4)), path: path, table: table))
        }
        return sources
    }

    /// The workloads with a results CSV in `directory`, in the order `sources(in:order:)` gives.
    public func plottable(in directory: String, order: [String] = []) -> [String] {
        sources(in: directory, order: order).map(\.workload)
    }

    /// The figure that draws the CSV of `workload`: the figure of the workload of that name among `workloads`, else
    /// the generic plot.
    public static func figure(for workload: String, among workloads: [any Workload]) -> PlotFigure {
        workloads.first { $0.name == workload }?.figure ?? .generic
    }

    /// The file name of the script that draws `figure` for `workload`: `generic.gp`, the bundled script's name, or
    /// `<workload>.own.gp` (the workload's own text, written into the temporary folder under that name).
    public static func scriptName(of figure: PlotFigure, workload: String) -> String {
        switch figure {
        case .generic: genericScript
        case .bundled(let name): name
        case .script: "\(workload).own.gp"
        }
    }

    /// Draws every results CSV of `directory` into `outdir`, creating it when needed.
    ///
    /// - Parameters:
    ///   - workloads: the workloads the caller knows; a CSV named after one is drawn by its `figure` (the generic plot
    ///     gets its `plotAxis` and summary), and the plots come in their order. A CSV of any other name gets the
    ///     generic plot.
    ///   - engineOrder: the engines in the order they are shown (the lineup's). Each engine's colour, point type and
    ///     dash come from its place in this order followed by the C floors (`NativeFloor.engines`) and then any
    ///     other engine found in the folder's CSVs, so they are the same in every plot.
    public func run(
        directory: String, outdir: String, cores: Int, workloads: [any Workload],
        engineOrder: [String]
    ) throws(FileError) -> [Outcome] {
        try run(
            sources(in: directory, order: workloads.map(\.name)), outdir: outdir, cores: cores, workloads: workloads,
            engineOrder: engineOrder)
    }

    /// Draws `sources` (found by `sources(in:order:)`) into `outdir`, creating it when needed; as
    /// `run(directory:outdir:cores:workloads:engineOrder:)`, for a caller that has looked at the folder already;
    /// `references` names each workload's reference (the scripts' `reference`). With the bundled scripts it first
    /// writes them all into the temporary folder (about 100 KB).
    public func run(
        _ sources: [Source], outdir: String, cores: Int, workloads: [any Workload], engineOrder: [String],
        references: [String: String] = [:]
    ) throws(FileError) -> [Outcome] {
        try Files.makeDirectories(outdir)
        guard !sources.isEmpty else { return [] }
        let order = Self.fullOrder(engineOrder, found: sources.map(\.table.engines))
        return try withScripts { (temporary, scriptdir) throws(FileError) in
            var outcomes: [Outcome] = []
            for source in sources {
                let (name, path, table) = (source.workload, source.path, source.table)
                let figure = Self.figure(for: name, among: workloads)
                let script: String
                switch figure {
                case .generic, .bundled:
                    script = "\(scriptdir)/\(Self.scriptName(of: figure, workload: name))"
                    guard access(script, R_OK) == 0 else {
                        let missing = Self.scriptName(of: figure, workload: name)
                        let place = scripts.map { "in \($0)" } ?? "among the scripts this program carries"
                        outcomes.append(Outcome(workload: name, figure: figure, errors: "no \(missing) \(place)", succeeded: false))
                        continue
                    }
                case .script(let text):
                    script = "\(temporary)/\(Self.scriptName(of: figure, workload: name))"
                    try Files.writeWhole(text, to: script)
                }
                var variables = Self.variables(
                    csv: table, path: path, outdir: outdir, engineOrder: order, cores: cores,
                    scripts: scriptdir, reference: references[name])
                if figure == .generic {
                    let workload = workloads.first { $0.name == name }
                    let layout = PlotLayout(csv: table, workload: name, summary: workload?.summary, axisHint: workload?.plotAxis)
                    let derived = "\(temporary)/\(name).csv"
                    try Files.writeWhole(layout.derivedCSV(from: table), to: derived)
                    variables += Self.variables(layout: layout, derived: derived, source: path)
                }
                outcomes.append(draw(name, figure: figure, script: script, variables: variables))
            }
            return outcomes
        }
    }

    /// Runs `body` with a temporary folder, removed afterwards, and the folder of scripts to run: `scripts`, or the
    /// bundled scripts written into the temporary folder (about 100 KB).
    func withScripts<T>(_ body: (_ temporary: String, _ scriptdir: String) throws(FileError) -> T) throws(FileError) -> T {
        let temporary = try Self.makeTemporaryDirectory()
        defer { Self.remove(directory: temporary) }
        if let scripts { return try body(temporary, scripts) }
        try PlotScripts.write(to: temporary)
        return try body(temporary, temporary)
    }

    /// Runs gnuplot on `script` with `variables` (stopped after 60 s): the outcome of `workload`'s `figure`.
    func draw(_ workload: String, figure: PlotFigure, script: String, variables: [String]) -> Outcome {
        let outcome = ChildProcess.run(["-e", variables.joined(separator: "; "), script], executable: gnuplot, limit: .seconds(60))
        var errors = outcome.standardError
        if outcome.termination == .timedOut { errors += "gnuplot did not finish within 60 s" }
        return Outcome(workload: workload, figure: figure, errors: errors, succeeded: outcome.termination == .exited(0))
    }

    // MARK: What the scripts get

    /// The engine order the scripts get as `engine_order`: `engineOrder`, then the C floors, then the other engines
    /// of `found` (each CSV's engines) in the order first seen.
    public static func fullOrder(_ engineOrder: [String], found: [[String]] = []) -> [String] {
        var order: [String] = []
        for engine in engineOrder + NativeFloor.engines + found.joined() where !order.contains(engine) { order.append(engine) }
        return order
    }

    /// The variables every script gets, as gnuplot assignments: `csv` (`path`), `outdir`, `engines` (those with rows
    /// in `csv`, in `engineOrder`), `engine_order`, `cores`, `scriptdir`, `reference` (the contender the workload's
    /// ratios are to; empty without one), `params` (the parameters' names, as
    /// identifiers), `param_columns` (their CSV columns) and `values_<name>` for each (its values in point order).
    /// Lists are space-separated words; a word holding a blank is double-quoted (gnuplot's `word` and `for [s in …]`
    /// read it as one).
    public static func variables(
        csv: ResultsCSV, path: String, outdir: String, engineOrder: [String], cores: Int,
        scripts: String, reference: String? = nil
    ) -> [String] {
        let present = csv.engines
        let engines = engineOrder.filter(present.contains) + present.filter { !engineOrder.contains($0) }
        var variables = [
            "csv=\(quoted(path))", "outdir=\(quoted(outdir))", "engines=\(quoted(words(engines)))",
            "engine_order=\(quoted(words(engineOrder)))", "cores=\(cores)", "scriptdir=\(quoted(scripts))",
            "reference=\(quoted(reference ?? ""))",
        ]
        let names = identifiers(csv.parameters.map(\.name))
        variables.append("params=\(quoted(words(names)))")
        variables.append("param_columns=\(quoted(words(csv.parameters.map(\.column))))")
        for (name, parameter) in zip(names, csv.parameters) {
            variables.append("values_\(name)=\(quoted(words(parameter.values)))")
        }
        return variables
    }

    /// What `generic.gp` gets besides: `name`, `source_csv` (the results CSV; `csv` is then `derived`, the layout's
    /// CSV), `plot_layout` (`lines` or `bars`), `title_what`, `fixed_note`, `x_title`, `y_title`, `xlog`, `ylog`,
    /// `x_values`, `n_panels` and `panel_title_<i>` (1-based).
    static func variables(layout: PlotLayout, derived: String, source: String) -> [String] {
        var variables = [
            "name=\(quoted(layout.workload))", "source_csv=\(quoted(source))", "csv=\(quoted(derived))",
            "plot_layout=\(quoted(layout.isBars ? "bars" : "lines"))", "title_what=\(quoted(layout.title))",
            "fixed_note=\(quoted(layout.fixed.map { "\($0.name):\($0.value)" }.joined(separator: " ")))",
            "x_title=\(quoted(layout.x ?? "engine"))", "y_title=\(quoted(layout.yLabel))",
            "xlog=\(layout.xLog ? 1 : 0)", "ylog=\(layout.yLog ? 1 : 0)",
            "x_values=\(quoted(layout.xValues.map { $0.description }.joined(separator: " ")))",
            "n_panels=\(layout.panels.count)",
        ]
        for index in layout.panels.indices {
            variables.append("panel_title_\(index + 1)=\(quoted(layout.panelTitle(index)))")
        }
        return variables
    }

    /// Names as gnuplot identifiers: characters other than letters, digits and `_` become `_`, a leading digit gets a
    /// `_` before it, and a name that would repeat an earlier one gets `_2`, `_3`, ….
    public static func identifiers(_ names: [String]) -> [String] {
        var taken: [String] = []
        return names.map { name in
            var identifier = String(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) || scalar == "_"
                        ? Character(scalar) : "_"
                })
            if identifier.first.map({ $0.isNumber }) ?? true { identifier = "_" + identifier }
            var unique = identifier
            var suffix = 2
            while taken.contains(unique) { unique = "\(identifier)_\(suffix)"; suffix += 1 }
            taken.append(unique)
            return unique
        }
    }

    /// A word list for gnuplot's `word`, `words` and `for [s in …]`: words joined by blanks, a word holding a blank
    /// (or empty) double-quoted; a double quote inside a word, which such a list cannot hold, becomes a single one.
    static func words(_ items: [String]) -> String {
        items.map { item in
            let clean = item.replacing("\"", with: "'").replacing("\n", with: " ")
            return clean.isEmpty || clean.contains(where: \.isWhitespace) ? "\"\(clean)\"" : clean
        }.joined(separator: " ")
    }

    /// A gnuplot string literal: single-quoted, with single quotes doubled (gnuplot's own escape); line breaks become
    /// blanks, since `-e` reads one command line.
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "''").replacing("\n", with: " ") + "'"
    }

    // MARK: Files

    /// A fresh folder under `$TMPDIR` (or /tmp) for the scripts and the generic plots' CSVs; never inside the results
    /// folder.
    public static func makeTemporaryDirectory() throws(FileError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/arena-plot.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw FileError(path: "\(base)/arena-plot.XXXXXX", errno: errno)
        }
        return String(cString: made)
    }

    /// Removes `directory` and the files in it.
    public static func remove(directory: String) {
        for name in Files.names(in: directory) { unlink("\(directory)/\(name)") }
        rmdir(directory)
    }
}
