// README: swift-corelibs-libdispatch on Linux can crash the process (SIGSEGV in _dispatch_event_loop_drain) when a
// read source's descriptor hangs up: the manager thread takes the hang-up out of epoll, a worker unregisters the
// source on its own before any cancel and frees the epoll note while the manager's drain still holds it.
// Run:
//   swiftc -O findings/dispatch-read-source-hangup/main.swift -o /tmp/hangup && /tmp/hangup [children] [rounds] [lanes] [pause-µs] [stress|quiet] [timers]
// Each child process (this program again, argument `child`) runs `lanes` concurrent lanes of `rounds` rounds each:
// a pipe, a read source on its read end, 10 bytes written and read, the write end closed, the handler's call with
// data 0 awaited, then the source cancelled and the read end closed in its cancel handler. The reporter counts the
// children that crashed. The effect is a race. DispatchArena saw it in 1 run of 100 under load; this program has not
// shown it yet (0 crashes in 5 million hang-ups here, docs/FINDINGS.md section 4): it is kept to be run elsewhere.
// Correct behaviour (dispatch_source_create(3), DISPATCH_SOURCE_TYPE_READ; dispatch_source_cancel(3)): the source
// reports the end of file (data 0) and stays registered until the program cancels it; no crash, ever.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var zeros = 0
    func add(_ data: UInt) { lock.withLock { count += 1; if data == 0 { zeros += 1 } } }
    var calls: Int { lock.withLock { count } }
    var endCalls: Int { lock.withLock { zeros } }
}

func wait(until condition: () -> Bool, seconds: Double = 2) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() > deadline { return false }
        usleep(100)
    }
    return true
}

/// One round; false if the end of file was not reported within 2 s.
func round(_ lane: Int) -> Bool {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {  // not a trap: a trap would read as SIGILL, like libdispatch's own
        fputs("pipe() failed: errno \(errno)\n", stderr)
        exit(5)
    }
    let (reader, writer) = (fds[0], fds[1])
    _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
    let queue = DispatchQueue(label: "lane.\(lane)")
    let source = DispatchSource.makeReadSource(fileDescriptor: reader, queue: queue)
    let calls = Counter()
    source.setEventHandler {  // libdispatch lets the handlers go at cancel, which breaks this cycle
        let data = source.data
        calls.add(data)
        if data > 0 {
            var buffer = [UInt8](repeating: 0, count: Int(data))
            _ = read(reader, &buffer, Int(data))
        }
    }
    let cancelled = DispatchSemaphore(value: 0)
    source.setCancelHandler {
        close(reader)
        cancelled.signal()
    }
    source.resume()
    let bytes = [UInt8](repeating: 0x61, count: 10)
    _ = write(writer, bytes, bytes.count)
    _ = wait(until: { calls.calls >= 1 })
    close(writer)  // hang-up
    let ended = wait(until: { calls.endCalls >= 1 })
    if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }  // the source stays registered after the end, as in the arena's rule
    source.cancel()
    _ = cancelled.wait(timeout: .now() + 5)
    return ended
}

nonisolated(unsafe) var pauseMicroseconds: UInt32 = 0

func child(rounds: Int, lanes: Int) -> Never {
    let group = DispatchGroup()
    let missed = Counter()
    for lane in 0..<lanes {
        group.enter()
        Thread.detachNewThread {
            for _ in 0..<rounds where !round(lane) { missed.add(1) }
            group.leave()
        }
    }
    group.wait()
    exit(missed.calls == 0 ? 0 : 3)
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
/// Repeating timer sources that keep libdispatch's manager thread draining events beside the hang-ups.
nonisolated(unsafe) var timers: [any DispatchSourceTimer] = []
func startTimers(_ count: Int) {
    for index in 0..<count {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "timer.\(index)"))
        timer.schedule(deadline: .now(), repeating: .microseconds(200 + 100 * index), leeway: .nanoseconds(0))
        timer.setEventHandler {}
        timer.resume()
        timers.append(timer)
    }
}

if arguments.first == "child" {
    pauseMicroseconds = UInt32(arguments[3])!
    if arguments[4] == "stress" { startStress() }
    startTimers(Int(arguments[5])!)
    child(rounds: Int(arguments[1])!, lanes: Int(arguments[2])!)
}

let children = arguments.count > 0 ? Int(arguments[0])! : 20
let rounds = arguments.count > 1 ? Int(arguments[1])! : 200
let lanes = arguments.count > 2 ? Int(arguments[2])! : 4
let pause = arguments.count > 3 ? Int(arguments[3])! : 0  // microseconds between the end of file and the cancel
let stress = arguments.count > 4 ? arguments[4] : "quiet"  // "stress": DispatchArena's --stress load in each child
let timerCount = arguments.count > 5 ? Int(arguments[5])! : 0  // repeating timer sources beside the lanes
var crashes: [Int32: Int] = [:]
var hangs = 0
var missedEnd = 0
var clean = 0
var sample = ""
for _ in 0..<children {
    let result = runChild(["child", String(rounds), String(lanes), String(pause), stress, String(timerCount)], timeout: 120)
    if result.timedOut {
        hangs += 1
    } else if let signal = result.signal {
        crashes[signal, default: 0] += 1
        if sample.isEmpty { sample = result.stderr }
    } else if result.exitCode == 3 {
        missedEnd += 1
    } else if result.exitCode == 5 {
        print("  a child could not make a pipe: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
    } else {
        clean += 1
    }
}
print("\(children) processes, each \(lanes) lanes x \(rounds) rounds of a read source whose pipe's writer closes (\(children * lanes * rounds) hang-ups), cancel \(pause) µs after the end of file, \(stress), \(timerCount) timers:")
for (signal, count) in crashes.sorted(by: { $0.key < $1.key }) {
    print("  crashed with signal \(signal) (\(signalName(signal))) in \(count) of \(children) processes")
}
if hangs > 0 { print("  hung (killed after 120 s) in \(hangs) of \(children)") }
if missedEnd > 0 { print("  an end of file not reported within 2 s in \(missedEnd) of \(children)") }
print("  clean in \(clean) of \(children)")
if !sample.isEmpty { print("  the first crashed child's stderr:\n" + sample) }

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
    // FINDING_BACKTRACE=1 keeps the Swift runtime's backtrace of a crashing child (it lands in the child's stderr).
    let keepBacktrace = getenv("FINDING_BACKTRACE") != nil
    var env: [UnsafeMutablePointer<CChar>?] = keepBacktrace ? [] : [strdup("SWIFT_BACKTRACE=enable=no")]
    var index = 0
    while let entry = environ[index] {
        if keepBacktrace || !String(cString: entry).hasPrefix("SWIFT_BACKTRACE=") { env.append(strdup(entry)) }
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
