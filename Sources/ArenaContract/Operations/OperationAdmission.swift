/// When an operation queue may start one more of its ready operations: the queue's admission. The default operation
/// layer is generic over it (`EngineOperations<E, ReadyList, Admission>`), as over its ready list, so an admission of
/// an author's own replaces the default alone, called directly and specialised, never through an existential.
///
/// The queue asks under its lock before each start, taking ready operations in its list's order while the answer is
/// yes; it asks again whenever an operation turns ready or finishes and whenever a setting changes. A suspended queue
/// starts nothing and does not ask: suspension is the contract's, not a policy. What an admission must keep is
/// Foundation's contract, which the operation rules check: never more operations running than
/// `maxConcurrentOperationCount` (`op.max-concurrent`), and none kept waiting for good while the queue has room; at
/// the default width the queue "determines the maximum number … dynamically based on current system conditions"
/// (Apple, `OperationQueue.defaultMaxConcurrentOperationCount`), so a bound of the admission's own is allowed there.
public protocol OperationAdmission: SendableMetatype {
    /// Whether the queue may start one more ready operation, with `running` of its operations started and not
    /// finished (an asynchronous one until it calls its finish) and `width` its `maxConcurrentOperationCount`
    /// (`WidthAdmission.unlimited`, −1, for the default).
    static func admits(running: Int, width: Int) -> Bool
}

/// The default admission, Foundation's: one more while fewer than `width` run, always at the default width (where
/// the engine queue decides how many run at once). O(1).
public enum WidthAdmission: OperationAdmission {
    /// The default width, Foundation's `defaultMaxConcurrentOperationCount`: no limit of the queue's own
    /// (`EngineOperationQueue.unlimited` reads it).
    public static let unlimited = -1

    public static func admits(running: Int, width: Int) -> Bool {
        width == unlimited || running < width
    }
}
