import ArenaContract
import Bench

extension RunRecord {
    /// A record made from a results folder written before records (`run.json`): its Google Benchmark JSON, one file
    /// per workload of `workloads` (`<workload>.json`; other files are ignored), and its `instructions.json`. What
    /// those files do not hold stays empty: the conformance matrix (it was Markdown, which nothing here reads), the
    /// seed, the rounds (each repetition counts as the round of its position, so ratios pair repetitions that were
    /// not measured together and their intervals are looser than they say), the contenders' profiles and roles (taken
    /// from `lineup`'s contenders of the same name, if any). Throws `missing` when the folder has none of those files,
    /// `malformed` when one cannot be read. Costs one read and parse per file.
    public static func legacy(
        _ directory: String, workloads: [any Workload], lineup: [ContenderRecord]
    ) throws(RecordError) -> RunRecord {
        var record = RunRecord()
        var points: [MeasuredPoint] = []
        var floor: [PointResult] = []
        var found: [any Workload] = []
        var engines: [String] = []
        var settings: BenchSettings?
        for workload in workloads {
            let path = directory + "/" + workload.name + ".json"
            guard let text = Files.read(path) else { continue }
            let document: GoogleBenchmarkReader.Document
            do { document = try GoogleBenchmarkReader.read(text) } catch {
                throw RecordError(.malformed, "\(path): \(error)")
            }
            found.append(workload)
            record.machine = record.machine ?? document.context
            for result in document.results {
                settings = settings ?? result.settings
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
        record.instructions = InstructionTable.read(directory + "/" + InstructionTable.jsonName)
        guard !found.isEmpty || record.instructions != nil else {
            throw RecordError(.missing, "'\(directory)' holds no run record (\(fileName)) and no workload results (<workload>.json)")
        }
        record.contenders = engines.map { name in
            lineup.first { $0.name == name }
                ?? ContenderRecord(profile: EngineProfile(name: name), native: NativeFloor.engines.contains(name))
        }
        if let settings {
            record.benchmarks = BenchmarkRecord(
                command: "(written before run records)", date: record.machine?.date ?? "", seed: nil, order: .sequential,
                lifetime: .point, settings: settings, spinnerStepsPerMicrosecond: nil, reference: nil,
                workloads: found.map { WorkloadRecord($0, settings: settings) }, points: points)
        }
        if !floor.isEmpty { record.floor = FloorRecord(source: "(the folder's workload files)", results: floor) }
        return record
    }

    /// The record of `directory`: its `run.json`, or, in a folder written before records, one made from its files
    /// (`legacy`), with `legacy` true. Throws as `read(from:)` does, `missing` only when neither is there.
    public static func load(
        _ directory: String, workloads: [any Workload], lineup: [ContenderRecord]
    ) throws(RecordError) -> (record: RunRecord, legacy: Bool) {
        if Files.read(path(in: directory)) != nil { return (try read(from: directory), false) }
        return (try legacy(directory, workloads: workloads, lineup: lineup), true)
    }
}
