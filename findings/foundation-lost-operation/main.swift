// README: under load, swift-corelibs-foundation's OperationQueue sometimes loses track of an operation: after the two
// operations of a dependency cycle are cancelled and have finished, waitUntilAllOperationsAreFinished() never
// returns. This program repeats DispatchArena's op.dependency-cycle rule without the arena, with DispatchArena's --stress load beside
// (spinners and real-time preempters, below).
// Run:
//   swiftc -O findings/foundation-lost-operation/main.swift -o /tmp/lostop && /tmp/lostop [rounds] [stress|quiet] [pause-ms]
// A round: a queue; operations A and B depending on each other, added; 5 other operations added and awaited (then
// pause-ms, 0 by default, the arena's rule 200); the
// queue suspended, A and B cancelled, the queue resumed; A and B awaited finished (2 s); then
// waitUntilAllOperationsAreFinished() on another thread, given 2 s. A round that fails a wait is counted and left
// behind (its waiting thread stays blocked; the program exits at the end regardless).
// Correct behaviour (Apple, Operation.cancel(): a cancelled operation that is not executing becomes ready and
// finishes once its queue starts it; OperationQueue.waitUntilAllOperationsAreFinished(): returns once the queue has
// no operations, all of them finished): every round's wait returns at once.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

let arguments = CommandLine.arguments.dropFirst().map { $0 }
let rounds = arguments.count > 0 ? Int(arguments[0])! : 2000
let stress = arguments.count > 1 ? arguments[1] != "quiet" : true
let pauseMilliseconds = arguments.count > 2 ? Int(arguments[2])! : 0
let realTime = stress ? startStress() : false

/// Where the main loop stands, for the watchdog: a round that blocks the main thread itself for 10 s is reported
/// with the step it blocked in, and the program ends.
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var round = 0
    private var step = "start"
    private var changed = DispatchTime.now()
    func set(_ round: Int, _ step: String) { lock.withLock { (self.round, self.step, changed) = (round, step, .now()) } }
    var stalled: (Int, String)? {
        lock.withLock { DispatchTime.now().uptimeNanoseconds - changed.uptimeNanoseconds > 10_000_000_000 ? (round, step) : nil }
    }
}
let progress = Progress()

/// Asks `body` on another thread; nil if it gives no answer within 1 s (the thread stays blocked).
func withinOneSecond(_ body: @escaping @Sendable () -> String) -> String? {
    final class Box: @unchecked Sendable { var value = "" }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread { box.value = body(); done.signal() }
    return done.wait(timeout: .now() + 1) == .success ? box.value : nil
}
Thread.detachNewThread {
    while true {
        sleep(1)
        if let (round, step) = progress.stalled {
            print("  round \(round): the main thread blocked for 10 s in \(step); stopping")
            exit(1)
        }
    }
}

func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() > deadline { return false }
        usleep(200)
    }
    return true
}

var othersLate = 0
var cycleNotFinished = 0
var waitStuck = 0
var ranWork = 0
var examples: [String] = []
let start = DispatchTime.now()
for round in 0..<rounds {
    progress.set(round, "making the cycle and adding it")
    let queue = OperationQueue()
    let ran = DispatchSemaphore(value: 0)
    let first = BlockOperation { ran.signal() }
    let second = BlockOperation { ran.signal() }
    first.addDependency(second)
    second.addDependency(first)
    queue.addOperation(first)
    queue.addOperation(second)
    let others = DispatchGroup()
    for _ in 0..<5 {
        others.enter()
        queue.addOperation { others.leave() }
    }
    if others.wait(timeout: .now() + 2) == .timedOut { othersLate += 1 }
    if pauseMilliseconds > 0 { usleep(UInt32(pauseMilliseconds) * 1000) }  // the arena's rule keeps the cycle 200 ms
    progress.set(round, "isSuspended = true")
    queue.isSuspended = true
    progress.set(round, "cancel()")
    first.cancel()
    second.cancel()
    progress.set(round, "isSuspended = false")
    queue.isSuspended = false
    progress.set(round, "waiting for the cancelled cycle to finish")
    if !eventually(2, { first.isFinished && second.isFinished }) {
        cycleNotFinished += 1
        if examples.count < 3 { examples.append("round \(round): cancelled cycle not finished: isFinished \(first.isFinished)/\(second.isFinished), queue count \(queue.operationCount)") }
        continue
    }
    if ran.wait(timeout: .now()) == .success { ranWork += 1 }
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        queue.waitUntilAllOperationsAreFinished()
        drained.signal()
    }
    progress.set(round, "waitUntilAllOperationsAreFinished (on another thread)")
    if drained.wait(timeout: .now() + 2) == .timedOut {
        waitStuck += 1
        if examples.count < 3 {
            let count = withinOneSecond { "\(queue.operationCount)" } ?? "blocked (no answer within 1 s)"
            let states = withinOneSecond { queue.operations.map { "ready \($0.isReady) executing \($0.isExecuting) finished \($0.isFinished) cancelled \($0.isCancelled)" }.joined(separator: "; ") } ?? "blocked (no answer within 1 s)"
            examples.append("round \(round): waitUntilAllOperationsAreFinished stuck; the cycle's two isFinished \(first.isFinished)/\(second.isFinished); operationCount \(count); operations: \(states)")
        }
    }
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
print("\(rounds) rounds, \(stress ? "under load (preempters \(realTime ? "real-time" : "at normal priority"))" : "quiet"), pause \(pauseMilliseconds) ms, \(String(format: "%.1f", seconds)) s:")
print("  waitUntilAllOperationsAreFinished did not return within 2 s in \(waitStuck) of \(rounds) rounds")
print("  cancelled cycle operations not finished within 2 s in \(cycleNotFinished) of \(rounds)")
print("  the 5 other operations not all run within 2 s in \(othersLate) of \(rounds)")
print("  a cancelled cycle operation ran its work in \(ranWork) of \(rounds)")
for example in examples { print("  \(example)") }
exit(0)

// --- Load beside the test, as DispatchArena's --stress: per core, a spinning thread at normal priority and a
// preempter that sleeps 20-200 µs, then spins 0-100 µs at real-time priority (SCHED_FIFO 1, needs root or
// CAP_SYS_NICE; without it, normal priority), so threads are preempted at unlucky moments. ---

func spinFor(microseconds: Int) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1000
    while DispatchTime.now().uptimeNanoseconds < end {}
}

/// Starts the load for the rest of the process; returns whether the preempters got real-time priority.
@discardableResult
func startStress(perCore: Int = 1) -> Bool {
    let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let granted = DispatchSemaphore(value: 0)
    final class Flag: @unchecked Sendable { var realTime = true }
    let flag = Flag()
    for _ in 0..<(cores * perCore) {
        Thread.detachNewThread { while true { spinFor(microseconds: 100) } }
        Thread.detachNewThread {
            var parameters = sched_param(sched_priority: 1)
            if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0 { flag.realTime = false }
            granted.signal()
            while true {
                usleep(UInt32.random(in: 20...200))
                spinFor(microseconds: Int.random(in: 0...100))
            }
        }
    }
    for _ in 0..<(cores * perCore) { granted.wait() }
    return flag.realTime
}
