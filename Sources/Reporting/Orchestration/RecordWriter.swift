import ArenaContract
import Bench
import Glibc

/// Keeps a run's record and its files up to date while `arena bench` measures: after every point it writes
/// `run.json` and the chosen reporters' files for the point's workload, each file written whole to a temporary name
/// and renamed over the old one, so a reader (or a run killed midway) only ever sees complete files holding every
/// finished point. At the end, every chosen reporter writes once more from the whole run.
public final class RecordWriter {
    /// The results folder.
    public let directory: String
    /// The reporters whose files it writes.
    public let reporters: [any RunReporter]
    /// The record so far.
    public private(set) var record: RunRecord
    private let known: [any Workload]
    /// The files written so far, in the order first written.
    public private(set) var files: [String] = []
    /// The seconds between two writes of `run.json` while points are still measuring (`add`).
    public let checkpointSeconds: Double
    /// When `run.json` was last written.
    private var written = Deadline.now()

    /// A writer of `record` into `directory` (created with its parents if needed), writing `reporters`' files; `known`
    /// are the workloads whose code this program has (their extra tables); `checkpointSeconds` apart at most, the
    /// record of points still measuring is written again. Writes `run.json` at once.
    public init(
        directory: String, record: RunRecord, reporters: [any RunReporter], known: [any Workload],
        checkpointSeconds: Double = 5
    ) throws(FileError) {
        self.directory = directory
        self.checkpointSeconds = checkpointSeconds
        self.record = record
        self.reporters = reporters
        self.known = known
        try Files.makeDirectories(directory)
        try writeRecord()
    }

    /// Puts `point` (as measured so far) into the benchmarks, in place of its earlier state. With `files` (the point
    /// is finished) it rewrites `run.json` and the reporters' files of its workload; otherwise it rewrites `run.json`
    /// only when `checkpointSeconds` passed since the last write. The record is written whole, so a write costs more
    /// as the run goes on (a quick run's whole record: about 1.5 MB): a write per round took about 20 s of a 247 s
    /// quick run, outside every trial. A run stopped midway keeps every finished point, and the rounds of the others
    /// up to its last checkpoint.
    public func add(_ point: MeasuredPoint, seconds: Double, files: Bool = true) throws(FileError) {
        if let index = record.benchmarks?.points.firstIndex(where: { $0.point == point.point }) {
            record.benchmarks?.points[index] = point
        } else {
            record.benchmarks?.points.append(point)
        }
        record.benchmarks?.seconds = seconds
        guard files || (Deadline.now() - written).seconds >= checkpointSeconds else { return }
        try writeRecord()
        if files { try write(analysis().restricted(to: [point.point.workload])) }
    }

    /// Changes the record (the floor, the end time) and rewrites `run.json`.
    public func update(_ change: (inout RunRecord) -> Void) throws(FileError) {
        change(&record)
        try writeRecord()
    }

    /// Writes every reporter's files from the whole run.
    public func finish() throws(FileError) {
        record.benchmarks?.finished = true
        try writeRecord()
        try write(analysis())
    }

    /// The analysis of the record so far: its own reference, when that is still one of its contenders.
    public func analysis() -> RunAnalysis {
        (try? RunAnalysis(record: record, known: known))
            ?? (try! RunAnalysis(
                record: {
                    var plain = record; plain.benchmarks?.reference = nil; return plain
                }(), known: known))
    }

    private func writeRecord() throws(FileError) {
        note(RunRecord.path(in: directory))
        try record.write(to: directory)
        written = Deadline.now()
    }

    private func write(_ run: RunAnalysis) throws(FileError) {
        for reporter in reporters {
            for output in reporter.outputs(run) {
                guard case .file(let name) = output.destination else { continue }
                let path = directory + "/" + name
                note(path)
                try Files.writeWhole(output.text, to: path)
            }
        }
    }

    private func note(_ path: String) {
        if !files.contains(path) { files.append(path) }
    }

    /// Why `directory` cannot hold results, or `nil` when it can: it is (or can become) a writable directory. Checks
    /// without creating anything, so a bad `--out` is reported before a run writes a byte.
    public static func problem(with directory: String) -> String? {
        var path = directory
        while true {
            var info = stat()
            if stat(path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else { return "'\(path)' is not a directory" }
                guard access(path, W_OK) == 0 else { return "'\(path)' is not writable" }
                return nil
            }
            guard errno == ENOENT || errno == ENOTDIR else { return "cannot use '\(path)': \(String(cString: strerror(errno)))" }
            // Go up to the nearest ancestor that exists: it must be a writable directory.
            guard let slash = path.lastIndex(of: "/") else { path = "."; continue }
            path = slash == path.startIndex ? "/" : String(path[..<slash])
        }
    }
}
