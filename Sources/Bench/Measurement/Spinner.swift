import ArenaContract

/// Busy work of a given length, without sleeping and without reading the clock: a dependent chain of
/// xor-shift-multiply steps whose speed is measured once per process.
///
/// The step is not linear on purpose: the optimiser folds a chain of multiply-adds (x·a + c, repeated) into a few
/// operations per eight steps, and a constant step count into nothing at all (measured: 200,000 "steps" in 32 ns),
/// which made the first calibration 500 times too fast.
///
/// A spin that read the clock would end on time even when its thread was preempted, hiding lost CPU; a calibrated
/// loop does a fixed amount of work, as a real block would. The calibration takes about 2 ms.
public struct Spinner: Sendable {
    /// Loop steps per microsecond on this machine, measured.
    public let stepsPerMicrosecond: Double

    /// Measures the loop: the fastest of five runs of 200,000 steps (about 0.4 ms each), so a preemption during
    /// calibration cannot slow the spin.
    public static func calibrated() -> Spinner {
        let steps = 200_000
        var best = UInt64.max
        for _ in 0..<5 {
            let start = Deadline.now()
            blackHole(spin(steps: opaque(steps)))
            best = Swift.min(best, Deadline.now().nanoseconds - start.nanoseconds)
        }
        return Spinner(stepsPerMicrosecond: Double(steps) * 1000 / Double(Swift.max(best, 1)))
    }

    public init(stepsPerMicrosecond: Double) { self.stepsPerMicrosecond = stepsPerMicrosecond }

    /// The loop steps that take `nanoseconds` on this machine.
    public func steps(forNanoseconds nanoseconds: Int) -> Int {
        Int((Double(nanoseconds) * stepsPerMicrosecond / 1000).rounded())
    }

    /// Spins `steps` loop steps (from `steps(forNanoseconds:)`); 0 does nothing: one test, no call. Inlinable, so a
    /// workload's trial, specialised in the module that calls it, pays what its baseline in this module pays (it was
    /// a call per iteration in every engine's `apply`, about 2 ns, and nothing in the plain loop it is measured
    /// against).
    @inlinable @inline(__always)
    public func work(steps: Int) {
        if steps > 0 { blackHole(Spinner.spin(steps: steps)) }
    }

    @usableFromInline @inline(never)
    static func spin(steps: Int) -> UInt64 {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<steps { x = (x ^ (x >> 29)) &* 0xBF58_476D_1CE4_E5B9 }
        return x
    }
}

/// `value`, hidden from the optimiser, so a constant cannot be folded into the computation it feeds.
@_optimize(none)
func opaque<T>(_ value: T) -> T { value }

/// Keeps a value alive so the optimiser cannot drop the computation that made it (unoptimised, so no pass sees
/// through it).
@_optimize(none)
public func blackHole<T>(_ value: T) {}
