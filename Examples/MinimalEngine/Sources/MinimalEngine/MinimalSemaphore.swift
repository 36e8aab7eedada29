import ArenaContract

/// A counting semaphore under the engine's lock, counted as libdispatch counts: `value` goes as far below zero as there
/// are waiters, and a signal hands its unit to a sleeper through `handoffs`, so no later arrival can take it first.
public final class MinimalSemaphore: EngineSemaphore, @unchecked Sendable {
    private let runtime: Runtime
    private var value: Int, handoffs = 0  // guarded by the engine's lock

    init(_ value: Int, _ runtime: Runtime) { (self.value, self.runtime) = (value, runtime) }

    /// Takes a unit: one lock round when one is free, else sleeps on the engine's condition until a signal or
    /// `deadline`; a wait that times out gives its claim back.
    public func wait(until deadline: Deadline) -> WaitResult {
        runtime.locked {
            value -= 1
            if value >= 0 { return .success }
            if runtime.wait(until: deadline, for: { handoffs > 0 }) {
                handoffs -= 1
                return .success
            }
            value += 1
            return .timedOut
        }
    }

    /// Returns a unit, handing it to a sleeper if there is one (then true): one lock round and a broadcast.
    @discardableResult
    public func signal() -> Bool {
        runtime.changing {
            value += 1
            if value <= 0 { handoffs += 1 }
            return value <= 0
        }
    }
}
