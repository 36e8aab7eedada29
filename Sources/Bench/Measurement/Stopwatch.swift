import ArenaContract
import Glibc

/// Wall time and process CPU time of a region: `let watch = Stopwatch()`, the work, then `watch.read()`.
///
/// Starting and reading cost two `clock_gettime` calls each (the monotonic clock through the vDSO, ~20 ns; the
/// process CPU clock through a system call, ~200 ns), which a trial of `minimumSeconds` makes negligible.
public struct Stopwatch: Sendable {
    /// Wall and CPU nanoseconds of a region.
    public struct Reading: Sendable, Equatable {
        public var wallNanoseconds: UInt64
        public var cpuNanoseconds: UInt64

        public init(wallNanoseconds: UInt64, cpuNanoseconds: UInt64) {
            self.wallNanoseconds = wallNanoseconds
            self.cpuNanoseconds = cpuNanoseconds
        }

        /// Wall time in seconds.
        public var wallSeconds: Double { Double(wallNanoseconds) / 1e9 }
    }

    private let wallStart: UInt64
    private let cpuStart: UInt64

    /// Starts timing now.
    public init() {
        cpuStart = Self.processCPUNanoseconds()
        wallStart = Deadline.now().nanoseconds
    }

    /// The time since the start.
    public func read() -> Reading {
        let wall = Deadline.now().nanoseconds
        let cpu = Self.processCPUNanoseconds()
        return Reading(wallNanoseconds: wall &- wallStart, cpuNanoseconds: cpu &- cpuStart)
    }

    /// CPU time used by every thread of the process so far.
    static func processCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
