import ArenaContract
import Bench
import Conformance

/// Every failure a run record holds (a rule failed or timed out, a point without a number) with whose it is: an
/// engine under test's, or a reference's (a contender holding a layer's reference role: `system`, `foundation`,
/// `swift`), and for a reference's, the finding it documents as its own (`KnownDeviation`) when one matches. What
/// the exit codes of `arena conform`, `arena bench` and `arena report` follow, and what report.md's summary lists.
///
/// The rule a script can rely on: a run fails (exit 1) when an engine under test failed a rule or has a point without a
/// number, when a reference failed in a way nobody documented (the reference decides the contract, so a failure of
/// its own that no finding explains may be the suite's), or when the benchmarks were stopped before their end. A
/// reference's documented deviation is a result: reported, named with its finding, and left out of the exit code,
/// unless `strict` (`--strict`) asks for every failure. One pass over the record.
public struct RunFailures: Sendable {
    /// One failure.
    public struct Entry: Sendable, Equatable {
        /// What failed.
        public enum Subject: Sendable, Equatable {
            /// The rule with this id.
            case rule(String)
            /// The point with this benchmark name (`op-graph/foundation/shape:chain/width:1/depth:100`).
            case point(String)
        }

        /// The contender that failed.
        public let contender: String
        public let subject: Subject
        /// What the record says of it: the rule's status and detail, or the point's failure kind and message.
        public let detail: String
        /// Whether the contender is a reference (holds a layer's reference role), not an engine under test.
        public let isReference: Bool
        /// The finding the reference documents for this failure (`KnownDeviation.finding`), when one matches.
        public let finding: String?

        /// Whether the failure leaves the exit code alone: a reference's own, documented.
        public var isDocumentedDeviation: Bool { isReference && finding != nil }

        /// "rule `id`" or "point `name`", as the summary names it; with `code` false, without the backticks, as a
        /// line on standard error does.
        public func subjectText(code: Bool = true) -> String {
            let quote = code ? "`" : ""
            switch subject {
            case .rule(let id): return "rule \(quote)\(id)\(quote)"
            case .point(let name): return "point \(quote)\(name)\(quote)"
            }
        }
    }

    /// Every failure: the rules' in the matrix's order, then the points' in run order.
    public let entries: [Entry]
    /// Whether the benchmarks were stopped before their end (an interrupt, a time limit).
    public let stopped: Bool

    /// The failures of `record`.
    public init(_ record: RunRecord) {
        self.init(
            contenders: record.contenders, conformance: record.conformance?.report,
            points: record.measuredPoints.flatMap(\.results) + (record.floor?.results ?? []),
            stopped: record.benchmarks?.stopped == true)
    }

    /// The failures of a matrix and of points, with the contenders that made them (their roles and deviations).
    public init(contenders records: [ContenderRecord], conformance: ConformanceReport?, points: [PointResult] = [], stopped: Bool = false) {
        let contenders = Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func entry(_ engine: String, _ subject: Entry.Subject, _ detail: String, sign: KnownDeviation.Sign?) -> Entry {
            let contender = contenders[engine]
            let isReference = !(contender?.roles.isEmpty ?? true)
            let finding = isReference ? sign.flatMap { contender?.profile.deviations.finding(for: $0) } : nil
            return Entry(contender: engine, subject: subject, detail: detail, isReference: isReference, finding: finding)
        }
        var entries: [Entry] = []
        for result in conformance?.results ?? [] where result.status.isFailure {
            entries.append(
                entry(result.engine, .rule(result.rule), "\(result.status.rawValue): \(result.detail)", sign: .rule(result.rule)))
        }
        for result in points where !result.succeeded {
            let failure = result.failure ?? Failure(.error, "no repetitions")
            entries.append(
                entry(
                    result.engine, .point(result.name), "\(failure.kind.rawValue): \(failure.message)",
                    sign: failure.symptom.map(KnownDeviation.Sign.symptom)))
        }
        self.entries = entries
        self.stopped = stopped
    }

    /// Whether the run fails: any failure but a reference's documented deviation, or benchmarks stopped before their
    /// end; with `strict`, any failure at all.
    public func failsRun(strict: Bool = false) -> Bool {
        stopped || entries.contains { strict || !$0.isDocumentedDeviation }
    }

    /// The references' failures, documented or not.
    public var references: [Entry] { entries.filter(\.isReference) }
}
