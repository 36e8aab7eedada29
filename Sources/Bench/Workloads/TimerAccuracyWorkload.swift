import ArenaContract
import Harness

/// `timer-accuracy`: how late one-shot timers fire: timer sources (`kind:timer`) and `asyncAfter` (`kind:after`),
/// armed `interval` (1 ms or 10 ms) ahead with zero leeway, their handlers on a serial queue.
///
/// The timers are armed one after another: the next is armed once the previous fired, so each measures the engine's
/// timer path alone, never a queue busy with an earlier handler. Lateness is the handler's first reading of the
/// monotonic clock minus the deadline; the headline is its median in µs (`lateness_p50_us`, with `lateness_p99_us`
/// beside it), and the per-timer values go to the latency percentiles. The answer checked: every timer fired exactly
/// once (a timer source with data 1), and none before its deadline: GCD never fires early.
public struct TimerAccuracyWorkload: Workload {
    public let name = "timer-accuracy"
    public let summary = "lateness of one-shot timer sources and asyncAfter at 1 ms and 10 ms, zero leeway"
    public let headline = Headline.counter(name: "lateness_p50_us", unit: "µs", lowerIsBetter: true)
    public let figure = PlotFigure.bundled("timer-accuracy.gp")

    /// What arms the timer.
    public enum Kind: String, ParameterChoice {
        /// A fresh timer source per timer.
        case timer
        /// `asyncAfter` on the serial queue.
        case after
        public static let parameterName = "kind"
    }

    /// The intervals measured (names and CSV cells write them `1ms`, `10ms`).
    static let intervals: [Duration] = [.milliseconds(1), .milliseconds(10)]

    public init() {}

    /// kind × interval.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        [.choice(Kind.self), .duration("interval", Self.intervals)]
    }

    public func points(_ settings: BenchSettings) -> [Point] {
        Kind.allCases.flatMap { kind in
            Self.intervals.map { interval in
                Point(workload: name, parameters: [Parameter(kind), Parameter("interval", interval)])
            }
        }
    }

    /// Each timer takes at least its interval, so a few make a first trial of 5 to 50 ms.
    public func initialOperations(_ point: Point) -> Int { 5 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let interval = point.duration("interval")
        let usesSource =
            switch point.choice(Kind.self) {
            case .timer: true
            case .after: false
            }
        let queue = engine.makeQueue(label: "timer-accuracy", kind: .serial)
        let log = TimerFireLog(operations)
        var timers: [E.TimerSource] = []
        timers.reserveCapacity(usesSource ? operations : 0)
        var latencies = LatencyRecorder()
        var failure: WorkloadError?

        let watch = Stopwatch()
        for index in 0..<operations {
            let deadline: Deadline
            if usesSource {
                // A fresh source per timer, made before its deadline is taken, so making it is not lateness; fired
                // timers stay uncancelled until the end, so a second fire of any of them would be counted.
                let timer = engine.makeTimerSource(label: "timer-accuracy", queue: queue)
                timer.setEventHandler { [weak timer] in
                    let now = Deadline.now()
                    log.fire(index, at: now, data: timer?.data ?? 0)
                }
                timer.setCancelHandler { log.cancelled() }
                timers.append(timer)
                deadline = .now() + interval
                timer.schedule(deadline: deadline, repeating: nil, leeway: .zero)
                timer.activate()
            } else {
                deadline = .now() + interval
                queue.asyncAfter(deadline: deadline) { log.fire(index, at: .now(), data: 1) }
            }
            guard let firedAt = log.waitForFire(index, until: context.deadline) else {
                failure = WorkloadError(
                    "timed out waiting for timer \(index) of \(operations), due \(interval) after arming",
                    timedOut: true)
                break
            }
            guard firedAt >= deadline else {
                failure = WorkloadError("timer \(index) fired \(deadline - firedAt) before its deadline")
                break
            }
            latencies.record(nanoseconds: firedAt.nanoseconds - deadline.nanoseconds)
        }
        let elapsed = watch.read()

        // Every source is cancelled, after a failure too, so none stays armed past the trial.
        for timer in timers { timer.cancel() }
        if let failure { throw failure }
        try WorkloadError.check(
            log.waitForCancels(timers.count, until: context.deadline) ? .success : .timedOut,
            waitingFor: "the cancel handlers of \(timers.count) timers")
        try log.checkEachFiredOnce()
        let percentiles = latencies.percentiles
        return Trial(
            operations: operations, elapsed: elapsed, latencies: latencies,
            counters: [
                "lateness_p50_us": (percentiles?.p50 ?? 0) / 1000,
                "lateness_p99_us": (percentiles?.p99 ?? 0) / 1000,
            ])
    }
}

/// Per timer: how often it fired, when first, and the data it delivered; and how many cancel handlers ran. Handlers
/// write it under the condition's lock (held for a few stores, never while waiting), and the arming thread waits on it.
@usableFromInline final class TimerFireLog: @unchecked Sendable {
    @usableFromInline let condition = Condition()
    @usableFromInline var fires: [Int]
    @usableFromInline var firstFire: [Deadline]
    @usableFromInline var firstData: [UInt]
    @usableFromInline var cancels = 0

    /// Room for `count` timers, allocated once, so a fire allocates nothing.
    @inlinable init(_ count: Int) {
        fires = Array(repeating: 0, count: count)
        firstFire = Array(repeating: Deadline(nanoseconds: 0), count: count)
        firstData = Array(repeating: 0, count: count)
    }

    /// Called by timer `index`'s handler with the time it started.
    @inlinable func fire(_ index: Int, at now: Deadline, data: UInt) {
        condition.update {
            if fires[index] == 0 {
                firstFire[index] = now
                firstData[index] = data
            }
            fires[index] += 1
        }
    }

    /// Called by each cancel handler.
    @inlinable func cancelled() {
        condition.update { cancels += 1 }
    }

    /// The time timer `index` first fired, once it has; `nil` if it has not by `deadline`.
    @inlinable func waitForFire(_ index: Int, until deadline: Deadline) -> Deadline? {
        guard condition.wait(until: deadline, { fires[index] > 0 }) else { return nil }
        return condition.lock.withLock { firstFire[index] }
    }

    /// Whether `count` cancel handlers ran by `deadline`.
    @inlinable func waitForCancels(_ count: Int, until deadline: Deadline) -> Bool {
        condition.wait(until: deadline) { cancels >= count }
    }

    /// Throws naming the first timer that fired other than once, or whose one fire counted other than one.
    @inlinable func checkEachFiredOnce() throws(WorkloadError) {
        let (counts, data): ([Int], [UInt]) = condition.lock.withLock { (self.fires, self.firstData) }
        if let index = counts.firstIndex(where: { $0 != 1 }) {
            throw WorkloadError("one-shot timer \(index) fired \(counts[index]) times")
        }
        if let index = data.firstIndex(where: { $0 != 1 }) {
            throw WorkloadError("one-shot timer \(index) delivered data \(data[index]), expected 1")
        }
    }
}
