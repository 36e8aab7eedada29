import ArenaContract
import Glibc
import Harness

/// Reads what the process uses: the thread counts, sampled on a thread of its own, and `getrusage` totals.
///
/// Sampling every 5 ms costs one listing of /proc/self/task (~20 µs) plus a name read per new thread
/// (`ThreadCensus`), under 0.5% of one core; every 1 ms (what `pool-ramp` asks for while its blocks sleep), about 2%.
@usableFromInline final class ResourceSampler: @unchecked Sendable {
    /// The peaks so far: all threads, and the engine's (`ThreadCensus`); whether sampling runs or waits.
    private let state = Condition()
    private var peak = 0
    private var enginePeak = 0
    private var sampling = true
    private var running = true
    private let stopped = Latch()
    private let census = Locked(ThreadCensus())

    /// Starts sampling the thread counts every `interval`, on a thread of its own (counted in the total).
    @usableFromInline init(every interval: Duration = .milliseconds(5)) {
        sample()
        Threads.detach { [self] in
            while true {
                // Paused: block until resumed or stopped, using no CPU (a point's process between its trials).
                _ = state.wait(until: .distantFuture) { sampling || !running }
                guard state.lock.withLock({ running }) else { break }
                sample()
                Threads.sleep(interval)
            }
            stopped.countDown()
        }
    }

    private func sample(final: Bool = false) {
        let (all, engine) = census.withLock { $0.take(final: final) }
        state.update {
            peak = max(peak, all)
            enginePeak = max(enginePeak, engine)
        }
    }

    /// Stops sampling until `resume()`; the thread blocks meanwhile. A last take first, so a thread born since the
    /// last sample still counts.
    @usableFromInline func pause() {
        sample(final: true)
        state.update { sampling = false }
    }

    /// Samples again after `pause()`.
    @usableFromInline func resume() {
        state.update { sampling = true }
    }

    /// Stops sampling and returns the peak thread counts: every thread of the process, and the engine's.
    @usableFromInline func stop() -> (all: Int, engine: Int) {
        state.update { running = false }
        stopped.wait(.seconds(1))
        sample(final: true)
        return state.lock.withLock { (peak, enginePeak) }
    }

    /// The usage totals of the whole process so far.
    static func usage() -> rusage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage
    }

    /// Resource figures: CPU and switches between two `usage()` readings, peaks from the process.
    static func figures(from start: rusage, to end: rusage, peakThreads: Int) -> ResourceUsage {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(
            peakThreads: peakThreads,
            userSeconds: seconds(end.ru_utime) - seconds(start.ru_utime),
            systemSeconds: seconds(end.ru_stime) - seconds(start.ru_stime),
            voluntarySwitches: end.ru_nvcsw - start.ru_nvcsw,
            involuntarySwitches: end.ru_nivcsw - start.ru_nivcsw,
            peakResidentKiB: end.ru_maxrss)
    }

    /// The `Threads:` line of /proc/self/status.
    @usableFromInline static func threadCount() -> Int {
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return 0 }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return 0 }
        return Int(line.dropFirst("Threads:".count).drop(while: \.isWhitespace)) ?? 0
    }
}
