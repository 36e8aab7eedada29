import Bench

/// The rule behind the `!` the tables put on a point: its rounds disagree more than the run's other points' do. A
/// point is marked when its headline's CV over the rounds is above `Summary.cvThreshold` (10%) and above twice the
/// median CV of the run's other points with a number (the C floor's included). On a quiet machine whose points vary by
/// 2%, a point at 12% stands out and is marked; on a shared VM whose points vary by 20%, one at 25% does not, where a
/// fixed 10% marked 289 of 324 points of a quick run on this project's 2-core VM and so said nothing about any one of
/// them. The others' median leaves the point out, so that a noisy point in a run of few cannot raise its own bar.
/// Made once per run (a sort of the CVs); a look is a binary search.
public struct NoiseMark: Sendable, Equatable {
    /// How many times the other points' median CV a point's CV must exceed to be marked.
    public static let relativeToOthers = 2.0

    /// Every point's headline CV, sorted.
    private let cvs: [Double]

    /// The mark for a run whose points have the headline CVs `cvs`.
    public init(cvs: [Double]) { self.cvs = cvs.filter(\.isFinite).sorted() }

    /// The run's median CV; `nil` without a point.
    public var medianCV: Double? { Self.median(count: cvs.count) { cvs[$0] } }

    /// The CV above which a point whose own CV is `cv` is marked: 10%, or twice the median of the others' CVs.
    public func threshold(for cv: Double) -> Double {
        // The run without one point of CV `cv`: positions at or after it shift by one.
        let index = cvs.partitioningIndex { $0 >= cv }
        let others =
            index < cvs.count && cvs[index] == cv
            ? Self.median(count: cvs.count - 1) { $0 < index ? cvs[$0] : cvs[$0 + 1] } : medianCV
        return max(Summary.cvThreshold, Self.relativeToOthers * (others ?? 0))
    }

    /// Whether a point whose headline has `summary` is marked.
    public func marks(_ summary: Summary?) -> Bool {
        guard let cv = summary?.coefficientOfVariation, cv.isFinite else { return false }
        return cv > threshold(for: cv)
    }

    /// The rule in words, with this run's median: "a CV above 10% and above twice the median CV of the run's other
    /// points (this run's median: 22%)".
    public var rule: String {
        "a CV above \(Figures.fixed(Summary.cvThreshold * 100, 0))% and above twice the median CV of the run's other points "
            + "(this run's median: " + (medianCV.map { Figures.percent($0) } ?? "none") + ")"
    }

    private static func median(count: Int, _ value: (Int) -> Double) -> Double? {
        guard count > 0 else { return nil }
        return count % 2 == 1 ? value(count / 2) : (value(count / 2 - 1) + value(count / 2)) / 2
    }
}

extension Array where Element == Double {
    /// The first index whose element satisfies `belongs`, for a predicate that is false then true along the array.
    fileprivate func partitioningIndex(where belongs: (Double) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
