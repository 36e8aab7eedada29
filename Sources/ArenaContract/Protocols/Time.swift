import Glibc

/// A point in time on the monotonic clock, used for every deadline and timeout in the engine protocols.
///
/// The clock is `CLOCK_MONOTONIC`, the clock `DispatchTime` reads on Linux, so a `Deadline` converts to
/// `DispatchTime(uptimeNanoseconds:)` without drift. Reading it costs one `clock_gettime` (a vDSO call, ~20 ns).
public struct Deadline: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an unspecified start of the monotonic clock; `UInt64.max` means never.
    public let nanoseconds: UInt64

    /// A deadline at `nanoseconds` on the monotonic clock.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The current time.
    public static func now() -> Deadline {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Deadline(nanoseconds: UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec))
    }

    /// A deadline that never passes: waiting until it waits forever.
    public static let distantFuture = Deadline(nanoseconds: .max)

    /// Whether this is `distantFuture`.
    public var isDistantFuture: Bool { nanoseconds == .max }

    /// `deadline + duration`, saturating at `distantFuture`; a negative duration moves the deadline back (not below 0).
    public static func + (lhs: Deadline, rhs: Duration) -> Deadline {
        if lhs.isDistantFuture { return lhs }
        let delta = rhs.nanosecondsClamped
        if delta >= 0 {
            let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(UInt64(delta))
            return overflow ? .distantFuture : Deadline(nanoseconds: sum)
        }
        let back = delta.magnitude
        return Deadline(nanoseconds: lhs.nanoseconds > back ? lhs.nanoseconds - back : 0)
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Deadline, rhs: Deadline) -> Duration {
        lhs >= rhs
            ? .nanoseconds(Int64(clamping: lhs.nanoseconds - rhs.nanoseconds))
            : .nanoseconds(-Int64(clamping: rhs.nanoseconds - lhs.nanoseconds))
    }

    public static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public var description: String { isDistantFuture ? "never" : "t+\(nanoseconds)ns" }
}

extension Duration {
    /// This duration in whole nanoseconds, clamped to `Int64`.
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// This duration in seconds, as a `Double` (for reports).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// The outcome of a wait with a deadline.
public enum WaitResult: Sendable, Equatable {
    /// The awaited condition held before the deadline.
    case success
    /// The deadline passed first; the wait took nothing.
    case timedOut
}
