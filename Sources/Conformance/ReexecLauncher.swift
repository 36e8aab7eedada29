import ArenaContract
import Harness

/// Starts the running executable (or `executable`) again as a child running the request (`ChildRequests`: the
/// request travels whole, as one JSON argument), and waits for it up to the request's limit.
public struct ReexecLauncher: ChildLauncher {
    /// The program to start: this one by default.
    public let executable: String

    public init(executable: String = "/proc/self/exe") {
        self.executable = executable
    }

    public func launch(_ request: RuleRequest) -> ChildOutcome {
        ChildRequests.run(request, executable: executable)
    }
}
