/// What a check says it saw when it can tell why it failed: a stable name a workload gives a failure it diagnosed, so
/// that a contender can declare the failure as its own documented deviation (`KnownDeviation`) and a report can name
/// it, with no one matching message text. A string underneath, written to run records as it is.
public struct Symptom: RawRepresentable, Sendable, Codable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// An operation queue held an operation that was ready (every dependency finished), counted it, and did not start
    /// it until another operation was added to the queue: `op-graph`'s diagnosis of a round whose sink never ran.
    public static let readyOperationNotStarted = Symptom(rawValue: "operation-queue.ready-operation-not-started")
}

/// A way a contender departs from its contract that is documented as the implementation's own, not the suite's: a
/// rule it may fail, or a symptom a workload may report of it, with where it is documented. A reference declares
/// these (`Engine.deviations`) so that its own failure reads as a result: the report names the finding, and the run's
/// exit code leaves it out unless asked to be strict. An engine under test has no use for them: its failures are
/// failures.
public struct KnownDeviation: Sendable, Hashable, Codable {
    /// What shows the deviation.
    public enum Sign: Sendable, Hashable, CustomStringConvertible {
        /// The rule with this id fails (a race the reference loses now and then).
        case rule(String)
        /// A workload's point stops or fails with this symptom.
        case symptom(Symptom)

        /// "rule `id`" or "symptom `name`".
        public var description: String {
            switch self {
            case .rule(let id): "rule \(id)"
            case .symptom(let symptom): "symptom \(symptom)"
            }
        }
    }

    /// What shows it.
    public let sign: Sign
    /// What it is and where it is documented, one line (`docs/FINDINGS.md §12: ...`).
    public let finding: String

    public init(_ sign: Sign, finding: String) {
        self.sign = sign
        self.finding = finding
    }

    // Written as {"rule": id, "finding": ...} or {"symptom": name, "finding": ...}.
    enum CodingKeys: String, CodingKey { case rule, symptom, finding }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        finding = try container.decode(String.self, forKey: .finding)
        if let rule = try container.decodeIfPresent(String.self, forKey: .rule) {
            sign = .rule(rule)
        } else {
            sign = .symptom(try container.decode(Symptom.self, forKey: .symptom))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch sign {
        case .rule(let id): try container.encode(id, forKey: .rule)
        case .symptom(let symptom): try container.encode(symptom, forKey: .symptom)
        }
        try container.encode(finding, forKey: .finding)
    }
}

extension Sequence where Element == KnownDeviation {
    /// The finding documented for `sign`, if one of these is it.
    public func finding(for sign: KnownDeviation.Sign) -> String? { first { $0.sign == sign }?.finding }
}
