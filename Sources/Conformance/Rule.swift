import ArenaContract
import Harness

/// A named rule of the GCD contract. Rules are types: metadata in static properties, the check a static generic
/// function, so one rule runs specialised on every engine.
public protocol ConformanceRule: SendableMetatype {
    /// Dotted identifier, concept first (`barrier.after-earlier`).
    static var id: String { get }
    /// The rule in one sentence.
    static var title: String { get }
    /// Where the rule comes from: a man page, a libdispatch test, a header, or a document of `Bibliography` by its
    /// citation (`[GCD Handbook] (groups)`).
    static var source: String { get }
    /// Capabilities the rule needs; an engine lacking one reports `unsupported` with its reason.
    static var needs: Set<Capability> { get }
    /// Whether the rule needs the engine's main loop running (rules about the main queue). Its child process gives
    /// the loop the thread the process started on, and runs the check on another (`ConformanceChild`).
    static var needsMainLoop: Bool { get }
    /// The layer of the contract the rule checks, which a contender must have of its own for the rule to be its:
    /// `dispatch-objects` (the GCD objects) by default, `operation-queues` for an `OperationRule`, `executors` for an
    /// `ExecutorRule`. It follows what the rule checks, never the concept it is filed under; a misuse rule of another
    /// layer than GCD's says so here.
    static var layer: Capability { get }
    /// The outcomes the rule forbids (jcstress's declared outcomes): every key its check can fail with. Runs that end
    /// some other way carry one of `Outcome.universal`, which no rule lists.
    static var forbidden: [Outcome] { get }
}

extension ConformanceRule {
    public static var needs: Set<Capability> { [] }
    public static var needsMainLoop: Bool { false }
    public static var layer: Capability { .dispatchObjects }
}

/// A rule checked in the running process: `check` returns when the engine kept the rule and throws `RuleFailure`
/// with what it observed otherwise. The runner bounds it with a watchdog.
public protocol BehaviourRule: ConformanceRule {
    static func check<E: Engine>(_ engine: E) throws
}

/// A rule of the operation-queue contract (Foundation's `OperationQueue`), checked in the running process on the
/// engine's operation layer (`Engine.operations`): `check` returns when the layer kept the rule and throws
/// `RuleFailure` otherwise. Generic over the layer, so it runs specialised on each.
public protocol OperationRule: ConformanceRule {
    static func check<L: OperationLayer>(_ layer: L) throws
}

extension OperationRule {
    public static var layer: Capability { .operationQueues }
}

/// A rule of the Swift executor contract (custom actor executors, SE-0392; task executor preference, SE-0417), checked
/// in the running process on the engine's executor layer (`Engine.executors`): `check` runs in a detached task with
/// no preference of its own, returns when the layer kept the rule and throws `RuleFailure` otherwise. Generic over
/// the engine (for `currentSpecific`), so it runs specialised on each.
public protocol ExecutorRule: ConformanceRule {
    static func check<E: Engine>(_ engine: E) async throws
}

extension ExecutorRule {
    public static var layer: Capability { .executors }
}

/// A rule of Swift Concurrency's global executor: `check` runs with the contender installed as the process's global
/// executor (`GlobalExecutorTakeover.install`, with `main` where the rule needs the main loop), so every task and
/// default actor it starts runs on the contender; `swift`, Swift's default executor, is the reference. The hooks are
/// process-wide, so the rule runs only in a child process of its own (`arena conform` always makes one), as an
/// `ExecutorRule` otherwise: in a detached task, returning when the contender kept the rule.
public protocol GlobalExecutorRule: ConformanceRule {
    static func check<E: Engine>(_ engine: E) async throws
}

extension GlobalExecutorRule {
    public static var layer: Capability { .executors }
    public static var needs: Set<Capability> { [.globalExecutor] }
}

/// A rule about misuse: `trigger` breaks the contract and must not return; it runs in a child process, which must
/// die with a message that names the object (`objectLabel`) and the misuse (one of `keywords`).
public protocol MisuseRule: ConformanceRule {
    /// The label `trigger` gives the misused object; the diagnostic must contain it.
    static var objectLabel: String { get }
    /// Words naming the misuse; the diagnostic must contain one (case-insensitive).
    static var keywords: [String] { get }
    /// Misuses the engine. Returning means the engine let the misuse pass.
    static func trigger<E: Engine>(_ engine: E)
}

extension MisuseRule {
    /// Every misuse rule forbids the same two outcomes: the trigger returned (`allowed`), or the child died without
    /// naming the object and the misuse (`unnamed`).
    public static var forbidden: [Outcome] { [.allowed, .unnamed] }
}
