import Contenders
import Glibc

/// Starts the running executable again as a child (`/proc/self/exe` with the arguments that make it call
/// `ConformanceChild.main`). Standard output and error go to unlinked temporary files (a pipe could fill up and
/// stall the child); the Swift backtracer is off, so a crash is quick and its message short.
public struct ReexecLauncher: ChildLauncher {
    /// The arguments, after the program name, that make the executable run `request`.
    public let arguments: @Sendable (ChildRequest) -> [String]

    public init(arguments: @escaping @Sendable (ChildRequest) -> [String]) {
        self.arguments = arguments
    }

    public func launch(_ request: ChildRequest) -> ChildOutcome {
        let executable = "/proc/self/exe"
        guard let output = TemporaryFile(), let errors = TemporaryFile() else {
            return ChildOutcome(termination: .exited(-1), standardError: "cannot create a temporary file: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.descriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.descriptor, 2)

        let argv = ([executable] + arguments(request)).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = Self.inheritedEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") }
        environment.append("SWIFT_BACKTRACE=enable=no")
        let envp = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }

        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            return ChildOutcome(termination: .exited(-1), standardError: "posix_spawn failed: \(spawned)")
        }
        let termination = Self.wait(for: pid, until: .now() + request.limit)
        return ChildOutcome(termination: termination, standardOutput: output.contents(), standardError: errors.contents())
    }

    private static func wait(for pid: pid_t, until deadline: Deadline) -> ChildTermination {
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
            Timing.pause(.milliseconds(2))
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
private final class TemporaryFile {
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
