// Swift 6.3's default global executor takes the instant given to swift_task_enqueueGlobalWithDeadline for a delay.
//
// swift_task_enqueueGlobalWithDeadline(sec, nsec, tsec, tnsec, clock, job) asks the global executor to run `job` once
// the instant sec.nsec of `clock` (1: continuous, 2: suspending) has passed. This program hands it jobs (the first job
// of a task whose preferred executor passes it on) and measures when each ran:
//   - due 20 ms from now on each clock: should run after about 20 ms;
//   - due at 1.5 s after the clock's origin, an instant long past on a machine up for more than that: should run at once;
//   - control: swift_task_enqueueGlobalWithDelay with 20 ms: should run after about 20 ms.
//
// Build and run: swiftc -O findings/swift-deadline-as-delay/main.swift -o /tmp/deadline && /tmp/deadline
import Dispatch
import Glibc

/// A task executor that runs nothing: it hands its first job to `divert`, which passes it to the runtime's entry point.
final class Diverter: TaskExecutor, @unchecked Sendable {
    let divert: @Sendable (UnownedJob) -> Void
    init(_ divert: @escaping @Sendable (UnownedJob) -> Void) { self.divert = divert }
    func enqueue(_ job: consuming ExecutorJob) { divert(UnownedJob(job)) }
}

@_silgen_name("swift_task_enqueueGlobalWithDeadline")
func enqueueGlobalWithDeadline(_ sec: Int64, _ nsec: Int64, _ tsec: Int64, _ tnsec: Int64, _ clock: Int32, _ job: UnownedJob)

@_silgen_name("swift_task_enqueueGlobalWithDelay")
func enqueueGlobalWithDelay(_ delay: UInt64, _ job: UnownedJob)

@_silgen_name("swift_get_time")
func getTime(_ seconds: UnsafeMutablePointer<Int64>, _ nanoseconds: UnsafeMutablePointer<Int64>, _ clock: Int32)

/// Runs a task whose first job goes to `entry`; returns how long after the call the job ran, or nil within `limit` s.
func measure(limit: Double, _ entry: @escaping @Sendable (UnownedJob) -> Void) -> Double? {
    let ran = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var after = 0.0
    let start = DispatchTime.now()
    _ = Task(executorPreference: Diverter(entry)) {
        after = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        ran.signal()
    }
    return ran.wait(timeout: .now() + limit) == .success ? after : nil
}

func describe(_ seconds: Double?) -> String {
    seconds.map { "ran after \(Int(($0 * 1000).rounded())) ms" } ?? "did not run within 3 s"
}

var uptime: Int64 = 0, uptimeNanoseconds: Int64 = 0
getTime(&uptime, &uptimeNanoseconds, 1)
print("continuous clock reads \(uptime) s (its origin is the boot)")
for (clock, name) in [(Int32(1), "continuous"), (Int32(2), "suspending")] {
    var seconds: Int64 = 0, nanoseconds: Int64 = 0
    getTime(&seconds, &nanoseconds, clock)
    var dueSeconds = seconds, dueNanoseconds = nanoseconds + 20_000_000
    if dueNanoseconds >= 1_000_000_000 { dueSeconds += 1; dueNanoseconds -= 1_000_000_000 }
    let soon = measure(limit: 3) { [dueSeconds, dueNanoseconds] in enqueueGlobalWithDeadline(dueSeconds, dueNanoseconds, 0, 0, clock, $0) }
    print("\(name) clock, due 20 ms from now: \(describe(soon))")
    let past = measure(limit: 3) { enqueueGlobalWithDeadline(1, 500_000_000, 0, 0, clock, $0) }
    print("\(name) clock, due at 1.5 s after the clock's origin (long past): \(describe(past))")
}
print("control, swift_task_enqueueGlobalWithDelay 20 ms: \(describe(measure(limit: 3) { enqueueGlobalWithDelay(20_000_000, $0) }))")
