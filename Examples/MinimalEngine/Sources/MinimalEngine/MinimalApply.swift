import ArenaContract

/// apply: the caller and up to `width - 1` helper blocks on the global queue claim chunks of indices under the
/// engine's lock until none are left, then the caller sleeps until the chunks helpers took are done. The caller always
/// takes part, so apply finishes even when every worker is busy, and a nested apply runs on its caller.
final class MinimalApply: @unchecked Sendable {
    private let runtime: Runtime, iterations: Int, chunk: Int
    /// The caller's body, borrowed: read only by a thread holding an unfinished chunk, dropped before apply returns.
    private var body: (@Sendable (Int) -> Void)?
    private var claimed = 0, completed = 0  // guarded by the engine's lock

    private init(_ iterations: Int, _ runtime: Runtime, _ body: @escaping @Sendable (Int) -> Void) {
        (self.iterations, self.runtime, self.body) = (iterations, runtime, body)
        chunk = max(1, iterations / (runtime.width * 8))  // eight chunks a thread even out uneven indices
    }

    static func run(_ iterations: Int, _ runtime: Runtime, _ body: @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        withoutActuallyEscaping(body) { body in
            let apply = MinimalApply(iterations, runtime, body)
            for _ in 1..<min(runtime.width, (iterations + apply.chunk - 1) / apply.chunk) {
                runtime.global.async { apply.work() }
            }
            apply.work()
            runtime.locked {
                _ = runtime.wait(until: .distantFuture) { apply.completed == iterations }
                apply.body = nil  // late helpers find nothing to claim, so never read it
            }
        }
    }

    private func work() {
        while let range = runtime.locked({ () -> Range<Int>? in
            guard claimed < iterations else { return nil }
            defer { claimed = min(claimed + chunk, iterations) }
            return claimed..<min(claimed + chunk, iterations)
        }) {
            for index in range { body!(index) }
            runtime.changing { completed += range.count }
        }
    }
}
