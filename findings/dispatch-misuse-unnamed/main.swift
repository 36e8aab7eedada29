// README: swift-corelibs-libdispatch on Linux detects API misuse but stops the process with SIGILL and writes
// nothing: DISPATCH_CLIENT_CRASH records its text ("BUG IN CLIENT OF LIBDISPATCH: ...") only where Apple's crash
// reporter reads it, so a Linux user gets an illegal-instruction crash with no reason.
// Run:
//   swiftc -O findings/dispatch-misuse-unnamed/main.swift -o /tmp/misuse && /tmp/misuse
// Each misuse runs in a child process (this program again, with the case as argument) whose stderr is captured (the
// Swift runtime's own crash backtrace is switched off there with SWIFT_BACKTRACE=enable=no).
// Correct behaviour: the process stops (each case is documented misuse) and says why; libdispatch has the messages
// (quoted beside each case below), and prints them on Apple platforms.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

func child(_ mode: String) -> Never {
    switch mode {
    case "group-unbalanced-leave":  // 'Unbalanced call to dispatch_group_leave()'
        let group = DispatchGroup()
        group.leave()
    case "queue-over-resume":  // 'Over-resume of an object'
        let queue = DispatchQueue(label: "over-resumed")
        queue.resume()
    case "release-suspended-queue":  // 'Release of a suspended object'
        do {
            let queue = DispatchQueue(label: "suspended-then-released")
            queue.suspend()
        }
    case "sync-on-own-queue":  // 'dispatch_sync called on queue already owned by current thread'
        let queue = DispatchQueue(label: "self-synced")
        queue.sync { queue.sync {} }
    case "workitem-double-wait":  // 'A block object may not be waited for more than once'
        let item = DispatchWorkItem {}
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2, execute: item)
        DispatchQueue.global().async { item.wait() }
        usleep(50_000)
        item.wait()
    default:
        exit(2)
    }
    sleep(1)
    exit(0)
}

if CommandLine.arguments.count > 1 { child(CommandLine.arguments[1]) }

let trials = 3
var silent = 0
var total = 0
for (mode, message) in [
    ("group-unbalanced-leave", "Unbalanced call to dispatch_group_leave()"),
    ("queue-over-resume", "Over-resume of an object"),
    ("release-suspended-queue", "Release of a suspended object"),
    ("sync-on-own-queue", "dispatch_sync called on queue already owned by current thread"),
    ("workitem-double-wait", "A block object may not be waited for more than once"),
] {
    var outcomes: [String: Int] = [:]
    var sample = ""
    for _ in 0..<trials {
        let result = runChild([mode])
        let outcome = result.timedOut ? "hung (killed after 10 s)" : result.signal.map { "crashed with signal \($0) (\(signalName($0)))" } ?? "exited \(result.exitCode)"
        outcomes[outcome, default: 0] += 1
        let text = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { silent += 1 }
        total += 1
        if sample.isEmpty { sample = text }
    }
    print("\(mode) (libdispatch's message: '\(message)'):")
    for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(outcome) in \(count) of \(trials) runs") }
    print("  stderr: \(sample.isEmpty ? "(nothing)" : "\"\(sample.prefix(300))\"")")
}
print("nothing on stderr in \(silent) of \(total) misuse runs")

// --- Child processes: each trial runs this program again with arguments, so a crash is counted, not suffered. ---

struct ChildResult {
    var signal: Int32?  // the signal that ended it, nil if it exited
    var exitCode: Int32
    var timedOut: Bool
    var stderr: String
}

/// Runs this executable again with `arguments`, kills it after `timeout` seconds, and captures its standard error
/// (the Swift runtime's crash backtracer is turned off in the child, so stderr holds only what the library said).
func runChild(_ arguments: [String], timeout: Double = 10) -> ChildResult {
    let path = "/proc/self/exe"
    let errPath = "/tmp/finding-child-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).err"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    var env: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no")]
    var index = 0
    while let entry = environ[index] {
        if !String(cString: entry).hasPrefix("SWIFT_BACKTRACE=") { env.append(strdup(entry)) }
        index += 1
    }
    env.append(nil)
    defer { (argv + env).forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawn(&pid, path, &actions, nil, argv, env) == 0 else { fatalError("posix_spawn failed") }
    var status: Int32 = 0
    var timedOut = false
    let start = DispatchTime.now().uptimeNanoseconds
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > timeout {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            timedOut = true
            break
        }
        usleep(5_000)
    }
    let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    unlink(errPath)
    let termsig = status & 0x7f
    return ChildResult(signal: termsig == 0 ? nil : termsig, exitCode: (status >> 8) & 0xff, timedOut: timedOut, stderr: text)
}

func signalName(_ signal: Int32) -> String { String(cString: strsignal(signal)) }
