import Glibc

/// The few file-system operations the results code needs, on Glibc (Foundation's file manager is not linked here).
public enum Files {
    /// A whole file as UTF-8 text, or `nil` when it cannot be read.
    public static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `path` names a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in directory `path` (without "." and ".."), sorted; empty when it cannot be read.
    public static func names(in path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Writes `text` to `path` whole: into a temporary file beside it, renamed over `path`, so a reader sees the old
    /// file or the new one, never a part.
    public static func writeWhole(_ text: String, to path: String) throws(FileError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + "/." + name + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: temporary, errno: errno) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = FileError(path: temporary, errno: errno)
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw FileError(path: path, errno: errno) }
    }

    /// `mkdir -p`.
    public static func makeDirectories(_ path: String) throws(FileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST { throw FileError(path: current, errno: errno) }
        }
        guard Files.isDirectory(path) else { throw FileError(path: path, errno: ENOTDIR) }
    }
}

/// A file that could not be written.
public struct FileError: Error, CustomStringConvertible {
    public let path: String
    public let errno: Int32

    /// The error for `path`, which failed with `errno`.
    public init(path: String, errno: Int32) {
        self.path = path
        self.errno = errno
    }

    public var description: String { "cannot write '\(path)': \(String(cString: strerror(errno)))" }
}
