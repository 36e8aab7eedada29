import Harness

/// Runs the blocking `body` on every element of `items` on `width` threads of its own (`Threads.map`), and returns the
/// results in the order of `items`, without holding a thread of Swift's cooperative pool while it waits. For work that
/// mostly sleeps: a child process waited for (a mutant's rule waiting out its deadline for a handler that never comes),
/// where `width` children asleep at once cost one wait, not `width`.
func onThreads<Item: Sendable, Result: Sendable>(
    _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) -> Result
) async -> [Result] {
    precondition(width > 0, "onThreads: width must be at least 1, not \(width)")
    return await withCheckedContinuation { continuation in
        Threads.detach { continuation.resume(returning: Threads.map(items.count, jobs: width) { body(items[$0]) }) }
    }
}
