import Conformance
import Harness

/// Starts rules in `arena child` processes, as `arena conform` does, for the rules a Swift Testing exit test cannot
/// host: a rule that needs the main loop must have the thread its process started on, and an exit test's child is
/// an async program whose first thread Swift gave to `dispatch_main()` already.
struct ArenaChildLauncher: ChildLauncher {
    func launch(_ request: RuleRequest) -> ChildOutcome {
        _ = sanitizerKeepsExitCode
        return ReexecLauncher(executable: ArenaExecutable.url.path).launch(request)
    }
}
