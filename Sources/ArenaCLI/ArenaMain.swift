import ArenaContract
import Bench
import Conformance
import HomeEngines
import Reporting

/// The `arena` command line as a library: this package's `arena` executable is one call to it, and so is an
/// executor author's own, with their engines, rules and workloads beside the built-in ones.
///
/// ```swift
/// // Sources/my-arena/main.swift
/// import ArenaCLI
/// import MyEngine
/// ArenaMain.run(engines: [MyEngine()], rules: [MyRule.rule], workloads: [MyWorkload()], reporters: [MyReporter()])
/// ```
///
/// Every command (`list`, `rules`, `explain`, `conform`, `bench`, `plot`, `report`, `compare`, `instructions`) then knows the
/// outside engines, rules, workloads and reporters (`RunReporter`: `bench --results-format` and `report --reporter`
/// name them), and the child processes that run each rule and each benchmark point are
/// this same program started again, so they know them too.
///
/// The entry points are inlinable and generic, so that the call, in the caller's module, compiles every workload's
/// trial for every engine it is measured on there: the user's workloads for the built-in engines and their own, and
/// the built-in workloads for their engines (the built-in pairs come compiled with the package). The benchmarks then
/// measure the engines, never the protocol's witness tables. Each runs the command line on the process arguments and
/// exits with the command's status: 0, 1 when something failed, 64 on a usage error.
public enum ArenaMain {
    /// Runs the command line with `engines` after the built-in ones (which hold the layers' reference roles), or
    /// alone when `includingBuiltIns` is false, `rules` appended to the catalog, `workloads` after the built-in ones
    /// (`ArenaWorkloads`), each measured on every contender that has what it requires, and `reporters` after the
    /// built-in ones.
    @inlinable
    public static func run<OutsideEngines: EngineSet, OutsideWorkloads: WorkloadSet>(
        engines: OutsideEngines, includingBuiltIns: Bool = true, rules: [Rule] = [], workloads: OutsideWorkloads,
        reporters: [any RunReporter] = []
    ) -> Never {
        var outside = ContenderMaker(workloads: JoinedWorkloads(ArenaWorkloads(), workloads))
        engines.forEach(&outside)
        let outsideWorkloads = workloads.workloads
        var builtIn: [Contender] = []
        if includingBuiltIns {
            builtIn = Contender.builtIn
            if !outsideWorkloads.isEmpty {
                var extra = MeasuringsMaker(workloads: workloads)
                BuiltInEngines.shared.forEach(&extra)
                builtIn = builtIn.map { contender in extra.measurings[contender.name].map(contender.adding) ?? contender }
            }
        }
        start(
            Lineup(
                contenders: builtIn + outside.contenders, catalog: Catalog.builtIn.appending(rules),
                workloads: ArenaWorkloads.all + outsideWorkloads, reporters: Reporters.builtIn + reporters))
    }

    /// Runs the command line with `engines` (of one type) after the built-in ones, or alone when `includingBuiltIns`
    /// is false, `rules` appended to the catalog and `reporters` after the built-in ones.
    @inlinable
    public static func run<E: Engine>(
        engines: [E], includingBuiltIns: Bool = true, rules: [Rule] = [], reporters: [any RunReporter] = []
    ) -> Never {
        run(engines: engines, includingBuiltIns: includingBuiltIns, rules: rules, workloads: NoWorkloads(), reporters: reporters)
    }

    /// Runs the command line on the built-in engines with `workloads` after the built-in ones, `rules` appended and
    /// `reporters` after the built-in ones.
    @inlinable
    public static func run<OutsideWorkloads: WorkloadSet>(
        rules: [Rule] = [], workloads: OutsideWorkloads, reporters: [any RunReporter] = []
    ) -> Never {
        run(engines: NoEngines(), rules: rules, workloads: workloads, reporters: reporters)
    }

    /// Runs the command line on the built-in engines, rules, workloads and reporters, with `rules` appended and
    /// `reporters` after the built-in ones (this package's `arena`).
    public static func run(rules: [Rule] = [], reporters: [any RunReporter] = []) -> Never {
        start(Lineup(contenders: Contender.builtIn, catalog: Catalog.builtIn.appending(rules), reporters: Reporters.builtIn + reporters))
    }

    /// Hands `lineup` to the command line.
    @usableFromInline
    static func start(_ lineup: Lineup) -> Never {
        ArenaCommand.start(with: lineup)
    }
}
