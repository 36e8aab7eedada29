import ArenaCLI
import ArenaContract
import Bench
import Conformance
import Reporting

/// Run records made in a test from hand-made results, as `arena bench` would have recorded them: the built-in
/// contenders' profiles and roles (other names get a plain profile; the C floor's are native), each workload's points
/// grouped by point, the floor's points apart.
enum TestRuns {
    /// The built-in contenders as a record keeps them.
    static let contenders = Lineup(contenders: Contender.builtIn, catalog: .builtIn).records

    /// A record of `workloads`' results (each result restamped with its workload's name).
    static func record(
        _ workloads: [(any Workload, [PointResult])], conformance: ConformanceReport? = nil, reference: String? = nil,
        machine: MachineContext? = nil, order: TrialOrder = .interleaved
    ) -> RunRecord {
        var record = RunRecord()
        record.machine = machine
        var points: [MeasuredPoint] = []
        var floor: [PointResult] = []
        var engines: [String] = []
        for (workload, results) in workloads {
            for original in results {
                let result = PointResult(
                    engine: original.engine,
                    point: Point(workload: workload.name, parameters: original.point.parameters, threads: original.point.threads),
                    settings: original.settings, repetitions: original.repetitions, latency: original.latency,
                    resources: original.resources, failure: original.failure, seconds: original.seconds)
                if !engines.contains(result.engine) { engines.append(result.engine) }
                if NativeFloor.engines.contains(result.engine) {
                    floor.append(result)
                } else if let index = points.firstIndex(where: { $0.point == result.point }) {
                    points[index].results.append(result)
                } else {
                    points.append(MeasuredPoint(point: result.point, results: [result], rounds: []))
                }
            }
        }
        let settings = workloads.first?.1.first?.settings ?? BenchSettings()
        record.contenders = engines.map { name in
            contenders.first { $0.name == name }
                ?? ContenderRecord(profile: EngineProfile(name: name), native: NativeFloor.engines.contains(name))
        }
        record.benchmarks = BenchmarkRecord(
            command: "arena bench (test)", date: "2026-11-27T00:00:00+00:00", seed: 7, order: order, lifetime: .round,
            settings: settings, spinnerStepsPerMicrosecond: nil, reference: reference,
            workloads: workloads.map { WorkloadRecord($0.0, settings: settings) }, points: points)
        if !floor.isEmpty { record.floor = FloorRecord(source: "floor.json", results: floor) }
        if let conformance {
            record.conformance = ConformanceRecord(
                command: "arena conform (test)", date: "2026-11-27T00:00:00+00:00", repeats: 1, stress: false, report: conformance)
        }
        return record
    }

    /// The analysis of `record(workloads…)`, knowing the built-in workloads.
    static func analysis(
        _ workloads: [(any Workload, [PointResult])], conformance: ConformanceReport? = nil, reference: String? = nil,
        machine: MachineContext? = nil
    ) -> RunAnalysis {
        try! RunAnalysis(
            record: record(workloads, conformance: conformance, reference: reference, machine: machine),
            known: ArenaWorkloads.all)
    }

    /// The workload analyses of one workload's results.
    static func workloads(_ workload: any Workload, _ results: [PointResult], reference: String? = nil) -> [WorkloadAnalysis] {
        analysis([(workload, results)], reference: reference).workloads
    }
}
