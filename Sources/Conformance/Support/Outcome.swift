import ArenaContract
import Harness

/// What a failing run saw, as a stable key (a jcstress outcome): `notify-early`, `overlap`, `missing`. A failure's
/// text carries the numbers of that run; its key does not, so `arena conform --repeat 20` counts runs by key ("fail
/// 17/20: early 15, timeout 2") with one text per key as the example. Every rule lists the keys it forbids
/// (`ConformanceRule.forbidden`); `docs/RULES.md` shows them.
///
/// Keys are kebab-case words; the common ones are named below, and a rule may coin its own with a string literal.
public struct Outcome: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The key as reports print it.
    public let key: String

    public init(_ key: String) { self.key = key }
    public init(stringLiteral key: String) { self.key = key }
    public init(from decoder: any Decoder) throws { key = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
    }
    public var description: String { key }
}

// MARK: - What a check sees

extension Outcome {
    /// Something awaited did not happen before its deadline: a block never ran, a handler never came, a wait never
    /// returned.
    public static let missing: Outcome = "missing"
    /// Fewer happened than were owed: blocks, merges, units or bytes lost among others that arrived.
    public static let lost: Outcome = "lost"
    /// More happened than allowed: a body run twice, a handler called once too often, a unit admitted too many.
    public static let extra: Outcome = "extra"
    /// Something ran or returned before what it must follow (a notify before the work, a timer before its deadline,
    /// a wait that returned at once).
    public static let early: Outcome = "early"
    /// Something happened later than a generous bound allows (each rule that uses it says its bound).
    public static let late: Outcome = "late"
    /// Something ran while it must be held back: on a suspended or inactive queue, behind an unfinished dependency,
    /// after it was cancelled.
    public static let ranWhileHeld: Outcome = "ran-while-held"
    /// Work that must be exclusive overlapped.
    public static let overlap: Outcome = "overlap"
    /// Work that must run in parallel ran one at a time.
    public static let serialized: Outcome = "serialized"
    /// An order the contract fixes was broken.
    public static let reordered: Outcome = "reordered"
    /// A value, result, error or byte differs from the one owed.
    public static let wrongValue: Outcome = "wrong-value"
    /// Work ran in the wrong place: another thread, queue, executor, class of service.
    public static let wrongPlace: Outcome = "wrong-place"
    /// An object reported a state the contract does not allow at that point (an operation's flags, a count).
    public static let wrongState: Outcome = "wrong-state"
    /// A block read a value older than a write that happens before it: the engine's hand-off published nothing.
    public static let stale: Outcome = "stale"
    /// A copy was made where the contract shares storage.
    public static let copied: Outcome = "copied"
    /// Indices or blocks of one call ran other than exactly once (some skipped, some repeated).
    public static let notOnce: Outcome = "not-once"
    /// A source delivered every merge as its own handler call: nothing coalesced into a slow handler.
    public static let uncoalesced: Outcome = "uncoalesced"
    /// A repeating timer's fires slid later and later: it was re-armed from its handler, not from its schedule.
    public static let drift: Outcome = "drift"
}

// MARK: - How a run ended, whatever the rule

extension Outcome {
    /// The run's watchdog fired: a deadlock, a lost wake-up, a block that never returned.
    public static let timeout: Outcome = "timeout"
    /// The child process died in the run (a signal, an exit without its report).
    public static let crash: Outcome = "crash"
    /// A sanitizer reported a race or a memory error during the run.
    public static let sanitizer: Outcome = "sanitizer"
    /// The check could not set itself up: an OS call it needs failed (a pipe, a file, a socket), which says nothing
    /// about the engine.
    public static let setup: Outcome = "setup"
    /// The check failed in a way it gave no key to (an error thrown by the engine or the check's own plumbing).
    public static let unkeyed: Outcome = "unkeyed"

    /// A misuse rule's trigger returned: the engine let the misuse pass.
    public static let allowed: Outcome = "allowed"
    /// A misuse child died without naming the object and the misuse.
    public static let unnamed: Outcome = "unnamed"

    /// The outcomes any run of any rule may end with, which no rule lists.
    public static let universal: [Outcome] = [.timeout, .crash, .sanitizer, .setup, .unkeyed]
}

// MARK: - What each key means, in one line

extension Outcome {
    /// What the key means, in one line (the named keys above; `nil` for a key a rule coined). `arena explain` prints
    /// it beside each outcome a rule forbids.
    public var meaning: String? { Self.meanings[self] }

    private static let meanings: [Outcome: String] = [
        .missing: "something awaited did not happen before its deadline (a block, a handler, a wait's return)",
        .lost: "fewer happened than were owed: blocks, merges, units or bytes lost among others that arrived",
        .extra: "more happened than allowed: a body run twice, a handler called once too often",
        .early: "something ran or returned before what it must follow",
        .late: "something happened later than the rule's generous bound",
        .ranWhileHeld: "something ran while it must be held back (suspended, inactive, a dependency unfinished, cancelled)",
        .overlap: "work that must be exclusive overlapped",
        .serialized: "work that must run in parallel ran one at a time",
        .reordered: "an order the contract fixes was broken",
        .wrongValue: "a value, result, error or byte differs from the one owed",
        .wrongPlace: "work ran in the wrong place: another thread, queue, executor or class of service",
        .wrongState: "an object reported a state the contract does not allow at that point",
        .stale: "a block read a value older than a write that happens before it",
        .copied: "a copy was made where the contract shares storage",
        .notOnce: "indices or blocks of one call ran other than exactly once",
        .uncoalesced: "a source delivered every merge as its own handler call",
        .drift: "a repeating timer's fires slid later and later",
        .timeout: "the run's watchdog fired: a deadlock, a lost wake-up, a block that never returned",
        .crash: "the child process died in the run",
        .sanitizer: "a sanitizer reported a race or a memory error during the run",
        .setup: "the check could not set itself up (an OS call it needs failed)",
        .unkeyed: "the check failed in a way it gave no key to",
        .allowed: "the misuse's trigger returned: the engine let the misuse pass",
        .unnamed: "the child died without naming the object and the misuse",
    ]
}
