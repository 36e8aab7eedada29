import Bench
import Glibc

/// The Mann–Whitney U test (Wilcoxon rank-sum), two-sided: how likely two samples this far apart are when both come
/// from one distribution. Google Benchmark's compare.py uses it to say whether a change between runs is more than
/// noise; this computes what its `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")` computes.
///
/// Like SciPy's default, the p-value is exact (the null distribution of U counted) when both samples are smaller
/// than 8 and have no ties, and otherwise the normal approximation with the tie and continuity corrections. Cost:
/// O(n log n) for the ranks, plus O(n1 · n2 · (n1 + n2)) for the exact count, which is tiny at those sizes.
public enum MannWhitney {
    /// The two-sided p-value of samples `x` and `y`; `nil` when either is empty.
    public static func pValue(_ x: [Double], _ y: [Double]) -> Double? {
        let n1 = x.count, n2 = y.count
        guard n1 > 0, n2 > 0 else { return nil }
        // Midranks of the pooled sample, and the sizes of the tie groups.
        let pooled = (x.map { ($0, true) } + y.map { ($0, false) }).sorted { $0.0 < $1.0 }
        var rankSumX = 0.0
        var tieTerm = 0.0
        var start = 0
        while start < pooled.count {
            var end = start
            while end + 1 < pooled.count && pooled[end + 1].0 == pooled[start].0 { end += 1 }
            let rank = Double(start + end + 2) / 2
            for index in start...end where pooled[index].1 { rankSumX += rank }
            let ties = Double(end - start + 1)
            tieTerm += ties * ties * ties - ties
            start = end + 1
        }
        let u1 = rankSumX - Double(n1 * (n1 + 1)) / 2
        let u = max(u1, Double(n1 * n2) - u1)

        if n1 < 8 && n2 < 8 && tieTerm == 0 {
            return min(1, 2 * exactUpperTail(Int(u.rounded()), n1, n2))
        }
        let n = Double(n1 + n2)
        let mean = Double(n1 * n2) / 2
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return 1 }
        let z = (u - mean - 0.5) / variance.squareRoot()
        return min(1, max(0, erfc(z / 2.0.squareRoot())))  // 2 · P(Z > z)
    }

    /// P(U ≥ u) under the null hypothesis, counting the arrangements: `counts[k]` is how many of the C(n1 + n2, n1)
    /// orderings give U = k, built up one sample size at a time.
    static func exactUpperTail(_ u: Int, _ n1: Int, _ n2: Int) -> Double {
        // ways[i][j][k]: orderings of i x's and j y's with U = k (an x above a y adds one).
        var ways = [[[Double]]](repeating: [[Double]](repeating: [], count: n2 + 1), count: n1 + 1)
        for i in 0...n1 {
            for j in 0...n2 {
                var row = [Double](repeating: 0, count: i * j + 1)
                if i == 0 || j == 0 {
                    row[0] = 1
                } else {
                    // The largest value is an x (beating all j y's) or a y.
                    for (k, count) in ways[i - 1][j].enumerated() { row[k + j] += count }
                    for (k, count) in ways[i][j - 1].enumerated() { row[k] += count }
                }
                ways[i][j] = row
            }
        }
        let all = ways[n1][n2]
        let total = all.reduce(0, +)
        return all[min(u, all.count)...].reduce(0, +) / total
    }
}
