// A task waits, blocking its thread for at most 200 ms, for a task it has just made; how often did the new task run
// during the wait? With NIO's takeover (`takeover`) the new task is enqueued on the waiting task's own event loop; on
// Swift's default executor (`control`) any of libdispatch's threads takes it.
import Dispatch
import NIOCore
import NIOPosix
import Synchronization

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "takeover"
let trials = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
guard mode == "takeover" || mode == "control" else {
    print("usage: NIOTakeoverBlockedLoop takeover|control [trials]")
    exit(64)
}
if mode == "takeover" {
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        print("NIO's takeover was refused")
        exit(70)
    }
}

/// One trial: from a task, make a task that signals, then block this thread up to 200 ms waiting for the signal.
func trial() async -> Bool {
    let ran = DispatchSemaphore(value: 0)
    _ = Task { ran.signal() }
    return ran.wait(timeout: .now() + .milliseconds(200)) == .success
}

let done = DispatchSemaphore(value: 0)
let ranDuringWait = Atomic<Int>(0)
Task.detached {
    for _ in 0..<trials where await trial() { ranDuringWait.add(1, ordering: .relaxed) }
    done.signal()
}
done.wait()
let count = ranDuringWait.load(ordering: .relaxed)
print("\(mode): the new task ran while its maker waited in \(count) of \(trials) trials")
