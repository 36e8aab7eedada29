import ArenaContract
import CDispatch
import Glibc
import Synchronization

/// `dispatch_once_f` on a predicate of its own, reached through CDispatch (the Swift overlay has no `dispatch_once`).
///
/// libdispatch detects a recursive call but, on Linux, dies without a message; the token therefore remembers which
/// thread runs its body, and a call from that thread is reported by name.
public final class SystemOnce: EngineOnce {
    public let label: String
    /// Written only by libdispatch, atomically.
    nonisolated(unsafe) private let predicate: UnsafeMutablePointer<dispatch_once_t>
    /// The thread running the body (`pthread_self`), or 0. Only that thread's own store can make it match.
    private let runner = Atomic<UInt>(0)

    init(label: String) {
        self.label = label
        predicate = .allocate(capacity: 1)
        predicate.initialize(to: 0)
    }

    deinit { predicate.deallocate() }

    public func perform(_ body: () -> Void) {
        if runner.load(ordering: .relaxed) == UInt(pthread_self()) {
            misuse("once called recursively from its own body: once '\(label)'")
        }
        withoutActuallyEscaping(body) { body in
            var call = Callout(body: body, token: self)
            withUnsafeMutablePointer(to: &call) { pointer in
                dispatch_once_f(predicate, pointer) { context in
                    let call = context!.assumingMemoryBound(to: Callout.self).pointee
                    call.token.runner.store(UInt(pthread_self()), ordering: .relaxed)
                    call.body()
                    call.token.runner.store(0, ordering: .relaxed)
                }
            }
        }
    }

    /// What the C callout needs: the body and the token whose runner it marks.
    private struct Callout {
        let body: () -> Void
        let token: SystemOnce
    }
}
