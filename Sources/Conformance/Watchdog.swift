import ArenaContract
import Harness

/// Runs a check on a thread of its own and waits for it with a deadline, so a deadlock becomes a `timeout`
/// result instead of a hang. A check that times out is abandoned: its thread stays blocked, and everything it
/// holds stays alive, so nothing is released under its feet.
enum Watchdog {
    enum Ending: Sendable {
        case returned
        case threw(RuleFailure)
        case timedOut
    }

    private final class Slot: @unchecked Sendable {
        let condition = Condition()
        var outcome: Ending?
    }

    static func run(timeout: Duration, _ body: @escaping @Sendable () throws -> Void) -> Ending {
        let slot = Slot()
        Threads.detach {
            let outcome: Ending
            do {
                try body()
                outcome = .returned
            } catch {
                outcome = .threw((error as? RuleFailure) ?? RuleFailure(.unkeyed, String(describing: error)))
            }
            slot.condition.update { slot.outcome = outcome }
        }
        let finished = slot.condition.wait(until: .now() + timeout) { slot.outcome != nil }
        return finished ? slot.condition.lock.withLock { slot.outcome! } : .timedOut
    }
}
