import Bench

/// The native C floor: the same workloads written in C++ on Google Benchmark, through libdispatch's C API
/// (`c-dispatch`) and a pthread mutex (`c-mutex`); `scripts/native/` builds and runs it. Its JSON names its points as
/// `arena bench` does, so they join a run as two more engines: what the Swift engines cost above the C library they
/// stand on, and above a plain lock. This is the floor's registry: the one place its contenders are named, as
/// `BuiltInEngines` is the engines'; a run record marks them `native`, and every report reads that, not these names.
public enum NativeFloor {
    /// The engine names the floor's benchmarks use (scripts/native/floor.cpp names its benchmarks with them).
    public static let engines = ["c-dispatch", "c-mutex"]

    /// What each of the floor's engines is, for the run record.
    public static func summary(_ engine: String) -> String {
        engine == engines[0]
            ? "the native C floor: libdispatch's C API, measured by Google Benchmark (scripts/native)"
            : "the native C floor: a pthread mutex, measured by Google Benchmark (scripts/native)"
    }

    /// The floor's points of `workload` that match a point the run measures under `settings`; the others (another
    /// thread list, another size) are returned apart, by name, so the caller can say they were left out.
    public static func points(
        of workload: any Workload, in document: GoogleBenchmarkReader.Document,
        settings: BenchSettings
    ) -> (matching: [PointResult], unmatched: [String]) {
        let paths = Set(workload.points(settings).map(\.parameterPath))
        var matching: [PointResult] = []
        var unmatched: [String] = []
        for result in document.results where result.point.workload == workload.name {
            if paths.contains(result.point.parameterPath) { matching.append(result) } else { unmatched.append(result.name) }
        }
        return (matching, unmatched)
    }
}
