import Bench
import Glibc

/// Keeps a run's results and rewrites each workload's files after every point, one per format it was given
/// (`<workload>.json`, `<workload>.csv`, … as `ResultsFormat.fileName(for:)` names them). Each file is written whole
/// to a temporary name and renamed over the old one, so a reader (or a run killed midway) only ever sees complete
/// files holding every finished point.
public final class ResultsWriter {
    /// The results folder.
    public let directory: String
    /// The formats every workload is written in, in order.
    public let formats: [any ResultsFormat]
    private let context: MachineContext
    private var results: [String: [PointResult]] = [:]
    /// The files written so far, in the order first written.
    public private(set) var files: [String] = []

    /// Creates `directory` (and its parents) if needed; `formats` are the files each workload gets (every registered
    /// format unless told otherwise).
    public init(
        directory: String, context: MachineContext,
        formats: [any ResultsFormat] = ResultsFormats.all
    ) throws(FileError) {
        self.directory = directory
        self.context = context
        self.formats = formats
        try Files.makeDirectories(directory)
    }

    /// Adds `result` to its workload's files and rewrites them, each format's whole: the cost grows with the
    /// workload's points so far, which is small beside measuring one.
    public func record(_ result: PointResult, of workload: any Workload) throws(FileError) {
        results[workload.name, default: []].append(result)
        let all = results[workload.name]!
        for format in formats {
            let text = format.render(all, headline: workload.headline, context: context)
            try write(text, to: format.fileName(for: workload.name))
        }
    }

    private func write(_ text: String, to name: String) throws(FileError) {
        let path = directory + "/" + name
        try Files.writeWhole(text, to: path)
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
