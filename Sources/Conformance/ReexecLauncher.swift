import ArenaContract
import Harness

/// Starts the running executable again as a child with the arguments that make it call `ConformanceChild.main`
/// (see `ChildProcess`), and waits for it up to the request's limit.
public struct ReexecLauncher: ChildLauncher {
    /// The arguments, after the program name, that make the executable run `request`.
    public let arguments: @Sendable (ChildRequest) -> [String]

    public init(arguments: @escaping @Sendable (ChildRequest) -> [String]) {
        self.arguments = arguments
    }

    public func launch(_ request: ChildRequest) -> ChildOutcome {
        ChildProcess.run(arguments(request), limit: request.limit)
    }
}
