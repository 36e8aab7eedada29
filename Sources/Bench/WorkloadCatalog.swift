import Contenders

/// Every workload, in the order runs and reports take them. Like `EngineRegistry`, this is the one place where
/// workloads are existential; `measure` opens both the workload and the engine once, so a trial runs specialised.
public enum WorkloadCatalog {
    public static let all: [any Workload] = [
        ContentionWorkload(),
        ApplyWorkload(),
        // queue workloads (helper A)
        // source, timer and protocol workloads (helper B)
    ]

    /// The registered names, in order.
    public static var names: [String] { all.map(\.name) }

    /// The workload called `name`, if any.
    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }

    /// Measures `point` of `workload` on `engine` in this process.
    public static func measure(_ point: Point, of workload: any Workload, on engine: any Engine, with runner: PointRunner) -> PointResult {
        open(workload, engine, point, runner)
    }

    private static func open<W: Workload>(_ workload: W, _ engine: any Engine, _ point: Point, _ runner: PointRunner) -> PointResult {
        openEngine(workload, engine, point, runner)
    }

    private static func openEngine<W: Workload, E: Engine>(_ workload: W, _ engine: E, _ point: Point, _ runner: PointRunner) -> PointResult {
        runner.measure(point, of: workload, on: engine)
    }
}
