import Contenders
import Glibc

/// How a child process ended.
public enum ChildTermination: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    case timedOut
}

/// A finished child: how it ended and what it wrote on standard error.
public struct ChildOutcome: Sendable {
    public let termination: ChildTermination
    public let standardError: String

    public init(termination: ChildTermination, standardError: String) {
        self.termination = termination
        self.standardError = standardError
    }
}

/// Runs one misuse rule's trigger in a child process.
public protocol MisuseLauncher: Sendable {
    func launch(engine: String, rule: String, timeout: Duration) -> ChildOutcome
}

/// Decides a misuse rule from how its child ended: it must die, and say what it died of.
public enum MisuseVerdict {
    public static func judge(_ outcome: ChildOutcome, rule: any MisuseRule.Type) -> (Status, String) {
        let how: String
        switch outcome.termination {
        case .timedOut:
            return (.timeout, "the child hung instead of diagnosing the misuse")
        case .exited(0):
            return (.fail, "the engine let the misuse pass (the child exited normally)")
        case .exited(let code):
            how = "exit \(code)"
        case .signalled(let signal):
            how = "signal \(signal)"
        }
        let lines = outcome.standardError.split(separator: "\n").map(String.init)
        let named = lines.first { line in
            let lower = line.lowercased()
            return line.contains(rule.objectLabel) && rule.keywords.contains { lower.contains($0.lowercased()) }
        }
        if let named { return (.pass, "\(how): \(named)") }
        let said = lines.first(where: { !$0.isEmpty }) ?? "nothing on stderr"
        return (.fail, "died (\(how)) without naming '\(rule.objectLabel)' and the misuse; said: \(said)")
    }
}

/// The child side: run a misuse rule's trigger and, if it returns, report that the engine let it pass.
public enum MisuseChild {
    public static func run(engine: any Engine, rule: Rule, timeout: Duration) -> Never {
        // A backstop in case the trigger hangs and the parent is gone.
        alarm(UInt32(max(1, Int(timeout.seconds.rounded(.up)) + 1)))
        guard let misuse = rule.type as? any MisuseRule.Type else {
            report("rule \(rule.id) is not a misuse rule")
            exit(2)
        }
        trigger(misuse, on: engine)
        report("\(rule.id): the trigger returned; the engine let the misuse pass")
        exit(0)
    }

    private static func trigger<E: Engine>(_ rule: any MisuseRule.Type, on engine: E) {
        rule.trigger(engine)
    }

    private static func report(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}

/// Starts the running executable again as the misuse child, with standard error captured in an unlinked
/// temporary file (a pipe could fill up and stall the child) and the Swift backtracer off.
public struct ReexecLauncher: MisuseLauncher {
    /// The arguments (after the program name) that make the executable run `MisuseChild` for engine and rule.
    public let arguments: @Sendable (_ engine: String, _ rule: String, _ timeout: Duration) -> [String]

    public init(arguments: @escaping @Sendable (String, String, Duration) -> [String]) {
        self.arguments = arguments
    }

    public func launch(engine: String, rule: String, timeout: Duration) -> ChildOutcome {
        let executable = "/proc/self/exe"
        var template = Array("/tmp/arena-misuse-XXXXXX".utf8CString)
        let errorFile = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard errorFile >= 0 else { return ChildOutcome(termination: .exited(-1), standardError: "mkstemp failed") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(errorFile) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)

        let argv = ([executable] + arguments(engine, rule, timeout)).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = inheritedEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") }
        environment.append("SWIFT_BACKTRACE=enable=no")
        let envp = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }

        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            return ChildOutcome(termination: .exited(-1), standardError: "posix_spawn failed: \(spawned)")
        }
        let termination = waitForChild(pid, until: .now() + timeout)
        return ChildOutcome(termination: termination, standardError: readAll(errorFile))
    }

    private func waitForChild(_ pid: pid_t, until deadline: Deadline) -> ChildTermination {
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

    private func readAll(_ descriptor: Int32) -> String {
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

    private func inheritedEnvironment() -> [String] {
        var result: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            result.append(String(cString: entry))
            cursor += 1
        }
        return result
    }
}
