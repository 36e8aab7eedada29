// README: in the Swift 6.3 concurrency runtime, a task that prefers a task executor and calls an actor on a custom
// serial executor gives the actor away at an `await` inside the actor (withCheckedContinuation included) before the
// continuation's body runs: the runtime sees the task running on no task executor, unlike the one it prefers, and
// enqueues the task again (swift_task_switch's mustSwitchToRun; swiftlang/swift issue 85668). Another task's call
// then runs on the actor between a method's check of its state and the body that stores the continuation, and the
// wake-up it leaves is lost: two tasks taking turns through one actor hang.
// Run:
//   swiftc -O findings/swift-task-executor-hang/main.swift -o /tmp/teh && /tmp/teh [trials]
// Each trial runs in a child process (this program again, with the case as argument), given 8 s; a stuck child asks the actor
// what it holds and prints it.
// Correct behaviour (SE-0306 actors, SE-0392 custom actor executors, SE-0417 task executor preference: a preference
// says where non-isolated code runs and never weakens an actor's isolation; withCheckedContinuation runs its body
// synchronously in the caller's isolation, SE-0420): the actor stays isolated from the check through the body, no
// wake-up is lost, and every trial completes, as it does without the preference.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

/// A serial executor over a serial Dispatch queue (Linux has no DispatchSerialQueue to use directly).
final class QueueSerialExecutor: SerialExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "actor")
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}

/// A task executor over a concurrent Dispatch queue.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "pool", attributes: .concurrent)
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

let serialExecutor = QueueSerialExecutor()
let taskExecutor = QueueTaskExecutor()

/// Two parties take turns; a party whose turn it is not waits with its continuation stored.
protocol Turns: Actor {
    func take(_ me: Int) async
    func pass(_ me: Int)
    func state() -> String
}

actor CustomTurns: Turns {
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialExecutor.asUnownedSerialExecutor() }
    var turn = 0
    var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    func take(_ me: Int) async {
        if turn == me { return }
        await withCheckedContinuation { waiting[me] = $0 }  // isolated: no other call may run between the check and here
    }
    func pass(_ me: Int) {
        turn = 1 - me
        waiting.removeValue(forKey: turn)?.resume()
    }
    func state() -> String { "turn \(turn), parties waiting with a stored continuation: \(waiting.keys.sorted())" }
}

actor DefaultTurns: Turns {
    var turn = 0
    var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    func take(_ me: Int) async {
        if turn == me { return }
        await withCheckedContinuation { waiting[me] = $0 }
    }
    func pass(_ me: Int) {
        turn = 1 - me
        waiting.removeValue(forKey: turn)?.resume()
    }
    func state() -> String { "turn \(turn), parties waiting with a stored continuation: \(waiting.keys.sorted())" }
}

let turnsEach = 20_000

func play(_ turns: any Turns, preferring: Bool) -> Never {
    let done = DispatchSemaphore(value: 0)
    for me in 0..<2 {
        let body: @Sendable () async -> Void = {
            for _ in 0..<turnsEach {
                await turns.take(me)
                await turns.pass(me)
            }
            done.signal()
        }
        if preferring { Task.detached(executorPreference: taskExecutor, operation: body) } else { Task.detached(operation: body) }
    }
    let deadline = DispatchTime.now() + 8
    if done.wait(timeout: deadline) == .success, done.wait(timeout: deadline) == .success { exit(0) }
    // Stuck: ask the actor (it still answers) what it holds, and say so.
    Task.detached {
        let state = await turns.state()
        fputs("stuck after 8 s: \(state)\n", stderr)
        exit(3)
    }
    sleep(5)
    exit(4)
}

let cases: [(String, String)] = [
    ("custom-preferring", "actor on a custom serial executor, tasks preferring a task executor"),
    ("custom-plain", "control: actor on a custom serial executor, tasks without a preference"),
    ("default-preferring", "control: default actor, tasks preferring a task executor"),
]

if CommandLine.arguments.count > 1, let mode = cases.first(where: { $0.0 == CommandLine.arguments[1] })?.0 {
    switch mode {
    case "custom-preferring": play(CustomTurns(), preferring: true)
    case "custom-plain": play(CustomTurns(), preferring: false)
    default: play(DefaultTurns(), preferring: true)
    }
}

let trials = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 5
print("two tasks taking \(turnsEach) turns each through one actor, \(trials) trials of each case, 8 s each:")
for (mode, what) in cases {
    var outcomes: [String: Int] = [:]
    var times: [Double] = []
    var sample = ""
    for _ in 0..<trials {
        let start = DispatchTime.now()
        let result = runChild([mode], timeout: 15)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let outcome = result.timedOut ? "hung (killed after 15 s)" : result.signal.map { "crashed with signal \($0) (\(signalName($0)))" } ?? (result.exitCode == 0 ? "completed" : result.exitCode == 3 ? "stuck (no progress in 8 s)" : "exited \(result.exitCode)")
        if outcome == "completed" { times.append(seconds) }
        if sample.isEmpty { sample = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines) }
        outcomes[outcome, default: 0] += 1
    }
    print("\(what):")
    for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(outcome) in \(count) of \(trials) trials") }
    if !sample.isEmpty { print("  the child said: \(sample)") }
    if !times.isEmpty { print("  completed runs took \(times.map { String(format: "%.2f", $0) }.joined(separator: ", ")) s") }
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
