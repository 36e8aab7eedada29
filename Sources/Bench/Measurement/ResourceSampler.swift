import Contenders
import Glibc
import Harness

/// Reads what the process uses: the thread count, sampled on a thread of its own, and `getrusage` totals.
///
/// Sampling every 5 ms costs one read of /proc/self/status (~20 µs), under 0.5% of one core; every 1 ms (what
/// `pool-ramp` asks for while its blocks sleep), about 2%.
@usableFromInline final class ResourceSampler: @unchecked Sendable {
    private let state = Locked((peak: 0, running: true))
    private let stopped = Latch()

    /// Starts sampling the thread count every `interval`, on a thread of its own (counted too).
    @usableFromInline init(every interval: Duration = .milliseconds(5)) {
        state.withLock { $0.peak = Self.threadCount() }
        Threads.detach { [self] in
            while state.withLock({ $0.running }) {
                let count = Self.threadCount()
                state.withLock { $0.peak = max($0.peak, count) }
                Threads.sleep(interval)
            }
            stopped.countDown()
        }
    }

    /// Stops sampling and returns the peak thread count.
    @usableFromInline func stop() -> Int {
        state.withLock { $0.running = false }
        stopped.wait(.seconds(1))
        return state.withLock { max($0.peak, Self.threadCount()) }
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
