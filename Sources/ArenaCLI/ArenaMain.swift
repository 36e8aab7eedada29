import Bench
import Conformance
import ArenaContract
import Contenders

/// The `arena` command line as a library: this package's `arena` executable is one call to it, and so is an
/// executor author's own, with their engines beside the built-in ones.
///
/// ```swift
/// // Sources/my-arena/main.swift
/// import ArenaCLI
/// import MyEngine
/// ArenaMain.run(engines: [MyEngine()])
/// ```
///
/// Every command (`list`, `rules`, `conform`, `bench`, `plot`, `report`, `compare`) then knows the outside engine,
/// and the child processes that run each rule and each benchmark point are this same program started again, so
/// they know it too.
public enum ArenaMain {
    /// Runs the command line on the process arguments with `engines` after the built-in engines (`system` first: it
    /// is the reference), or alone when `includingBuiltIns` is false, and `rules` appended to the catalog. Exits
    /// with the command's status: 0, 1 when something failed, 64 on a usage error.
    ///
    /// Inlinable and generic, so that this call, in the caller's module, compiles every workload's trial for `E`:
    /// the benchmarks then measure the engine, not the protocol's witness tables. For engines of several types, pass
    /// `Contender` values instead.
    @inlinable
    public static func run<E: Engine>(engines: [E], includingBuiltIns: Bool = true, rules: [Rule] = []) -> Never {
        run(engines: engines.map { Contender($0) }, includingBuiltIns: includingBuiltIns, rules: rules)
    }

    /// As `run(engines:)`, for contenders made by the caller (`Contender(MyEngine())`, one per engine type).
    public static func run(engines: [Contender] = [], includingBuiltIns: Bool = true, rules: [Rule] = []) -> Never {
        let lineup = Lineup(contenders: (includingBuiltIns ? Contender.builtIn : []) + engines,
                            catalog: Catalog.builtIn.appending(rules))
        ArenaCommand.start(with: lineup)
    }
}
