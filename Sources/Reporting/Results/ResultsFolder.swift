import ArenaContract
import Bench

/// A results folder read back: every workload file `arena bench` wrote there in the format that reads back
/// (`ResultsFormats.readBack`, Google Benchmark's `<workload>.json`), with the machine it was measured on.
/// `arena report` and `arena compare` read folders this way; the write-only formats (CSV, pytest-benchmark) are for
/// other tools.
public struct ResultsFolder: Sendable {
    /// One workload's points as the folder holds them.
    public struct WorkloadResults: Sendable {
        public let workload: any Workload
        /// In the order of the file.
        public let results: [PointResult]
    }

    /// The folder's path.
    public let directory: String
    /// The context of the first file that has a readable one.
    public let context: MachineContext?
    /// The workloads with a file in the folder, in the order of the `workloads` they were looked for in.
    public let workloads: [WorkloadResults]

    /// Reads the file `format` names for each of `workloads` (`<workload>.json`) in `directory`; a workload without
    /// one is skipped, other files are ignored. The caller says which workloads to look for (the catalog's, or a
    /// lineup's with the user's own). Throws when the folder is missing or a workload file cannot be read. Costs one
    /// read and parse per file found.
    public static func load(
        _ directory: String, workloads: [any Workload],
        format: any ReadableResultsFormat = ResultsFormats.readBack
    )
        throws(ResultsReadError) -> ResultsFolder
    {
        guard Files.isDirectory(directory) else { throw .init("'\(directory)' is not a directory") }
        var context: MachineContext?
        var found: [WorkloadResults] = []
        for workload in workloads {
            let path = directory + "/" + format.fileName(for: workload.name)
            guard let text = Files.read(path) else { continue }
            let document: ResultsDocument
            do { document = try format.read(text) } catch { throw .init("\(path): \(error)") }
            context = context ?? document.context
            found.append(WorkloadResults(workload: workload, results: document.results))
        }
        return ResultsFolder(directory: directory, context: context, workloads: found)
    }

    /// Every point with its workload, as `ConsoleReport` takes them.
    public var pairs: [(PointResult, any Workload)] {
        workloads.flatMap { entry in entry.results.map { ($0, entry.workload) } }
    }

    /// The engines with points in the folder, in `EngineOrder`.
    public var engines: [String] { EngineOrder.sorted(workloads.flatMap { $0.results.map(\.engine) }) }
}

/// The order engines are shown in, everywhere: the order a run first met them (a run measures its engines in the
/// lineup's order, `system` first), with the native floors last. Tables, plots and reports agree on it, so a column
/// stays put; no list of engine names is kept here, so an outside engine needs no registering.
public enum EngineOrder {
    /// The distinct names of `engines` in display order.
    public static func sorted(_ engines: [String]) -> [String] {
        var seen: [String] = []
        for engine in engines where !seen.contains(engine) { seen.append(engine) }
        return seen.filter { !NativeFloor.engines.contains($0) } + NativeFloor.engines.filter(seen.contains)
    }
}
