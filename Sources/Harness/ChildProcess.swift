import ArenaContract
import Glibc

/// How a child process ended.
public enum ChildTermination: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    /// The parent killed it when its time limit passed.
    case timedOut
}

/// A finished child: how it ended and what it wrote.
public struct ChildOutcome: Sendable {
    public let termination: ChildTermination
    public let standardOutput: String
    public let standardError: String

    public init(termination: ChildTermination, standardOutput: String = "", standardError: String) {
        self.termination = termination
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The first of `lines` worth quoting (not blank), or a phrase saying there was none.
    public static func firstLine(of lines: [Substring]) -> String {
        lines.first { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? "nothing on stderr"
    }
}

/// Runs the current executable again as a child process (`/proc/self/exe` with other arguments) and waits for it.
///
/// Conformance runs every rule this way and the benchmarks every point: a deadlocked engine keeps its stuck threads
/// to itself, a crash ends one child instead of the run, and each child starts from a clean process (threads, peak
/// memory). Standard output and error go to unlinked temporary files, since a pipe could fill up and stall the child;
/// the Swift backtracer is off, so a crash is quick and its message short. Starting a child costs a few milliseconds.
public enum ChildProcess {
    /// Runs `executable` (this program by default) with `arguments` (after the program name) and `environment`'s
    /// `NAME=value` entries beside this process's, killing it once `limit` passed.
    public static func run(
        _ arguments: [String], executable: String = "/proc/self/exe", environment: [String] = [], limit: Duration
    ) -> ChildOutcome {
        guard let output = TemporaryFile(), let errors = TemporaryFile() else {
            return ChildOutcome(termination: .exited(-1), standardError: "cannot create a temporary file: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.descriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.descriptor, 2)

        let argv = ([ChildProcess.argumentZero(for: executable)] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let names = Set(environment.map { $0.prefix { $0 != "=" } })
        let envp = (childEnvironment().filter { !names.contains($0.prefix { $0 != "=" }) } + environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }

        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            return ChildOutcome(termination: .exited(-1), standardError: "posix_spawn failed: \(spawned)")
        }
        let termination = wait(for: pid, until: .now() + limit)
        return ChildOutcome(termination: termination, standardOutput: output.contents(), standardError: errors.contents())
    }

    /// The name a child is started under: this program's own (`argv[0]`) when it is this program started again, so
    /// it names itself as its parent does (an author's `my-arena`, not `exe`); else the executable's path.
    static func argumentZero(for executable: String) -> String {
        executable == "/proc/self/exe" ? (CommandLine.arguments.first ?? executable) : executable
    }

    /// The environment a child gets: this process's, with the Swift backtracer off (a crash is quick and says little).
    static func childEnvironment() -> [String] {
        inheritedEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") } + ["SWIFT_BACKTRACE=enable=no"]
    }

    /// Waits for `pid` to exit, polling every 2 ms, and kills it once `deadline` passed.
    static func wait(for pid: pid_t, until deadline: Deadline) -> ChildTermination {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR { return .exited(-1) }
            if Deadline.now() >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return .timedOut
            }
            Threads.sleep(.milliseconds(2))
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private static func inheritedEnvironment() -> [String] {
        var result: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            result.append(String(cString: entry))
            cursor += 1
        }
        return result
    }
}

/// An unlinked temporary file: it disappears when closed, whatever happens to the child.
final class TemporaryFile {
    let descriptor: Int32

    init?() {
        var template = Array("/tmp/arena-child-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit { close(descriptor) }

    func contents() -> String {
        lseek(descriptor, 0, SEEK_SET)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
