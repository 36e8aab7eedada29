// README: swift-corelibs-foundation's OperationQueue mishandles cancelled operations around a barrier block that waits
// (for an operation added before it). Two effects:
// - "add": addOperation(_:) of an operation cancelled before it is added never returns;
// - "cancel-all": cancelAllOperations() cancels the barrier too (its block never runs), and now and then the process
//   then crashes (SIGSEGV, in Operation.observeValue(forKeyPath:ofObject:) under OperationQueue._schedule).
// Run:
//   swiftc -O findings/foundation-cancel-around-barrier/main.swift -o /tmp/around && /tmp/around [trials]
// "add": each trial adds from a thread of its own and waits 2 s for the call to return; a call that does not return is
// counted and its thread left blocked (the program exits when done). Controls: the operation not cancelled, and the
// cancelled one added with no barrier waiting. "cancel-all": each trial is a child process (this program again,
// argument `child` or `control`) running 200 rounds; the control adds no barrier.
// Correct behaviour (Apple, OperationQueue.addBarrierBlock(_:): "invokes a block when the queue finishes all enqueued
// operations, and prevents subsequent operations from starting until the block has completed"; Operation.cancel():
// a cancelled operation still has to be started by its queue, which finishes it without running its work): adding
// returns at once in every case and the cancelled operation finishes once the barrier ran; cancelling every operation
// of a queue never crashes the process.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

/// One trial: whether `addOperation` returned within 2 s, and whether the operation then finished within 2 s more
/// (after the operation ahead of the barrier was let go).
func trial(cancelled: Bool, barrier: Bool) -> (returned: Bool, finished: Bool) {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let gate = DispatchSemaphore(value: 0)
    queue.addOperation(BlockOperation { gate.wait() })  // holds the queue, so the barrier waits
    if barrier { queue.addBarrierBlock {} }
    let late = BlockOperation {}
    if cancelled { late.cancel() }
    let added = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        queue.addOperation(late)
        added.signal()
    }
    let returned = added.wait(timeout: .now() + 2) == .success
    gate.signal()
    var finished = false
    let deadline = Date().addingTimeInterval(2)
    while !finished && Date() < deadline {
        finished = late.isFinished
        usleep(1000)
    }
    return (returned, finished)
}

/// "cancel-all", in a child: 200 rounds of a suspended queue holding an operation with a completion block and (unless
/// the control) a barrier waiting for it, all cancelled, then resumed and waited for.
func child(barrier: Bool) -> Never {
    for _ in 0..<200 {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.isSuspended = true
        let operation = BlockOperation {}
        operation.completionBlock = {}
        queue.addOperation(operation)
        if barrier { queue.addBarrierBlock {} }
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
    }
    exit(0)
}

switch CommandLine.arguments.dropFirst().first {
case "child": child(barrier: true)
case "control": child(barrier: false)
default: break
}

let trials = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10
let cases: [(String, Bool, Bool)] = [
    ("a cancelled operation added while a barrier waits", true, true),
    ("control: the same, not cancelled", false, true),
    ("control: cancelled, no barrier", true, false),
]
var deviated = false
for (name, cancelled, barrier) in cases {
    var returned = 0
    var finished = 0
    for _ in 0..<trials {
        let result = trial(cancelled: cancelled, barrier: barrier)
        if result.returned { returned += 1 }
        if result.finished { finished += 1 }
    }
    print("\(name): addOperation returned within 2 s in \(returned) of \(trials) trials; the operation finished in \(finished) of \(trials)")
    if returned < trials || finished < trials { deviated = true }
}
for (mode, name) in [("child", "cancelAllOperations with a barrier waiting"), ("control", "control: the same without the barrier")] {
    var crashed = 0
    var clean = 0
    for _ in 0..<trials {
        let result = runChild([mode])
        if result.signal != nil { crashed += 1 } else if !result.timedOut && result.exitCode == 0 { clean += 1 }
    }
    print("\(name), 200 rounds a process: crashed in \(crashed) of \(trials) processes, exited cleanly in \(clean)")
    if clean < trials { deviated = true }
}
print(deviated ? "DEVIATION: a cancelled operation behind a waiting barrier is never added, and cancelling a waiting barrier can crash the process" : "OK: behaves as documented")
exit(0)

struct ChildResult {
    let signal: Int32?
    let exitCode: Int32
    let timedOut: Bool
}

/// Runs this program again with `arguments`, its output discarded and Swift's backtracer off, killed after `timeout` s.
func runChild(_ arguments: [String], timeout: Double = 20) -> ChildResult {
    let path = "/proc/self/exe"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
    let start = Date()
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date().timeIntervalSince(start) > timeout {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            timedOut = true
            break
        }
        usleep(5_000)
    }
    let signal = status & 0x7f
    return ChildResult(signal: signal == 0 ? nil : signal, exitCode: (status >> 8) & 0xff, timedOut: timedOut)
}
