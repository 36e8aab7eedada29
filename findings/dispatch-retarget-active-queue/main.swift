// README: on Linux, Swift's Dispatch overlay creates every queue with dispatch_queue_create_with_target, so no queue
// is a "legacy" queue, and changing the target of a queue that is already active stops the process (SIGILL).
// Run:
//   swiftc -O findings/dispatch-retarget-active-queue/main.swift -o /tmp/retarget && /tmp/retarget
// Each case runs in a child process (this program again, with the case as argument).
// The contract: dispatch_set_target_queue(3): "The target queue of a dispatch queue may be changed at any time"
// ("...the new target queue setting will take effect between block executions"); queue.h, for queues created
// with a target or activated: "After an initially inactive object has been activated, calling
// dispatch_set_target_queue() results in an assertion" -- except for legacy queues made with dispatch_queue_create.
// DispatchQueue.setTarget(queue:) documents no such restriction. Correct behaviour for a queue made with
// DispatchQueue(label:): the target changes between two blocks and both run.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

func child(_ mode: String) -> Never {
    let first = DispatchQueue(label: "first-target")
    let second = DispatchQueue(label: "second-target")
    switch mode {
    case "active":
        let queue = DispatchQueue(label: "retargeted")  // active from the start
        queue.sync {}
        queue.setTarget(queue: second)
        queue.sync {}
    case "active-with-target":
        let queue = DispatchQueue(label: "retargeted", target: first)
        queue.sync {}
        queue.setTarget(queue: second)
        queue.sync {}
    case "inactive":  // control: the documented way, retargeting before activation
        let queue = DispatchQueue(label: "retargeted", attributes: .initiallyInactive)
        queue.setTarget(queue: second)
        queue.activate()
        queue.sync {}
    default: exit(2)
    }
    exit(0)
}

if CommandLine.arguments.count > 1 { child(CommandLine.arguments[1]) }

let trials = 5
for (mode, what) in [
    ("active", "setTarget on an active queue made with DispatchQueue(label:)"),
    ("active-with-target", "setTarget on an active queue made with DispatchQueue(label:target:)"),
    ("inactive", "control: setTarget on an initially inactive queue, then activate"),
] {
    var outcomes: [String: Int] = [:]
    var sample = ""
    for _ in 0..<trials {
        let result = runChild([mode])
        let outcome = result.timedOut ? "hung" : result.signal.map { "crashed with signal \($0) (\(signalName($0)))" } ?? "exited \(result.exitCode)"
        outcomes[outcome, default: 0] += 1
        if sample.isEmpty { sample = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines) }
    }
    print("\(what):")
    for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(outcome) in \(count) of \(trials) runs") }
    print("  stderr: \(sample.isEmpty ? "(nothing)" : "\"\(sample.prefix(300))\"")")
}

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
