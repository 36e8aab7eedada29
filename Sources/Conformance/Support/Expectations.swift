import ArenaContract
import Harness

/// What a failing check observed: its outcome key, and the run's detail in words the matrix shows.
public struct RuleFailure: Error, CustomStringConvertible {
    /// The stable key the histograms count (`Outcome`); the rule lists it among those it forbids.
    public let outcome: Outcome
    /// What the check saw, with this run's numbers.
    public let observed: String
    public init(_ outcome: Outcome, _ observed: String) {
        self.outcome = outcome
        self.observed = observed
    }
    public var description: String { observed }
}

/// Fails the check with `observed` unless `condition` holds. Public, as every helper here, for rules
/// outside the catalog (an executor author's, the tests' probes).
public func expect(_ condition: Bool, _ outcome: Outcome, _ observed: @autoclosure () -> String) throws {
    if !condition { throw RuleFailure(outcome, observed()) }
}

/// Fails the check with `outcome` (`missing` unless told) unless `latch` opens within `timeout`; `what` says what was
/// awaited.
public func expectOpens(
    _ latch: Latch, within timeout: Duration = .seconds(5), as outcome: Outcome = .missing, _ what: @autoclosure () -> String
) throws {
    if !latch.wait(timeout) {
        throw RuleFailure(outcome, "\(what()) did not happen within \(timeout) (\(latch.remainingCount) still missing)")
    }
}

/// Fails the check with `outcome` (`missing` unless told) unless `condition` becomes true within `timeout`.
public func expectEventually(
    within timeout: Duration = .seconds(5), as outcome: Outcome = .missing, _ what: @autoclosure () -> String,
    _ condition: () -> Bool
) throws {
    if !Timing.eventually(within: timeout, condition) {
        throw RuleFailure(outcome, "\(what()) did not happen within \(timeout)")
    }
}
