import Glibc
import Harness

/// Runs the gnuplot scripts of `scripts/plot/` over a results folder: for every workload with a CSV there and a
/// script named after it, `gnuplot` draws `plots/<workload>[-<view>].png` and `.svg`.
///
/// The scripts get their inputs as gnuplot variables: `csv` (the workload's CSV), `outdir`, `engines` (the engines
/// in the CSV, space-separated, in `EngineOrder`, so colours and legends are the same in every plot), `cores` (the
/// measuring machine's CPU count, for ideal-speedup lines) and `scriptdir` (for `common.gp`). Each script runs in a
/// process of its own, bounded by a time limit.
public struct GnuplotRunner: Sendable {
    /// What one script did.
    public struct Outcome: Sendable {
        public let workload: String
        /// Empty on success; gnuplot's standard error otherwise (and any warnings it printed on success).
        public let errors: String
        public let succeeded: Bool
    }

    /// The gnuplot executable.
    public let gnuplot: String
    /// The folder holding `common.gp` and `<workload>.gp`.
    public let scripts: String

    public init(gnuplot: String, scripts: String) {
        self.gnuplot = gnuplot
        self.scripts = scripts
    }

    /// `gnuplot` on `PATH`, or `nil` when there is none.
    public static func findGnuplot() -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/gnuplot" }.first { access($0, X_OK) == 0 }
    }

    /// The plot scripts folder: `scripts/plot` in the current directory or one above it, else beside the running
    /// program's build folder (`.build/<triple>/release/arena` lies inside the repository); `nil` when none is found.
    public static func findScripts() -> String? {
        var starts: [String] = []
        if let cwd = getcwd(nil, 0) { starts.append(String(cString: cwd)); free(cwd) }
        if let exe = realpath("/proc/self/exe", nil) { starts.append(String(cString: exe)); free(exe) }
        for start in starts {
            var directory = start
            while !directory.isEmpty {
                let candidate = directory + "/scripts/plot"
                if access(candidate + "/common.gp", R_OK) == 0 { return candidate }
                guard let slash = directory.lastIndex(of: "/") else { break }
                directory = String(directory[..<slash])
            }
        }
        return nil
    }

    /// The workloads of the catalog that have both a CSV in `directory` and a script.
    public func plottable(in directory: String) -> [String] {
        BuiltInWorkloads.all.map(\.name).filter { name in
            access("\(directory)/\(name).csv", R_OK) == 0 && access("\(scripts)/\(name).gp", R_OK) == 0
        }
    }

    /// Draws every plottable workload of `directory` into `outdir`, creating it when needed.
    public func run(directory: String, outdir: String, cores: Int) throws(FileError) -> [Outcome] {
        try Files.makeDirectories(outdir)
        return plottable(in: directory).map { name in
            let csv = "\(directory)/\(name).csv"
            let engines = EngineOrder.sorted(Self.engines(inCSV: Files.read(csv) ?? ""))
            let variables = [
                "csv=\(Self.quoted(csv))", "outdir=\(Self.quoted(outdir))",
                "engines=\(Self.quoted(engines.joined(separator: " ")))", "cores=\(cores)",
                "scriptdir=\(Self.quoted(scripts))",
            ].joined(separator: "; ")
            let outcome = ChildProcess.run(["-e", variables, "\(scripts)/\(name).gp"], executable: gnuplot, limit: .seconds(60))
            let succeeded = outcome.termination == .exited(0)
            var errors = outcome.standardError
            if outcome.termination == .timedOut { errors += "gnuplot did not finish within 60 s" }
            return Outcome(workload: name, errors: errors, succeeded: succeeded)
        }
    }

    /// The engine names in the first column of a results CSV, in the order first seen.
    static func engines(inCSV text: String) -> [String] {
        var engines: [String] = []
        for line in text.split(separator: "\n").dropFirst() {
            let engine = String(line.prefix { $0 != "," })
            if !engine.isEmpty && !engines.contains(engine) { engines.append(engine) }
        }
        return engines
    }

    /// A gnuplot string literal: single-quoted, with single quotes doubled (gnuplot's own escape).
    static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }
}
