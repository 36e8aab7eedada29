// README: swift-corelibs-libdispatch on Linux installs a signal handler of its own the first time a signal source for
// a signal is registered, once per process, and never again. A program that then sets the signal's disposition
// itself (signal(SIGUSR1, SIG_IGN), the usual companion of a signal source) makes the kernel discard the signal:
// the live source, and every later source for that signal in the process, never fire. DispatchArena met it as "a new
// source for a signal is never delivered to once an earlier source for it was cancelled" (its rule set SIG_IGN
// around each source).
// Run:
//   swiftc -O findings/dispatch-signal-source-reuse/main.swift -o /tmp/sigreuse && /tmp/sigreuse [trials]
// Each trial runs in a child process (this program again, with the case as argument): the effect lasts for the
// process. A source counts as delivered if its handler runs within 1 s while the signal is raised every 50 ms.
// A last case checks whether the program's own handler still runs once a source for its signal is resumed.
// Correct behaviour: a signal source sees the signals sent to the process whatever their disposition. kqueue(2),
// the mechanism the API was designed on, EVFILT_SIGNAL: "This coexists with the signal() and sigaction()
// facilities, and has a lower precedence. The filter will record all attempts to deliver a signal to a process,
// even if the signal has been marked as SIG_IGN"; and the program's own handler keeps running beside the source.
import Dispatch
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)

/// Makes a source for `number`, runs `afterResume`, raises the signal until the handler runs or 1 s passes, cancels
/// the source and waits for its cancel handler.
func delivered(_ number: Int32, afterResume: () -> Void = {}) -> Bool {
    let queue = DispatchQueue(label: "signals")
    let seen = DispatchSemaphore(value: 0)
    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
    source.setEventHandler { seen.signal() }
    let cancelled = DispatchSemaphore(value: 0)
    source.setCancelHandler { cancelled.signal() }
    source.resume()
    afterResume()
    var got = false
    let deadline = DispatchTime.now() + 1.0
    while DispatchTime.now() < deadline {
        kill(getpid(), number)
        if seen.wait(timeout: .now() + 0.05) == .success { got = true; break }
    }
    source.cancel()
    _ = cancelled.wait(timeout: .now() + 1)
    return got
}

func disposition(_ number: Int32) -> String {
    var action = sigaction()
    sigaction(number, nil, &action)
    let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    return handler == 0 ? "SIG_DFL" : handler == 1 ? "SIG_IGN" : "a handler at 0x\(String(handler, radix: 16))"
}

let cases: [(String, String)] = [
    ("ignore-once", "SIG_IGN set once, before any source; two sources for SIGUSR1 one after the other"),
    ("ignore-again", "SIG_IGN set before each of two sources for SIGUSR1 (the second after the first was cancelled)"),
    ("ignore-after-resume", "SIG_IGN set 100 ms after the source is resumed (the first source for SIGUSR1 in the process)"),
    ("handler-again", "a handler of our own (not SIG_IGN) set before each of two sources"),
    ("handler-kept", "a handler of our own set before the source: does it still run once the source is resumed?"),
]

/// Counts the calls of the program's own handler (`handler-kept`).
nonisolated(unsafe) var ownHandlerCalls: sig_atomic_t = 0

if CommandLine.arguments.count > 1, cases.contains(where: { $0.0 == CommandLine.arguments[1] }) {
    var results: [Bool] = []
    switch CommandLine.arguments[1] {
    case "ignore-once":
        signal(SIGUSR1, SIG_IGN)
        results = [delivered(SIGUSR1), delivered(SIGUSR1)]
    case "ignore-again":
        signal(SIGUSR1, SIG_IGN)
        results.append(delivered(SIGUSR1))
        signal(SIGUSR1, SIG_IGN)
        results.append(delivered(SIGUSR1))
    case "ignore-after-resume":
        signal(SIGUSR1, { _ in })  // so that a signal raised before SIG_IGN is set cannot kill the process
        results.append(delivered(SIGUSR1) { usleep(100_000); signal(SIGUSR1, SIG_IGN) })  // after libdispatch registered it
    case "handler-kept":
        signal(SIGUSR1, { _ in ownHandlerCalls += 1 })
        results.append(delivered(SIGUSR1) { usleep(100_000) })
        results.append(false)
        results.append(ownHandlerCalls > 0)
    default:
        signal(SIGUSR1, { _ in })
        results.append(delivered(SIGUSR1))
        signal(SIGUSR1, { _ in })
        results.append(delivered(SIGUSR1))
    }
    // Exit code: bit i set when source i fired.
    exit(results.enumerated().reduce(0) { $0 | ($1.element ? 1 << $1.offset : 0) })
}

if CommandLine.arguments.dropFirst().first == "disposition" {
    signal(SIGUSR1, SIG_IGN)
    print("SIGUSR1's disposition: before any source \(disposition(SIGUSR1));", terminator: " ")
    let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
    source.setEventHandler {}
    source.resume()
    usleep(100_000)
    print("with a source resumed \(disposition(SIGUSR1));", terminator: " ")
    source.cancel()
    usleep(100_000)
    print("after its cancel \(disposition(SIGUSR1))")
    exit(0)
}

let trials = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10
for (mode, what) in cases {
    var counts = [0, 0, 0]
    var sources = 1
    var failed = 0
    for _ in 0..<trials {
        let result = runChild([mode])
        guard !result.timedOut, result.signal == nil else { failed += 1; continue }
        sources = mode == "ignore-after-resume" || mode == "handler-kept" ? 1 : 2
        for index in 0..<3 where result.exitCode & Int32(1 << index) != 0 { counts[index] += 1 }
    }
    print("\(what):")
    for index in 0..<sources { print("  source \(index + 1) fired in \(counts[index]) of \(trials) processes") }
    if mode == "handler-kept" { print("  the program's own handler ran in \(counts[2]) of \(trials) processes") }
    if failed > 0 { print("  \(failed) of \(trials) children crashed or hung") }
}
let probe = Process()
probe.executableURL = URL(fileURLWithPath: "/proc/self/exe")
probe.arguments = ["disposition"]
try! probe.run()
probe.waitUntilExit()

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
