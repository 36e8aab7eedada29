import Glibc
import Harness

/// Runs the blocking `body` on every element of `items` on `width` threads of its own, and returns the results in the
/// order of `items`, without holding a thread of Swift's cooperative pool while it waits. For work that mostly sleeps:
/// a child process waited for (a mutant's rule waiting out its deadline for a handler that never comes), where
/// `width` children asleep at once cost one wait, not `width`.
func onThreads<Item: Sendable, Result: Sendable>(
    _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) -> Result
) async -> [Result] {
    precondition(width > 0, "onThreads: width must be at least 1, not \(width)")
    let state = Locked((next: 0, results: [Result?](repeating: nil, count: items.count)))
    return await withCheckedContinuation { continuation in
        Threads.detach {
            let threads = (0..<min(width, items.count)).map { _ in
                Threads.start {
                    while true {
                        let index = state.withLock { state -> Int? in
                            guard state.next < items.count else { return nil }
                            defer { state.next += 1 }
                            return state.next
                        }
                        guard let index else { return }
                        let result = body(items[index])
                        state.withLock { $0.results[index] = result }
                    }
                }
            }
            for thread in threads { pthread_join(thread, nil) }
            continuation.resume(returning: state.withLock { $0.results.map { $0! } })
        }
    }
}
