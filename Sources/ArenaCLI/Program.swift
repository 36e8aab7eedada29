import Bench
import Glibc
import Harness

/// What the running program says about itself: its name (this package's `arena`, or an author's `my-arena`, so usage
/// and errors name the program the user typed), the command line it was given, and the commit it was built from.
enum Program {
    /// The program's name: the last component of the path it was started by.
    static let name: String = {
        let path = CommandLine.arguments.first ?? "arena"
        let last = path.split(separator: "/").last.map(String.init) ?? path
        return last.isEmpty ? "arena" : last
    }()

    /// Today's local date, `2026-12-07`: what default folder names carry.
    static var today: String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    /// `count` and `noun`, the noun plural unless the count is one: "1 file", "3 files".
    static func count(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    /// The command line, as a shell would take it back: the program's name and every argument, quoted where needed.
    static var commandLine: String {
        ([name] + CommandLine.arguments.dropFirst()).map(quoted).joined(separator: " ")
    }

    /// An argument as a shell word: as is when it holds only safe characters, else single-quoted.
    static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=,@%+".contains($0) }
        return !word.isEmpty && safe ? word : "'" + word.replacing("'", with: "'\\''") + "'"
    }

    /// The commit the program was built from: `ARENA_COMMIT` when set (scripts that know better set it), else
    /// `git describe --always --dirty` in the checkout holding the executable (a build folder lies inside its
    /// package); `nil` when neither answers. Costs one short child process.
    static func commit() -> String? {
        if let given = getenv("ARENA_COMMIT").map({ String(cString: $0) }), !given.isEmpty { return given }
        guard let path = executablePath else { return nil }
        let directory = path.split(separator: "/").dropLast().joined(separator: "/")
        let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let candidates = search.split(separator: ":").map { "\($0)/git" }
        guard let git = candidates.first(where: { access($0, X_OK) == 0 }) else { return nil }
        let outcome = ChildProcess.run(
            ["-C", "/" + directory, "describe", "--always", "--dirty", "--abbrev=12"], executable: git, limit: .seconds(5))
        guard outcome.termination == ChildTermination.exited(0) else { return nil }
        let line = outcome.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? nil : line
    }

    /// This program's own path, read from /proc/self/exe (one `readlink`): what valgrind must be given, where the
    /// checkout holding the build is, and the folder the preloadable library is built into. `nil` when unreadable.
    static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
