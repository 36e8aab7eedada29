import ArenaContract
import Glibc

/// The family a rule belongs to; one file of rules per concept. Reports group rules by concept, in the order the
/// catalog first names each.
public struct Concept: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier in JSON and `arena list` (`queues`, `work-items`).
    public let rawValue: String
    /// A heading for reports.
    public let heading: String

    /// A concept of the catalog's own, or of an executor author's rules (`heading` titles it in reports).
    public init(_ rawValue: String, heading: String) {
        self.rawValue = rawValue
        self.heading = heading
    }

    /// The catalog's concept called `rawValue`, if any.
    public init?(rawValue: String) {
        guard let known = Self.builtIn.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        self = Self(rawValue: name) ?? Self(name, heading: name)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let queues = Concept("queues", heading: "Queues")
    public static let mainQueue = Concept("main-queue", heading: "The main queue")
    public static let barriers = Concept("barriers", heading: "Barriers")
    public static let targets = Concept("targets", heading: "Target queues")
    public static let suspension = Concept("suspension", heading: "Suspend, resume, activation")
    public static let specific = Concept("specific", heading: "Queue-specific values")
    public static let context = Concept("context", heading: "Context and finalizers")
    public static let qos = Concept("qos", heading: "Quality of service")
    public static let groups = Concept("groups", heading: "Groups")
    public static let semaphores = Concept("semaphores", heading: "Semaphores")
    public static let once = Concept("once", heading: "Once")
    public static let apply = Concept("apply", heading: "Apply (concurrentPerform)")
    public static let after = Concept("after", heading: "asyncAfter")
    public static let workItems = Concept("work-items", heading: "Work items")
    public static let sources = Concept("sources", heading: "User-data sources")
    public static let timers = Concept("timers", heading: "Timer sources")
    public static let descriptors = Concept("descriptors", heading: "Descriptor and signal sources")
    public static let data = Concept("data", heading: "Dispatch data")
    public static let io = Concept("io", heading: "I/O channels")
    public static let processes = Concept("processes", heading: "Process sources")
    public static let files = Concept("files", heading: "File sources")
    public static let misuse = Concept("misuse", heading: "Misuse and disposal")
    public static let operations = Concept("operations", heading: "Operation queues")
    public static let executors = Concept("executors", heading: "Swift executors")
    public static let globalExecutor = Concept("global-executor", heading: "Swift's global executor")

    /// The catalog's own concepts, in report order: the concepts of `Catalog.families`, the one list.
    public static var builtIn: [Concept] { Catalog.families.map { $0.concept } }
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
    /// Whether the rule needs the engine's main loop (see `ConformanceRule.needsMainLoop`).
    public let needsMainLoop: Bool
    /// The outcome keys the rule forbids (`ConformanceRule.forbidden`): every key a failing run of it reports, beside
    /// the `Outcome.universal` ones any run may end with.
    public let forbidden: [Outcome]
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
        needsMainLoop = type.needsMainLoop
        forbidden = type.forbidden
        layer = type.layer
    }

    /// Whether the rule runs in a child process.
    public var isMisuse: Bool { type is any MisuseRule.Type }

    /// The layer of the contract the rule checks (`ConformanceRule.layer`), which a contender must have of its own for
    /// the rule to be its: `operation-queues` for the operation-queue rules, `executors` for the executor rules,
    /// `dispatch-objects` for the GCD ones (a contender standing for one layer only, `foundation` or `swift`, has no
    /// other to check). It comes from what the rule checks, whatever concept the rule is filed under.
    public let layer: Capability

    /// The capabilities an engine needs for this rule to run: its own `needs` and its `layer`.
    public var requirements: [Capability] { needs + [layer] }

    /// The layer whose reference contender decides the rule (docs/ARCHITECTURE.md, "The layer references"): the
    /// operation-queue layer's for the operation-queue rules, the executor layer's (Swift's default executors) for the
    /// task-executor rules, and the GCD layer's for the GCD rules and for serial executors, which stand on an engine's
    /// serial queues. Which contender holds that role is the lineup's to say, never the catalog's.
    public var referenceLayer: Capability {
        switch layer {
        case .operationQueues: .operationQueues
        case .executors: needs.contains(.serialExecutors) ? .dispatchObjects : .executors
        default: .dispatchObjects
        }
    }

    /// The rule as a misuse rule, if it is one.
    public var misuse: (any MisuseRule.Type)? { type as? any MisuseRule.Type }
}

/// A list of rules, grouped by concept in the order reports show them: the catalog of this package
/// (`Catalog.builtIn`), with an executor author's own rules appended where they have some. A cheap value; commands
/// and child processes are handed the one the entry point built.
public struct Catalog: Sendable {
    /// All rules, in report order.
    public let rules: [Rule]

    /// A catalog of `rules`, in that order.
    public init(_ rules: [Rule]) { self.rules = rules }

    /// The rule families of this package, one per concept, in report order: the one list of concepts. Adding a
    /// concept is its file of rules (a `RuleFamily` naming its `Concept`) and one entry here.
    static let families: [any RuleFamily.Type] = [
        QueueRules.self, MainQueueRules.self, BarrierRules.self, TargetRules.self, SuspensionRules.self, SpecificRules.self,
        ContextRules.self, QoSRules.self, GroupRules.self, SemaphoreRules.self, OnceRules.self, ApplyRules.self, AfterRules.self,
        WorkItemRules.self, SourceRules.self, TimerRules.self, DescriptorRules.self, DataRules.self, IOChannelRules.self,
        ProcessRules.self, FileRules.self, MisuseRules.self, OperationRules.self, ExecutorRules.self,
        GlobalExecutorRules.self,
    ]

    /// The rules of this package, each with its source.
    public static let builtIn = Catalog(families.flatMap { family in family.rules.map { Rule($0, concept: family.concept) } })

    /// This catalog followed by `more`; an id already present is a programming error, and stops the process
    /// naming it.
    public func appending(_ more: [Rule]) -> Catalog {
        for rule in more where self.rule(id: rule.id) != nil || more.filter({ $0.id == rule.id }).count > 1 {
            misuse("Catalog: two rules have the id '\(rule.id)'")
        }
        return Catalog(rules + more)
    }

    /// The concepts of the rules, in the order the catalog first names each.
    public var concepts: [Concept] {
        var seen: [Concept] = []
        for rule in rules where !seen.contains(rule.concept) { seen.append(rule.concept) }
        return seen
    }

    /// The rule with `id`, if any.
    public func rule(id: String) -> Rule? { rules.first { $0.id == id } }

    /// The rules whose id matches the shell-style `pattern` (`*`, `?`, `[…]`).
    public func rules(matching pattern: String) -> [Rule] {
        rules(matchingAny: [pattern])
    }

    /// The rules whose id matches any of `patterns`, in catalog order.
    public func rules(matchingAny patterns: [String]) -> [Rule] {
        rules.filter { rule in patterns.contains { fnmatch($0, rule.id, 0) == 0 } }
    }
}
