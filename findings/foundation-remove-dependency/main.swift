// README: swift-corelibs-foundation's Operation.removeDependency(_:) never makes an operation ready when the
// removed dependency is its last unfinished one. Run:
//   swiftc -O findings/foundation-remove-dependency/main.swift -o /tmp/rmdep && /tmp/rmdep
// Correct behaviour (Apple, Operation.removeDependency(_:): "This method may change the readiness of the current
// operation"; Operation.isReady: "becomes true when all dependencies finish"): once B's only unfinished dependency A
// is removed, B.isReady is true and, if B sits in a queue, it runs without A ever finishing.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

let trials = 20
var readyAfterRemove = 0
var ranAfterRemove = 0
for _ in 0..<trials {
    let gate = DispatchSemaphore(value: 0)
    let a = BlockOperation { gate.wait() }  // never finishes until released below
    let ran = DispatchSemaphore(value: 0)
    let b = BlockOperation { ran.signal() }
    b.addDependency(a)
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    queue.addOperation(b)  // B waits in the queue; A is not in any queue yet
    b.removeDependency(a)
    // Give the queue a moment to notice.
    if ran.wait(timeout: .now() + 1.0) == .success { ranAfterRemove += 1 }
    if b.isReady { readyAfterRemove += 1 }
    // Clean up without waiting on the queue: A runs and finishes; B, no longer depending on A, may stay stuck (a
    // waitUntilAllOperationsAreFinished here would then never return), so it is cancelled and left behind.
    queue.addOperation(a)
    gate.signal()
    b.cancel()
}
print("removeDependency: B ran within 1 s after its last unfinished dependency was removed in \(ranAfterRemove) of \(trials) trials; B.isReady was true in \(readyAfterRemove) of \(trials)")
print(ranAfterRemove == trials && readyAfterRemove == trials ? "OK: behaves as documented" : "DEVIATION: removing the last unfinished dependency did not make the operation ready")
