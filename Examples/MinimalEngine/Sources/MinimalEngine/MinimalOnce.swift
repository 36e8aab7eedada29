import ArenaContract
import Glibc

/// A once token under the engine's lock: the first caller runs the body; the others sleep until it finished.
public final class MinimalOnce: EngineOnce, @unchecked Sendable {
    private let label: String, runtime: Runtime
    private var done = false, runner: pthread_t?  // guarded by the engine's lock; `runner` runs the body

    init(label: String, runtime: Runtime) { (self.label, self.runtime) = (label, runtime) }

    /// Runs `body` if no body of this token ran yet: one lock round once done, two for the first caller, a sleep on the
    /// engine's condition for racing ones. A call from inside the body stops the process.
    public func perform(_ body: () -> Void) {
        let first = runtime.locked {
            if let runner, !done {
                if pthread_equal(runner, pthread_self()) != 0 {
                    misuse("once called recursively from its own body: once '\(label)'")
                }
                _ = runtime.wait(until: .distantFuture) { done }
            }
            if done { return false }
            runner = pthread_self()
            return true
        }
        guard first else { return }
        body()
        runtime.changing { done = true }
    }
}
