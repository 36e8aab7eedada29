// README: see Package.swift. Each case runs in a child process (this program again, with the case as argument), so
// the reporter says "crashed with signal N" and what the child wrote on stderr.
import Dispatch
import Foundation
import NIOCore
import NIOPosix

setvbuf(stdout, nil, _IOLBF, 0)

actor ActorOnLoop {
    let loop: any EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }
    init(_ loop: any EventLoop) { self.loop = loop }
    var touched = 0
    func touch() { touched += 1 }
}

/// For contrast: an executor of our own that answers isIsolatingCurrentContext, as NIO's does not.
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "contrast")
    let key = DispatchSpecificKey<Bool>()
    init() { queue.setSpecific(key: key, value: true) }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
    func isIsolatingCurrentContext() -> Bool? { DispatchQueue.getSpecific(key: key) == true }
    func checkIsolated() { precondition(DispatchQueue.getSpecific(key: key) == true) }
}

actor ActorOnQueue {
    let executor = QueueExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    func touch() {}
}

func child(_ mode: String) -> Never {
    switch mode {
    case "nio-off-loop":
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        ActorOnLoop(group.next()).assumeIsolated { $0.touch() }  // must stop the process, naming ActorOnLoop
        exit(0)
    case "nio-other-loop":
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let (first, second) = (group.next(), group.next())
        let actor = ActorOnLoop(first)
        try! second.submit { actor.assumeIsolated { $0.touch() } }.wait()
        exit(0)
    case "nio-on-loop":
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let actor = ActorOnLoop(loop)
        let touched = try! loop.submit { actor.assumeIsolated { $0.touch(); return $0.touched } }.wait()
        exit(touched == 1 ? 0 : 1)
    case "queue-off-queue":
        ActorOnQueue().assumeIsolated { $0.touch() }
        exit(0)
    default:
        exit(2)
    }
}

if CommandLine.arguments.count > 1 { child(CommandLine.arguments[1]) }

let trials = 5
let cases: [(String, String)] = [
    ("nio-off-loop", "assumeIsolated on an actor on a NIO loop, from the main thread (misuse: must stop, naming the actor)"),
    ("nio-other-loop", "assumeIsolated on an actor on a NIO loop, from another loop of the group (misuse: must stop, naming the actor)"),
    ("nio-on-loop", "assumeIsolated on an actor on a NIO loop, from that loop (correct use: must succeed)"),
    ("queue-off-queue", "contrast: assumeIsolated on an actor on an executor that implements isIsolatingCurrentContext, off it"),
]
for (mode, what) in cases {
    var outcomes: [String: Int] = [:]
    var named = 0
    var sample = ""
    for _ in 0..<trials {
        let result = runChild([mode])
        let outcome = result.timedOut ? "hung" : result.signal.map { "crashed with signal \($0) (\(signalName($0)))" } ?? "exited \(result.exitCode)"
        outcomes[outcome, default: 0] += 1
        if result.stderr.contains("ActorOnLoop") || result.stderr.contains("ActorOnQueue") { named += 1 }
        if sample.isEmpty { sample = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines) }
    }
    print("\(what):")
    for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(outcome) in \(count) of \(trials) runs") }
    print("  stderr named the actor in \(named) of \(trials) runs; stderr: \(sample.isEmpty ? "(nothing)" : "\"\(sample.prefix(300))\"")")
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
