/// Why an executor could not become Swift Concurrency's global executor: each case reads as one line naming the
/// object, for a program to print before it exits without starting.
public enum TakeoverRefusal: Error, Equatable, CustomStringConvertible {
    /// The contender cannot serve: the reason is its `global-executor` limit (`Engine.limits`).
    case cannotServe(contender: String, reason: String)
    /// A hook of the runtime already holds someone else's function (another takeover, such as SwiftNIO's).
    case hookTaken(hook: String)
    /// This process's global executor was already taken over by another contender.
    case alreadyTaken(by: String, asked: String)

    public var description: String {
        switch self {
        case .cannotServe(let contender, let reason):
            "\(contender) cannot serve as Swift's global executor: \(reason)"
        case .hookTaken(let hook):
            "\(hook) is already set by someone else in this process (another takeover, such as SwiftNIO's): nothing was installed"
        case .alreadyTaken(let by, let asked):
            "Swift's global executor in this process is already \(by); \(asked) was not installed"
        }
    }
}
