import ArenaCLI
import ArenaContract
import Bench
import Foundation
import Reporting
import Testing

extension ArenaTests {
    /// `arena plot`'s side in Swift: the scripts the module carries, results CSVs read back, the parameter values every
    /// script gets, the generic plot's layout, and (with gnuplot) the generic script and an outside workload's own
    /// script drawing their figures.
    @Suite
    struct PlotTests {
        typealias Sample = BenchReportTests

        /// The scripts' folder in this checkout: what the module carries, compiled in.
        static let scripts = repositoryRoot.appendingPathComponent(PlotScripts.checkoutPath).path

        /// A point of `workload` on `engine` whose repetitions took `perOperation` ns per operation (1000 operations
        /// each); a failed point when `perOperation` is empty.
        static func result(
            _ workload: String, _ engine: String, _ parameters: [Parameter], threads: Int = 1,
            perOperation: [UInt64] = [100, 110, 90]
        ) -> PointResult {
            let point = Point(workload: workload, parameters: parameters, threads: threads)
            guard !perOperation.isEmpty else {
                return PointResult(engine: engine, point: point, settings: Sample.settings, failure: Failure(.error, "wrong"), seconds: 1)
            }
            let repetitions = perOperation.map { nanoseconds in
                Repetition(operations: 1000, items: 1000, wallNanoseconds: nanoseconds * 1000, cpuNanoseconds: nanoseconds * 1000)
            }
            return PointResult(engine: engine, point: point, settings: Sample.settings, repetitions: repetitions, seconds: 1)
        }

        /// The CSV `arena bench` writes for `results`, read back.
        static func table(_ results: [PointResult], headline: Headline = .throughput(unit: "ops/s")) throws -> ResultsCSV {
            try #require(ResultsCSV(CSVReport.csv(results, headline: headline)))
        }

        // MARK: Every registered workload gets a plot

        @Test(
            "Every registered workload is plotted: the generic layout places each of its points, and the script it names is bundled and reads its parameters"
        )
        func everyWorkloadIsPlotted() throws {
            for workload in ArenaWorkloads.all {
                let results = Self.quickResults(of: workload)
                let table = try #require(ResultsCSV(CSVReport.csv(results, headline: workload.headline)), "\(workload.name)")
                // The generic path, which draws any workload whose script is missing: a layout that puts every point
                // in a panel, with the workload's hint honoured.
                let layout = PlotLayout(csv: table, workload: workload.name, summary: workload.summary, axisHint: workload.plotAxis)
                #expect(!layout.panels.isEmpty, "\(workload.name)")
                let rows = layout.derivedCSV(from: table).split(separator: "\n").dropFirst()
                #expect(rows.count == results.count, "\(workload.name): \(rows.count) of \(results.count) points placed")
                if let hint = workload.plotAxis { #expect(layout.x == hint, "\(workload.name): x is \(String(describing: layout.x))") }
                let script: String
                switch workload.figure {
                case .generic:
                    #expect(PlotScripts.bundled[GnuplotRunner.genericScript] != nil, "\(workload.name): no bundled generic.gp")
                    continue
                case .bundled(let name):
                    script = try #require(PlotScripts.bundled[name], "\(workload.name) names \(name), which is not bundled")
                case .script(let text):
                    script = text
                }
                // Its own script loops over parameters it names: each must be one of the workload's.
                let parameterNames = GnuplotRunner.identifiers(table.parameters.map(\.name))
                for name in Self.namedParameters(in: script) {
                    #expect(parameterNames.contains(name), "\(workload.name).gp reads values_\(name), not a parameter of \(parameterNames)")
                }
            }
        }

        /// Synthetic results of `workload`'s quick points on system, mutex and the C floor (where it measures them),
        /// mutex's first point failed.
        static func quickResults(of workload: any Workload) -> [PointResult] {
            let engines = ["system", "mutex", "c-dispatch"].filter(workload.measures(engine:))
            return engines.flatMap { engine in
                workload.points(.quickDefaults()).enumerated().map { index, point in
                    Self.result(
                        workload.name, engine, point.parameters, threads: point.threads,
                        perOperation: index == 0 && engine == "mutex" ? [] : [100 << (index % 8), 120 + UInt64(index), 90])
                }
            }
        }

        /// The parameters a script reads by name: `param_values("p")` and `panel_param = "p"`.
        static func namedParameters(in script: String) -> [String] {
            let patterns = [#/param_values\("([^"]+)"\)/#, #/panel_param = "([^"]+)"/#]
            return patterns.flatMap { pattern in script.matches(of: pattern).map { String($0.output.1) } }
        }

        @Test("The module carries every script of its Plots/Scripts folder, as the folder holds it")
        func bundledScripts() throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.scripts).filter { $0.hasSuffix(".gp") }
            #expect(Set(PlotScripts.bundled.keys) == Set(names), "bundled \(PlotScripts.bundled.keys.sorted()), folder \(names.sorted())")
            for name in names {
                let text = try String(contentsOfFile: "\(Self.scripts)/\(name)", encoding: .utf8)
                #expect(PlotScripts.bundled[name] == text, "the bundled \(name) differs from the folder's")
            }
            for name in ["common.gp", GnuplotRunner.genericScript, "roundtrip.gp", "panelbars.gp"] {
                #expect(PlotScripts.bundled[name] != nil, "\(name) is not bundled")
            }
        }

        @Test("--scripts' folder: the one holding common.gp, or a checkout's root; anything else is nil")
        func scriptsFolder() throws {
            let root = repositoryRoot.path
            #expect(PlotScripts.folder(given: Self.scripts) == Self.scripts)
            #expect(PlotScripts.folder(given: root) == "\(root)/\(PlotScripts.checkoutPath)")
            let empty = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: empty) }
            for bad in [root + "/Sources", "/nonexistent", empty] { #expect(PlotScripts.folder(given: bad) == nil, "\(bad)") }
        }

        @Test("No bundled script lists parameter values, and common.gp names no engine")
        func scriptsHoldNoValues() throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.scripts).filter { $0.hasSuffix(".gp") }
            for name in names {
                let text = try String(contentsOfFile: "\(Self.scripts)/\(name)", encoding: .utf8)
                #expect(text.firstMatch(of: #/all_[a-z]+ *=/#) == nil, "\(name) holds a list of values")
            }
            let common = try String(contentsOfFile: "\(Self.scripts)/common.gp", encoding: .utf8)
            for engine in Contender.builtIn.map(\.name) { #expect(!common.contains("\"\(engine)\""), "common.gp names \(engine)") }
        }

        // MARK: Reading CSVs and what the scripts get

        @Test("A results CSV: parameter columns (param_ prefix undone), values in point order, other CSVs refused")
        func readingCSV() throws {
            let table = try Self.table([
                Self.result("w", "system", [Parameter("mode", "a"), Parameter("threads", 1)]),
                Self.result("w", "system", [Parameter("mode", "c"), Parameter("threads", 1)]),
                Self.result("w", "mutex", [Parameter("mode", "a"), Parameter("threads", 2)]),
                Self.result("w", "mutex", [Parameter("mode", "b, quoted \"x\""), Parameter("threads", 2)]),
                Self.result("w", "mutex", [Parameter("mode", "c"), Parameter("threads", 2)]),
            ])
            #expect(table.parameters.map(\.name) == ["mode", "threads"])
            #expect(table.parameters.map(\.column) == ["mode", "param_threads"])
            // b, first met in mutex's rows after a, goes between a and c, where mutex measured it.
            #expect(table.parameters[0].values == ["a", "b, quoted \"x\"", "c"])
            #expect(table.parameters[1].values == ["1", "2"] && table.parameters[1].isNumeric && !table.parameters[0].isNumeric)
            #expect(table.engines == ["system", "mutex"])
            #expect(ResultsCSV("engine,a,b\nsystem,1,2\n") == nil)
            #expect(ResultsCSV("name,threads,metric,median,min,max\n") == nil)
            #expect(ResultsCSV("") == nil)
        }

        @Test("Every script gets the CSV's engines in the run's order, the full order, and each parameter's values")
        func scriptVariables() throws {
            let table = try Self.table([
                Self.result("w", "outside", [Parameter("read size", "4096"), Parameter("mode", "sync"), Parameter("2x", "one two")]),
                Self.result("w", "c-mutex", [Parameter("read size", "65536"), Parameter("mode", "it's"), Parameter("2x", "three")]),
                Self.result("w", "system", [Parameter("read size", "4096"), Parameter("mode", "sync"), Parameter("2x", "one two")]),
            ])
            let order = GnuplotRunner.fullOrder(["system", "mutex", "mine"], found: [["zed", "c-mutex", "system"], table.engines])
            #expect(order == ["system", "mutex", "mine", "c-dispatch", "c-mutex", "zed", "outside"])
            let variables = GnuplotRunner.variables(
                csv: table, path: "/r/w.csv", outdir: "/r/plots", engineOrder: order,
                cores: 2, scripts: "/s")
            for expected in [
                "csv='/r/w.csv'", "engines='system c-mutex outside'",
                "engine_order='system mutex mine c-dispatch c-mutex zed outside'", "cores=2",
                "params='read_size mode _2x'", "param_columns='read size mode 2x'".replacing("read size", with: "\"read size\""),
                "values_read_size='4096 65536'", "values_mode='sync it''s'", "values__2x='\"one two\" three'",
            ] {
                #expect(variables.contains(expected), "\(expected) not in \(variables)")
            }
            #expect(GnuplotRunner.identifiers(["a-b", "a_b", "a b", "9", "ok"]) == ["a_b", "a_b_2", "a_b_3", "_9", "ok"])
        }

        // MARK: The generic layout

        @Test("Generic layout: x is the numeric parameter with the most values, panels the other varying ones")
        func layoutLines() throws {
            var results: [PointResult] = []
            for engine in ["system", "c-dispatch"] {
                for mode in ["sync", "async"] {
                    for threads in [1, 2, 4, 8, 16] {
                        for size in [10, 20] {
                            results.append(
                                Self.result(
                                    "w", engine,
                                    [
                                        Parameter("mode", mode), Parameter("threads", threads),
                                        Parameter("size", size), Parameter("depth", 3),
                                    ],
                                    threads: threads, perOperation: [UInt64(100 * threads)]))
                        }
                    }
                }
            }
            let layout = PlotLayout(csv: try Self.table(results), workload: "w", summary: "a sweep\nof threads")
            #expect(layout.x == "threads" && !layout.isBars)
            #expect(layout.xValues == [1, 2, 4, 8, 16] && layout.xLog)
            #expect(layout.panelParameters == ["mode", "size"])
            #expect(layout.panels == [["sync", "10"], ["sync", "20"], ["async", "10"], ["async", "20"]])
            #expect(layout.panelTitle(1) == "mode:sync size:20")
            #expect(layout.fixed == [Parameter("depth", "3")])
            #expect(layout.title == "w: a sweep of threads" && layout.yLabel == "ops/s")
            // 10M down to 625k ops/s: not two decades.
            #expect(!layout.yLog)
            let derived = layout.derivedCSV(from: try Self.table(results)).split(separator: "\n")
            #expect(derived.first == "engine,x,panel,median,min,max" && derived.count == results.count + 1)
            #expect(derived.contains { $0.hasPrefix("c-dispatch,16,2,") })

            // The workload's hint wins over the count; a hint that is not numeric or does not vary is passed over.
            let hinted = PlotLayout(csv: try Self.table(results), workload: "w", axisHint: "size")
            #expect(hinted.x == "size" && hinted.panelParameters == ["mode", "threads"] && !hinted.xLog)
            #expect(PlotLayout(csv: try Self.table(results), workload: "w", axisHint: "mode").x == "threads")
            #expect(PlotLayout(csv: try Self.table(results), workload: "w", axisHint: "depth").x == "threads")
        }

        @Test("Generic layout: bars per engine when no numeric parameter varies within a panel; log y over decades")
        func layoutBars() throws {
            // width and depth vary, but only together with shape: a line would have one point per panel.
            let graph = try Self.table(
                ["system", "mutex"].flatMap { engine in
                    [
                        Self.result(
                            "g", engine, [Parameter("shape", "layered"), Parameter("width", 16), Parameter("depth", 32)], perOperation: [10]
                        ),
                        Self.result(
                            "g", engine, [Parameter("shape", "chain"), Parameter("width", 1), Parameter("depth", 1000)],
                            perOperation: [10_000]),
                    ]
                })
            let bars = PlotLayout(csv: graph, workload: "g")
            #expect(bars.isBars && bars.x == nil && bars.xValues.isEmpty)
            #expect(bars.panelParameters == ["shape", "width", "depth"])
            #expect(bars.panels == [["layered", "16", "32"], ["chain", "1", "1000"]])
            #expect(bars.yLog, "100M down to 100k ops/s spans three decades")
            #expect(bars.derivedCSV(from: graph).contains("\nmutex,,2,100000.0,"))

            // No parameter at all: one panel, bars; a failed point is kept with empty figures.
            let single = try Self.table(
                [Self.result("p", "system", []), Self.result("p", "mutex", [], perOperation: [])],
                headline: .timePerOperation)
            let one = PlotLayout(csv: single, workload: "p")
            #expect(one.isBars && one.panels == [[]] && one.panelTitle(0).isEmpty && one.yLabel == "ns/op")
            #expect(one.derivedCSV(from: single).hasSuffix("\nmutex,,1,,,\n"))

            // Strings only: bars, a panel per value.
            let kinds = try Self.table([
                Self.result("k", "system", [Parameter("kind", "timer")]),
                Self.result("k", "system", [Parameter("kind", "after")]),
            ])
            #expect(PlotLayout(csv: kinds, workload: "k").panels == [["timer"], ["after"]])
        }

        // MARK: gnuplot

        /// A workload `arena` does not register, which declares no figure: `arena plot` must still draw it.
        struct OutsideSweep: Workload {
            var name: String { "outside-sweep" }
            var summary: String { "an outside workload's sweep over sizes" }
            var headline: Headline { .throughput(unit: "items/s") }
            var plotAxis: String? { "size" }
            func points(_ settings: BenchSettings) -> [Point] { [] }
            func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
                throw WorkloadError("not measured in tests")
            }
        }

        @Test("The generic script draws PNG and SVG with nothing on stderr, for lines, bars and failed points")
        func genericPlot() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let gnuplot = try #require(GnuplotRunner.findGnuplot())
            let folder = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var sweep: [PointResult] = []
            for engine in ["system", "my-engine", "c-mutex"] {
                for variant in ["plain", "fancy"] {
                    for (index, size) in [64, 256, 1024, 4096].enumerated() {
                        let failed = engine == "my-engine" && variant == "fancy" && index == 2
                        sweep.append(
                            Self.result(
                                "outside-sweep", engine,
                                [
                                    Parameter("variant", variant), Parameter("size", size),
                                    Parameter("count", 3),
                                ],
                                perOperation: failed ? [] : [UInt64(100 << index), 110, 90]))
                    }
                }
            }
            try CSVReport.csv(sweep, headline: OutsideSweep().headline).write(
                toFile: folder + "/outside-sweep.csv", atomically: true, encoding: .utf8)
            // Bars: strings only, one panel where every point failed.
            let bars = ["system", "other"].flatMap { engine in
                ["x", "y"].map { kind in
                    Self.result("kinds", engine, [Parameter("kind", kind)], perOperation: kind == "y" ? [] : [100, 120])
                }
            }
            try CSVReport.csv(bars, headline: .timePerOperation).write(toFile: folder + "/kinds.csv", atomically: true, encoding: .utf8)
            // Not a results CSV: left alone.
            try "a,b\n1,2\n".write(toFile: folder + "/notes.csv", atomically: true, encoding: .utf8)

            let runner = GnuplotRunner(gnuplot: gnuplot)
            #expect(runner.plottable(in: folder, order: ["outside-sweep"]) == ["outside-sweep", "kinds"])
            let outcomes = try runner.run(
                directory: folder, outdir: folder + "/plots", cores: 2,
                workloads: [OutsideSweep()], engineOrder: ["system"])
            #expect(outcomes.map(\.workload) == ["outside-sweep", "kinds"])
            for outcome in outcomes {
                #expect(outcome.succeeded && outcome.isGeneric, "\(outcome.workload): \(outcome.errors)")
                #expect(outcome.errors.isEmpty, "\(outcome.workload) wrote to stderr: \(outcome.errors)")
                for format in ["png", "svg"] {
                    let path = "\(folder)/plots/\(outcome.workload).\(format)"
                    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                    #expect(size > 1000, "\(path) is \(size) bytes")
                }
            }
            let svg = try String(contentsOfFile: folder + "/plots/outside-sweep.svg", encoding: .utf8)
            for expected in [
                "outside-sweep: an outside workload", "sweep over sizes", "variant:plain", "variant:fancy", "count:3",
                "my-engine", "c-mutex (C floor)", "items/s", ">size<", "failed point",
            ] {
                #expect(svg.contains(expected), "the SVG lacks \(expected)")
            }
            #expect(try String(contentsOfFile: folder + "/plots/kinds.svg", encoding: .utf8).contains("every point failed"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/plots/notes.png"))
            #expect(
                Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == [
                    "outside-sweep.csv", "kinds.csv", "notes.csv", "plots",
                ],
                "the layout's CSV went into the results folder")
        }

        /// A workload as it is, but declaring the generic figure.
        struct GenericFigure: Workload {
            let base: any Workload
            var name: String { base.name }
            var summary: String { base.summary }
            var headline: Headline { base.headline }
            var plotAxis: String? { base.plotAxis }
            func points(_ settings: BenchSettings) -> [Point] { base.points(settings) }
            func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
                throw WorkloadError("not measured in tests")
            }
        }

        @Test("Declaring the generic figure, every registered workload's quick points get a generic plot and a clean stderr")
        func genericPlotOfEveryWorkload() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let gnuplot = try #require(GnuplotRunner.findGnuplot())
            let folder = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            for workload in ArenaWorkloads.all {
                try CSVReport.csv(Self.quickResults(of: workload), headline: workload.headline)
                    .write(toFile: "\(folder)/\(workload.name).csv", atomically: true, encoding: .utf8)
            }
            let outcomes = try GnuplotRunner(gnuplot: gnuplot).run(
                directory: folder, outdir: folder + "/plots", cores: 2, workloads: ArenaWorkloads.all.map(GenericFigure.init),
                engineOrder: Contender.builtIn.map(\.name))
            #expect(outcomes.map(\.workload) == ArenaWorkloads.all.map(\.name))
            for outcome in outcomes {
                #expect(outcome.succeeded && outcome.isGeneric && outcome.errors.isEmpty, "\(outcome.workload): \(outcome.errors)")
                for format in ["png", "svg"] {
                    #expect(
                        FileManager.default.fileExists(atPath: "\(folder)/plots/\(outcome.workload).\(format)"),
                        "\(outcome.workload).\(format)")
                }
            }
        }

        /// An outside workload that brings its own gnuplot script: a title naming the variables it got, drawn with
        /// common.gp's helpers, loaded from `scriptdir`.
        struct OwnFigure: Workload {
            var name: String { "own-figure" }
            var summary: String { "an outside workload with a figure of its own" }
            var headline: Headline { .throughput(unit: "items/s") }
            var figure: PlotFigure {
                .script(
                    """
                    load scriptdir . '/common.gp'
                    do for [fmt in formats] {
                        eval output(fmt, "own-figure", 640, 400)
                        set title sprintf("drawn by its own script: engines %s; params %s; sizes %s", engines, params, values_size)
                        set xlabel "size"
                        plot csv using (column("size")):(column("median")) with linespoints title "median"
                        set output
                    }
                    """)
            }
            func points(_ settings: BenchSettings) -> [Point] { [] }
            func trial<E: Engine>(_ point: Point, operations: Int, on engine: E, context: TrialContext) throws(WorkloadError) -> Trial {
                throw WorkloadError("not measured in tests")
            }
        }

        @Test("An outside workload's own script draws its CSV with the variables the bundled scripts get, scriptdir among them")
        func ownScript() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let gnuplot = try #require(GnuplotRunner.findGnuplot())
            let folder = BenchCLITests.freshPath()
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let results = ["system", "mine"].flatMap { engine in
                [64, 4096].map { size in Self.result("own-figure", engine, [Parameter("size", size)], perOperation: [UInt64(size), 90]) }
            }
            try CSVReport.csv(results, headline: OwnFigure().headline).write(
                toFile: folder + "/own-figure.csv", atomically: true, encoding: .utf8)
            // With the bundled scripts, and with a folder of them in their place (--scripts): scriptdir is either.
            for runner in [GnuplotRunner(gnuplot: gnuplot), GnuplotRunner(gnuplot: gnuplot, scripts: Self.scripts)] {
                try? FileManager.default.removeItem(atPath: folder + "/plots")
                let outcomes = try runner.run(
                    directory: folder, outdir: folder + "/plots", cores: 2, workloads: [OwnFigure()], engineOrder: ["system"])
                #expect(outcomes.map(\.workload) == ["own-figure"])
                let outcome = try #require(outcomes.first)
                #expect(outcome.succeeded && outcome.errors.isEmpty, "\(outcome.errors)")
                #expect(outcome.figure == OwnFigure().figure && !outcome.isGeneric && outcome.script == "own-figure.own.gp")
                let svg = try String(contentsOfFile: folder + "/plots/own-figure.svg", encoding: .utf8)
                #expect(svg.contains("drawn by its own script: engines system mine; params size; sizes 64 4096"), "\(svg.prefix(2000))")
                #expect(FileManager.default.fileExists(atPath: folder + "/plots/own-figure.png"))
            }
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["own-figure.csv", "plots"])

            // A workload the caller does not know gets the generic plot, whatever its CSV.
            let unknown = try GnuplotRunner(gnuplot: gnuplot).run(
                directory: folder, outdir: folder + "/plots", cores: 2, workloads: [], engineOrder: ["system"])
            #expect(unknown.map(\.isGeneric) == [true] && unknown.allSatisfy(\.succeeded), "\(unknown.map(\.errors))")
        }

        @Test("Engine colours come from the place in engine_order: the built-in engines keep theirs, a new one gets its own")
        func engineColours() throws {
            guard try RequiredPackage.gnuplot.require() else { return }
            let order = Contender.builtIn.map(\.name) + ["mine", "c-dispatch", "c-mutex", "c-other"]
            let probe =
                "engines='\(order.joined(separator: " "))'; csv_checked=1; scriptdir='\(Self.scripts)'; "
                + "load scriptdir.'/common.gp'; "
                + "do for [e in engines] { print sprintf('%s %06X %d %d', e, engine_color(e), engine_pt(e), engine_dt(e)) }; "
                + "print sprintf('stranger %06X %d', engine_color('stranger'), engine_pt('stranger'))"
            let run = try Sample.run(["gnuplot", "-e", probe])
            #expect(run.status == 0, "\(run.output)")
            let lines = run.output.split(separator: "\n").map(String.init)
            // The colours, point types and dashes of the six built-in engines and the two C floors before the palette.
            let expected = [
                "system 0072B2 7 1", "mutex D55E00 5 1", "lockfree 009E73 9 1", "actor CC79A7 13 1",
                "foundation E69F00 11 1", "swift 56B4E9 15 1", "c-dispatch 1A1A1A 6 2", "c-mutex 8C510A 4 2",
            ]
            for line in expected { #expect(lines.contains(line), "\(line) not in \(lines)") }
            let mine = try #require(lines.first { $0.hasPrefix("mine ") })
            let others = lines.filter { !$0.hasPrefix("mine ") && !$0.hasPrefix("stranger ") }
            #expect(!others.contains { $0.split(separator: " ")[1] == mine.split(separator: " ")[1] }, "mine shares a colour: \(lines)")
            #expect(lines.contains { $0.hasPrefix("c-other ") && $0.hasSuffix(" 2") })
            #expect(lines.contains("stranger 8A8A8A 3"))
        }
    }
}
