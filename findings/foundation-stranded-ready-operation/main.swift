// README: swift-corelibs-foundation's OperationQueue can strand an operation that is ready: when the operation's last
// unfinished dependency finishes while `addOperation` is adding it, the queue reports the operation ready
// (`isReady` true), counts it (`operationCount`), and never starts it, until something else makes the queue look at
// its operations again (another operation added or finishing, `isSuspended = false`, a new width).
//
// Run:
//   swiftc -O findings/foundation-stranded-ready-operation/main.swift -o /tmp/stranded && /tmp/stranded [mode] [rounds]
// mode `aimed` (the default): each round makes the race likely. A dependency X is added to a fresh queue and spins
// until the main thread says go; the main thread says go, spins a random 0-20 µs and adds an operation S depending
// on X, so X finishes while S is being added, the rounds sweeping the moment.
// mode `widened`: as `aimed`, but S's `isReady`, asked on the main thread, returns the value it read 1 ms later (an
// override, as a subclass may make): the adding thread stands in the window for 1 ms, as a preempted thread would.
// Every other round is the control: S reports ready (X has finished and lowered its count) before it is added.
// mode `graph`: DispatchArena's op-graph workload without the arena: per round, 8 layers of 8 block operations, each
// depending on two of the layer before, each layer added with addOperations before the next is built, and a sink
// depending on the last layer; then a chain of 100 and its sink; one queue for the whole run.
// A round waits 2 s for S (the sink) to run. A stranded round is then asked once more: S's isReady, isExecuting,
// isFinished and the queue's operationCount; then an empty operation is added to the same queue (a kick: adding
// makes the queue schedule again) and S is given 2 s more.
//
// Correct behaviour (Apple, Operation.isReady: "the operation queue ... uses the value of this property to determine
// when it is safe to start the operation"; OperationQueue: "operations ... remain in the queue until they finish";
// an operation whose dependencies have all finished is started): every round's S runs without a kick.
//
// The cause, read in swift-corelibs-foundation's Sources/Foundation/Operation.swift (the version Swift 6.3 ships):
// `_addOperations` stores `op._cachedIsReady = op.isReady`, a read and a later write under two different locks. X's
// finish, landing between them, lowers S's count to 0 and sets `_cachedIsReady = true`, but S has no queue yet
// (`_adopt` comes after), so nobody is asked to schedule; then the stale `false` is written over it. The queue's
// `_schedule()` that follows skips S, sees its count at 0 (`_fetchCachedIsReady(&retest)`), and after unlocking sets
// `_cachedIsReady = true` without scheduling again. Nothing else on the queue finishes: S is stranded.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

let arguments = CommandLine.arguments.dropFirst().map { $0 }
let mode = arguments.first ?? "aimed"
guard ["aimed", "widened", "graph"].contains(mode) else {
    print("usage: stranded [aimed|widened|graph] [rounds] [sampled] [stress]")
    exit(64)
}
let rounds = arguments.count > 1 ? Int(arguments[1])! : (mode == "aimed" ? 100_000 : mode == "widened" ? 100 : 20_000)
let options = Set(arguments.dropFirst(2))
let sampled = options.contains("sampled")
let stressed = options.contains("stress")
if sampled { startSampler() }
let realTime = stressed ? startStress() : false

/// A flag and a counter the threads share, each access under a lock.
final class Shared: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func set(_ new: Int) { lock.withLock { value = new } }
    var get: Int { lock.withLock { value } }
    func add() { lock.withLock { value += 1 } }
}

/// What a stranded round looked like.
struct Stranded {
    var round: Int
    var isReady: Bool
    var isExecuting: Bool
    var isFinished: Bool
    var operationCount: Int
    var ranAfterKick: Bool

    var line: String {
        """
        round \(round): not run within 2 s; isReady \(isReady), isExecuting \(isExecuting), isFinished \(isFinished), \
        operationCount \(operationCount); ran after an empty operation was added: \(ranAfterKick)
        """
    }
}

/// Waits up to 2 s for `ran`; on a timeout, reads the sink and the queue, kicks the queue and waits 2 s more.
func awaitSink(_ ran: DispatchSemaphore, sink: Operation, on queue: OperationQueue, round: Int) -> Stranded? {
    if ran.wait(timeout: .now() + 2) == .success { return nil }
    var stranded = Stranded(
        round: round, isReady: sink.isReady, isExecuting: sink.isExecuting, isFinished: sink.isFinished,
        operationCount: queue.operationCount, ranAfterKick: false)
    queue.addOperation {}
    stranded.ranAfterKick = ran.wait(timeout: .now() + 2) == .success
    return stranded
}

/// A block operation whose `isReady`, asked on the main thread, answers 1 ms after it read the value: as if the
/// thread were preempted there, which the scheduler may do at any instant. Foundation's documentation lets a subclass
/// override `isReady` (it must include super's answer, which this one returns unchanged).
final class SlowToAnswer: BlockOperation, @unchecked Sendable {
    convenience init(block: @escaping @Sendable () -> Void) {
        self.init()
        addExecutionBlock(block)
    }

    override var isReady: Bool {
        let ready = super.isReady
        if Thread.isMainThread { usleep(1_000) }
        return ready
    }
}

/// Spins on the monotonic clock.
@Sendable func spin(nanoseconds: UInt64) {
    let end = DispatchTime.now().uptimeNanoseconds + nanoseconds
    while DispatchTime.now().uptimeNanoseconds < end {}
}

/// A thread that wakes every 5 ms and lists /proc/self/task, as DispatchArena's resource sampler does while a trial
/// runs: on a machine with few cores its wake-ups preempt the other threads at moments nobody chooses.
func startSampler() {
    Thread.detachNewThread {
        while true {
            usleep(5_000)
            guard let directory = opendir("/proc/self/task") else { continue }
            var threads = 0
            while readdir(directory) != nil { threads += 1 }
            closedir(directory)
        }
    }
}

var strandedRounds: [Stranded] = []
var strandedControls = 0
var spinSink = 0
let start = DispatchTime.now()

switch mode {
case "aimed", "widened":
    let go = Shared()
    for round in 0..<rounds {
        let queue = OperationQueue()
        let started = DispatchSemaphore(value: 0)
        let ran = DispatchSemaphore(value: 0)
        let x = BlockOperation {
            started.signal()
            while go.get != round + 1 {}
        }
        let s = mode == "widened" ? SlowToAnswer(block: { ran.signal() }) : BlockOperation { ran.signal() }
        s.addDependency(x)
        queue.addOperation(x)
        started.wait()
        go.set(round + 1)
        // X is finishing now, on another thread, for some microseconds; add S a random 0-20 µs into it, so the
        // rounds sweep the moment X's finish reaches S.
        if mode == "aimed" { spin(nanoseconds: UInt64.random(in: 0...20_000)) }
        // The control: in widened mode every other round waits until S reports ready before adding it, so the slow
        // isReady reads true and has nothing to race with. (Waiting for X with waitUntilFinished() is not enough:
        // X reports isFinished before it has lowered its dependents' counts, and such a control was stranded in 1 of
        // 10 rounds.)
        let control = mode == "widened" && round % 2 == 1
        if control { while !s.isReady {} }
        queue.addOperation(s)
        if let stranded = awaitSink(ran, sink: s, on: queue, round: round) {
            if control { strandedControls += 1 } else { strandedRounds.append(stranded) }
        }
    }
default:
    let queue = OperationQueue()
    queue.name = "op-graph"
    for round in 0..<rounds {
        for (width, depth) in [(8, 8), (1, 100)] {
            let ran = DispatchSemaphore(value: 0)
            let count = Shared()
            var previous: [BlockOperation] = []
            for level in 0..<depth {
                var current: [BlockOperation] = []
                for index in 0..<width {
                    let operation = BlockOperation { count.add() }
                    operation.name = "op-graph"
                    if level > 0 {
                        for parent in Set([index, (index + 1) % width]) { operation.addDependency(previous[parent]) }
                    }
                    current.append(operation)
                }
                queue.addOperations(current, waitUntilFinished: false)
                previous = current
            }
            let sink = BlockOperation { ran.signal() }
            sink.name = "op-graph.sink"
            for operation in previous { sink.addDependency(operation) }
            queue.addOperation(sink)
            if let stranded = awaitSink(ran, sink: sink, on: queue, round: round) { strandedRounds.append(stranded) }
        }
    }
}

let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
let load = [sampled ? "sampled" : nil, stressed ? "under load (preempters \(realTime ? "real-time" : "at normal priority"))" : nil]
print("\(([mode] + load.compactMap { $0 }).joined(separator: ", ")), \(rounds) rounds\(mode == "graph" ? " (a layered graph and a chain each)" : ""), \(cores) cores, \(String(format: "%.1f", seconds)) s:")
let raced = mode == "widened" ? (rounds + 1) / 2 : rounds
print("  a ready operation not started within 2 s in \(strandedRounds.count) of \(raced) rounds\(mode == "graph" ? " (\(2 * rounds) sinks)" : "")")
if mode == "widened" { print("  the control (S reported ready before it was added): not started in \(strandedControls) of \(rounds - raced)") }
print("  of those, started once an empty operation was added to the queue: \(strandedRounds.filter(\.ranAfterKick).count)")
for stranded in strandedRounds.prefix(5) { print("  \(stranded.line)") }
exit(strandedRounds.isEmpty ? 0 : 1)

// --- Load beside the rounds (option `stress`), as DispatchArena's --stress: per core, a spinning thread at normal
// priority and a preempter that sleeps 20-200 µs, then spins 0-100 µs at real-time priority (SCHED_FIFO 1, needs root
// or CAP_SYS_NICE; without it, normal priority), so threads are preempted at unlucky moments. ---

/// Starts the load for the rest of the process; returns whether the preempters got real-time priority.
func startStress() -> Bool {
    let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let granted = DispatchSemaphore(value: 0)
    final class Flag: @unchecked Sendable { var realTime = true }
    let flag = Flag()
    for _ in 0..<cores {
        Thread.detachNewThread { while true { spin(nanoseconds: 100_000) } }
        Thread.detachNewThread {
            var parameters = sched_param(sched_priority: 1)
            if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0 { flag.realTime = false }
            granted.signal()
            while true {
                usleep(UInt32.random(in: 20...200))
                spin(nanoseconds: UInt64.random(in: 0...100_000))
            }
        }
    }
    for _ in 0..<cores { granted.wait() }
    return flag.realTime
}
