import ArenaContract
import Bench
import Conformance
import Mutants

/// The catalog's mutants (`Sources/Mutants`) as contenders that only run rules, reachable by name alone: no lineup
/// holds them, so `arena list`, `conform` and the reports never show one. `arena explain` starts its child on a mutant
/// by name, and the child (`ChildCommand`) finds it here when the lineup has no contender of that name.
extension Contender {
    /// The mutant called `name` (`mutant-` and a fault), if there is one.
    static func mutant(named name: String) -> Contender? {
        Mutants.engine(named: name).map { ruleRunning($0) }
    }

    /// `engine` entered for rules only: no workload is compiled for it and no instruction path runs on it.
    private static func ruleRunning<E: Engine>(_ engine: E) -> Contender {
        Contender(
            profile: EngineProfile(engine), engine: engine, measurings: Measurings(),
            runningPath: { path, _, _ throws(WorkloadError) in
                throw WorkloadError("\(engine.name) is a mutant: it runs rules only, not \(path.rawValue)")
            },
            conforming: { request, rule in ConformanceChild.main(request, engine: engine, rule: rule) },
            exploring: { request in ScenarioChild.main(request, engine: engine) })
    }
}
