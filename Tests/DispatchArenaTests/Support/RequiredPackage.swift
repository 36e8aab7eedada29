import Foundation
import Testing

/// A package some tests need beside the Swift toolchain: Debian's, or PyPI's for the `python3` on PATH.
/// `scripts/require-packages.sh` installs them all (CI runs it first); a newcomer who runs `swift test` before it gets
/// the tests that need them skipped, each with one line saying what to install (`require`).
enum RequiredPackage: String {
    case gnuplot
    case compareScript = "Google Benchmark's compare.py"
    case sciPy = "SciPy"
    case valgrind
    case pytestBenchmark = "pytest-benchmark"
    case binutils

    /// The command that installs it.
    var installCommand: String {
        switch self {
        case .gnuplot: "apt-get install gnuplot-nox"
        case .compareScript: "apt-get install libbenchmark-tools"
        case .sciPy: "apt-get install python3-scipy"
        case .valgrind: "apt-get install valgrind"
        case .pytestBenchmark: "python3 -m pip install pytest-benchmark"
        case .binutils: "apt-get install binutils"
        }
    }

    /// Whether it is installed here.
    var isInstalled: Bool {
        switch self {
        case .gnuplot, .valgrind, .binutils:
            let program = self == .binutils ? "strip" : rawValue
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
        case .compareScript:
            return FileManager.default.fileExists(atPath: "/usr/share/benchmark/compare.py")
        case .sciPy, .pytestBenchmark:
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", self == .sciPy ? "import scipy" : "import pytest_benchmark"]
            python.standardOutput = FileHandle.nullDevice
            python.standardError = FileHandle.nullDevice
            guard (try? python.run()) != nil else { return false }
            python.waitUntilExit()
            return python.terminationStatus == 0
        }
    }

    /// Whether it is installed. When it is not: under CI (`CI=true` in the environment, as `.ci/run` sets it) the test
    /// fails with one issue naming the command that installs it, and this returns false; elsewhere the test is
    /// cancelled (Swift Testing reports it skipped) with the same line, so a newcomer's first `swift test` is green and
    /// says what it did not check.
    func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        if isInstalled { return true }
        let message =
            "\(rawValue) is not installed: install it with '\(installCommand)', or run "
            + "scripts/require-packages.sh as root (it installs gnuplot, compare.py, SciPy, valgrind and pytest-benchmark)"
        guard Self.underCI else { try Test.cancel(Comment(rawValue: "skipped: " + message), sourceLocation: sourceLocation) }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return false
    }

    /// Whether the tests run under CI, where a missing package fails its tests instead of skipping them.
    static var underCI: Bool { ProcessInfo.processInfo.environment["CI"].map { ["true", "1"].contains($0.lowercased()) } ?? false }
}
