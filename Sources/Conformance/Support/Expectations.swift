import ArenaContract
import Harness

/// What a failing check observed.
public struct RuleFailure: Error, CustomStringConvertible {
    /// What the check saw, in words the matrix shows.
    public let observed: String
    public init(_ observed: String) { self.observed = observed }
    public var description: String { observed }
}

/// Fails the check with `observed` unless `condition` holds. Public, as every helper here, for rules
/// outside the catalog (an executor author's, the tests' probes).
public func expect(_ condition: Bool, _ observed: @autoclosure () -> String) throws {
    if !condition { throw RuleFailure(observed()) }
}

/// Fails the check unless `latch` opens within `timeout`; `what` says what was awaited.
public func expectOpens(_ latch: Latch, within timeout: Duration = .seconds(5), _ what: @autoclosure () -> String) throws {
    if !latch.wait(timeout) {
        throw RuleFailure("\(what()) did not happen within \(timeout) (\(latch.remainingCount) still missing)")
    }
}

/// Fails the check unless `condition` becomes true within `timeout`.
public func expectEventually(
    within timeout: Duration = .seconds(5), _ what: @autoclosure () -> String,
    _ condition: () -> Bool
) throws {
    if !Timing.eventually(within: timeout, condition) {
        throw RuleFailure("\(what()) did not happen within \(timeout)")
    }
}
