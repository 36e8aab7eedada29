/// Shrinks a failing program to a small one that still fails, by removing steps (Zeller's delta debugging, the
/// one-sided variant: chunks of half the steps, then quarters, down to single steps, until no single step can go).
/// The predicate runs a candidate, given as the indices of the original script it keeps, and says whether it still
/// fails the same way; it is called at most `budget` times, so a racy failure costs a bounded number of runs.
public struct ScenarioShrinker {
    public let budget: Int

    public init(budget: Int = 150) { self.budget = budget }

    /// The smallest subsequence of `steps` found that `fails`, and how many candidates were tried.
    public func shrink(_ steps: [Int], fails: ([Int]) -> Bool) -> (kept: [Int], tries: Int) {
        var kept = steps
        var tries = 0
        var chunk = max(1, kept.count / 2)
        while tries < budget {
            var removed = false
            var start = 0
            while start < kept.count && tries < budget {
                let candidate = Array(kept[..<start] + kept[min(kept.count, start + chunk)...])
                tries += 1
                if !candidate.isEmpty && fails(candidate) {
                    kept = candidate
                    removed = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removed { break }
            if !removed || chunk > 1 { chunk = max(1, chunk / 2) }
        }
        return (kept, tries)
    }
}
