// README: swift-corelibs-foundation keeps an operation's dependents unretained, and cancelling a dependent does not
// take it out of its dependency's list. A cancelled dependent that finishes and is released before its dependency
// finishes leaves a dangling pointer behind; the dependency's finish then reads freed memory and the process crashes.
// Run:
//   swiftc -O findings/foundation-unretained-dependent/main.swift -o /tmp/unretained && /tmp/unretained [trials]
// Each trial runs in a child process (this program again, argument `child` or `control`), so a crash is reported,
// not suffered. The control keeps the cancelled dependents alive until the dependency has finished.
// Correct behaviour: Operation.cancel() makes a cancelled operation ready and the queue lets it finish, and the
// memory rules of Swift do not let a released object be used; so a dependency finishing after its cancelled,
// released dependent is harmless, and every child exits 0 (as the control does).
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

func child(keepDependents: Bool) -> Never {
    let gate = DispatchSemaphore(value: 0)
    let dependencyQueue = OperationQueue()
    let waiterQueue = OperationQueue()
    let dependency = BlockOperation { gate.wait() }
    dependencyQueue.addOperation(dependency)
    var kept: [Operation] = []
    for _ in 0..<100 {
        let waiter = BlockOperation {}
        waiter.addDependency(dependency)  // the dependency now lists waiter among its dependents
        waiterQueue.addOperation(waiter)
        waiter.cancel()  // cancelled: ready, so the queue finishes it and lets it go
        if keepDependents { kept.append(waiter) }
    }
    waiterQueue.waitUntilAllOperationsAreFinished()  // every waiter finished; released unless kept
    gate.signal()  // the dependency finishes and walks its dependents
    dependencyQueue.waitUntilAllOperationsAreFinished()
    withExtendedLifetime(kept) {}
    exit(0)
}

switch CommandLine.arguments.dropFirst().first {
case "child": child(keepDependents: false)
case "control": child(keepDependents: true)
default: break
}

let trials = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
for mode in ["child", "control"] {
    var crashes: [Int32: Int] = [:]
    var hangs = 0
    var clean = 0
    for _ in 0..<trials {
        let result = runChild([mode])
        if result.timedOut { hangs += 1 } else if let signal = result.signal { crashes[signal, default: 0] += 1 } else if result.exitCode == 0 { clean += 1 }
    }
    let what = mode == "child" ? "cancelled dependents released before their dependency finished" : "control, cancelled dependents kept alive until their dependency finished"
    print("\(what):")
    for (signal, count) in crashes.sorted(by: { $0.key < $1.key }) {
        print("  crashed with signal \(signal) (\(signalName(signal))) in \(count) of \(trials) trials")
    }
    if hangs > 0 { print("  hung (killed after 10 s) in \(hangs) of \(trials) trials") }
    print("  exited cleanly in \(clean) of \(trials) trials")
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
