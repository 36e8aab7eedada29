import Glibc

/// A fresh directory under /tmp (`mkdtemp`) for a check or a measurement, removed with the files in it by `remove()`.
/// Making it costs one system call; it holds only its path.
public struct ScratchDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes `/tmp/arena-NAME-XXXXXX`.
    public init(_ name: String) throws(SystemCallError) {
        var template = Array("/tmp/arena-\(name)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemCallError("mkdtemp", errno)
        }
        path = String(cString: made)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the files directly inside the directory, then the directory (nothing here makes subdirectories).
    public func remove() {
        if let listing = opendir(path) {
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(file(name)) }
            }
            closedir(listing)
        }
        rmdir(path)
    }
}
