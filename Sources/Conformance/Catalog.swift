import Contenders

/// The family a rule belongs to; one file of rules per concept.
public enum Concept: String, CaseIterable, Sendable, Codable {
    case queues, barriers, targets, suspension, specific, groups, semaphores, once, apply, after
    case workItems = "work-items"
    case sources, timers, descriptors, misuse

    /// A heading for reports.
    public var heading: String {
        switch self {
        case .queues: "Queues"
        case .barriers: "Barriers"
        case .targets: "Target queues"
        case .suspension: "Suspend, resume, activation"
        case .specific: "Queue-specific values"
        case .groups: "Groups"
        case .semaphores: "Semaphores"
        case .once: "Once"
        case .apply: "Apply (concurrentPerform)"
        case .after: "asyncAfter"
        case .workItems: "Work items"
        case .sources: "User-data sources"
        case .timers: "Timer sources"
        case .descriptors: "Descriptor and signal sources"
        case .misuse: "Misuse and disposal"
        }
    }
}

/// The rules of one concept, as its file declares them.
protocol RuleFamily: SendableMetatype {
    static var concept: Concept { get }
    static var rules: [any ConformanceRule.Type] { get }
}

/// One rule of the catalog with its metadata, ready to run.
public struct Rule: Sendable, Identifiable {
    public let id: String
    public let concept: Concept
    public let title: String
    public let source: String
    public let needs: [Capability]
    /// The rule's type: a `BehaviourRule` or a `MisuseRule`.
    public let type: any ConformanceRule.Type

    /// A rule of `concept`, described by its type (the catalog's own rules, or an executor author's).
    public init(_ type: any ConformanceRule.Type, concept: Concept) {
        self.type = type
        self.concept = concept
        id = type.id
        title = type.title
        source = type.source
        needs = type.needs.sorted()
    }

    /// Whether the rule runs in a child process.
    public var isMisuse: Bool { type is any MisuseRule.Type }

    /// The rule as a misuse rule, if it is one.
    public var misuse: (any MisuseRule.Type)? { type as? any MisuseRule.Type }
}

/// Every rule, grouped by concept in the order reports show them.
public enum Catalog {
    static let families: [any RuleFamily.Type] = [
        QueueRules.self, BarrierRules.self, TargetRules.self, SuspensionRules.self, SpecificRules.self,
        GroupRules.self, SemaphoreRules.self, OnceRules.self, ApplyRules.self, AfterRules.self,
        WorkItemRules.self, SourceRules.self, TimerRules.self, DescriptorRules.self, MisuseRules.self,
    ]

    /// All rules, in report order.
    public static let rules: [Rule] = families.flatMap { family in
        family.rules.map { Rule($0, concept: family.concept) }
    }

    /// The rule with `id`, if any.
    public static func rule(id: String) -> Rule? { rules.first { $0.id == id } }

    /// The rules whose id matches the shell-style `pattern` (`*`, `?`, `[…]`).
    public static func rules(matching pattern: String) -> [Rule] {
        rules(matchingAny: [pattern])
    }

    /// The rules whose id matches any of `patterns`, in catalog order.
    public static func rules(matchingAny patterns: [String]) -> [Rule] {
        rules.filter { rule in patterns.contains { fnmatch($0, rule.id, 0) == 0 } }
    }
}

import Glibc
