import ArenaContract
import Glibc
import Harness
import Synchronization

/// Which thread runs the engine's main loop in this process, for rules about the main queue: the child process
/// records it just before the thread calls `dispatchMain()`, and a check asks whether a block runs there.
public enum MainLoopThread {
    /// The loop's `pthread_t`, or 0 before any thread entered the loop.
    private static let thread = Atomic<UInt>(0)

    /// Whether some thread of this process runs the main loop.
    public static var isRunning: Bool { thread.load(ordering: .acquiring) != 0 }

    /// Whether the caller is the main-loop thread.
    public static var isCurrent: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Makes the calling thread `engine`'s main-loop thread and runs `body` on a thread of its own: the loop never
    /// returns, so `body` must end the process.
    public static func run<E: Engine>(_ engine: E, with body: @escaping @Sendable () -> Never) -> Never {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        Threads.detach { body() }
        engine.dispatchMain()
    }
}
