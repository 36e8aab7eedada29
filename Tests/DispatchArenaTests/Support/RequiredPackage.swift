import Foundation
import Testing

/// A Debian package some tests need beside the Swift toolchain. `scripts/require-packages.sh` installs them all (CI
/// runs it first); a newcomer who runs `swift test` before it gets one line saying so, not an opaque expectation.
enum RequiredPackage: String {
    case gnuplot
    case compareScript = "Google Benchmark's compare.py"
    case sciPy = "SciPy"
    case valgrind

    /// The Debian package that provides it.
    var debianPackage: String {
        switch self {
        case .gnuplot: "gnuplot-nox"
        case .compareScript: "libbenchmark-tools"
        case .sciPy: "python3-scipy"
        case .valgrind: "valgrind"
        }
    }

    /// Whether it is installed here.
    var isInstalled: Bool {
        switch self {
        case .gnuplot, .valgrind:
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(rawValue)") }
        case .compareScript:
            return FileManager.default.fileExists(atPath: "/usr/share/benchmark/compare.py")
        case .sciPy:
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", "import scipy"]
            python.standardOutput = FileHandle.nullDevice
            python.standardError = FileHandle.nullDevice
            guard (try? python.run()) != nil else { return false }
            python.waitUntilExit()
            return python.terminationStatus == 0
        }
    }

    /// Whether it is installed; when it is not, records one issue naming the script that installs it.
    func require(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if isInstalled { return true }
        let message = "\(rawValue) is not installed: install it with 'apt-get install \(debianPackage)', or run "
            + "scripts/require-packages.sh as root (it installs gnuplot, compare.py, SciPy and valgrind)"
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return false
    }
}
