import ArenaContract
import CLinux
import Glibc

/// A child process of this program that the parent talks with while it lives: commands go down the child's standard
/// input, one line each, and answers come up a pipe on the child's descriptor 3, one line each. Standard output and
/// error go to unlinked temporary files, as `ChildProcess` has them, so a crash's words are kept and no pipe the
/// parent does not read can stall the child.
///
/// The benchmarks keep several of these alive at once, one per contender of a point, and hand the turn from one to the
/// next, so every wait here has a deadline and a child that does not answer in time is killed. A child waiting for a
/// command blocks in `read` and uses no CPU; `cpuNanoseconds()` measures what it used anyway. Every pipe end the
/// parent keeps is close-on-exec, so one child never holds another's pipes open. Starting one costs a `posix_spawn`
/// (a few milliseconds for this program); a command and its answer, two `write`s and a `poll`.
public final class ChildSession {
    /// The descriptor a child reads its answers' pipe from: the child writes its answers there.
    public static let answerDescriptor: Int32 = 3

    /// How a wait for an answer ended.
    public enum Answer: Sendable, Equatable {
        /// A whole line, without its newline.
        case line(String)
        /// The child closed its end (it exited or crashed) before a whole line came.
        case closed
        /// The deadline passed first; the child is still running.
        case timedOut
    }

    /// The child's process id.
    public let pid: pid_t
    private var commands: Int32
    private var answers: Int32
    private var pending: [UInt8] = []
    private let output: TemporaryFile
    private let errors: TemporaryFile
    private var termination: ChildTermination?

    /// Starts `executable` (this program by default) with `arguments` after the program name; `nil` with the reason
    /// when a pipe, a temporary file or the spawn failed.
    public static func start(_ arguments: [String], executable: String = "/proc/self/exe") -> Result<ChildSession, SpawnError> {
        guard let output = TemporaryFile(), let errors = TemporaryFile() else {
            return .failure(SpawnError("cannot create a temporary file: errno \(errno)"))
        }
        var down: [Int32] = [-1, -1]
        var up: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&down) == 0 else { return .failure(SpawnError("pipe2: errno \(errno)")) }
        guard clinux_pipe_cloexec(&up) == 0 else {
            close(down[0])
            close(down[1])
            return .failure(SpawnError("pipe2: errno \(errno)"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 leaves the new descriptors without close-on-exec: the child keeps exactly these four.
        posix_spawn_file_actions_adddup2(&actions, down[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output.descriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.descriptor, 2)
        posix_spawn_file_actions_adddup2(&actions, up[1], answerDescriptor)

        let argv = ([ChildProcess.argumentZero(for: executable)] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = ChildProcess.childEnvironment().map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        // The child's ends are the child's now (or nobody's).
        close(down[0])
        close(up[1])
        guard spawned == 0 else {
            close(down[1])
            close(up[0])
            return .failure(SpawnError("posix_spawn failed: \(spawned)"))
        }
        // A child that dies must not kill the parent with SIGPIPE on the next command.
        signal(SIGPIPE, SIG_IGN)
        return .success(ChildSession(pid: pid, commands: down[1], answers: up[0], output: output, errors: errors))
    }

    private init(pid: pid_t, commands: Int32, answers: Int32, output: TemporaryFile, errors: TemporaryFile) {
        self.pid = pid
        self.commands = commands
        self.answers = answers
        self.output = output
        self.errors = errors
    }

    deinit {
        if termination == nil { _ = end(until: .now()) }
    }

    /// Writes `line` and a newline to the child's standard input; false when the child no longer reads it.
    @discardableResult
    public func send(_ line: String) -> Bool {
        guard commands >= 0 else { return false }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += count
        }
        return true
    }

    /// The next line the child writes on its answer pipe, waiting no later than `deadline`.
    public func receive(until deadline: Deadline) -> Answer {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return .line(line)
            }
            guard answers >= 0 else { return .closed }
            let now = Deadline.now()
            guard now < deadline else { return .timedOut }
            let left = (deadline - now).seconds * 1000
            var poller = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left.rounded(.up), 60_000)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = read(answers, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(answers)
                answers = -1
                continue
            }
            pending += buffer[0..<count]
        }
    }

    /// The CPU time every thread of the child has run so far, in nanoseconds, from /proc/PID/task/*/schedstat (the
    /// scheduler's own nanosecond account, where /proc/PID/stat counts 10 ms ticks); `nil` once it is gone. A thread
    /// that exited is no longer listed, so the sum can drop between two readings. Costs a directory listing and a
    /// small read per thread.
    public func cpuNanoseconds() -> UInt64? {
        guard termination == nil, let directory = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(directory) }
        var total: UInt64 = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            // The first field of schedstat: time spent on a CPU, in nanoseconds.
            guard let text = Self.readSmall("/proc/\(pid)/task/\(name)/schedstat"),
                let first = text.split(separator: " ").first, let value = UInt64(first)
            else { continue }
            total += value
        }
        return total
    }

    /// Ends the session: closes the child's standard input (a child waiting for a command then leaves), waits for
    /// it to exit until `deadline`, kills it past that, and returns how it ended with what it wrote. Idempotent.
    public func end(until deadline: Deadline) -> ChildOutcome {
        if commands >= 0 {
            close(commands)
            commands = -1
        }
        if answers >= 0 {
            close(answers)
            answers = -1
        }
        let ending = termination ?? ChildProcess.wait(for: pid, until: deadline)
        termination = ending
        return ChildOutcome(termination: ending, standardOutput: output.contents(), standardError: errors.contents())
    }

    /// Kills the child at once and reaps it; what it wrote is still there for `end`.
    public func kill() {
        guard termination == nil else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        termination = .timedOut
    }

    private static func readSmall(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    // MARK: The child's side

    /// The next command line on standard input, blocking (no CPU) until one comes; `nil` when the parent closed it
    /// or died.
    public static func nextCommand() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(0, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Writes `line` and a newline on the answer pipe, in one `write`.
    public static func answer(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(answerDescriptor, $0, strlen($0)) }
    }
}

/// Why a child could not be started.
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
