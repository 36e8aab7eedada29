import ArenaContract
import Harness

/// One thing a scenario's run saw, in the order a lock gave them: its place in the trace is its sequence number.
public struct ScenarioEvent: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        /// A block began (`subject` the block, `value` the specific value it read, -1 for none).
        case start
        /// A block ended (`subject` the block).
        case end
        /// A step is about to make its call (`subject` the step; `value` a deadline in ns where it sets one).
        case mark
        /// A step's call returned (`subject` the step; `value` 1 for a wait that succeeded, 0 for one that timed out).
        case returned
        /// A block is about to signal a counting semaphore (`subject` the semaphore, `value` the block).
        case signal
        /// A block's signal returned (`subject` the semaphore, `value` twice the block, plus 1 when the signal says it
        /// woke a waiter).
        case signalled
        /// A block entered (`enter`) or is leaving (`leave`) the critical section of a lock (`subject` the lock, `value`
        /// the block).
        case enter, leave
        /// A block's wait on a lock timed out (`subject` the lock, `value` the block).
        case lockTimedOut
        /// An apply body ran (`subject` the step, `value` its index).
        case index
        /// A timer handler read its data (`subject` the block, `value` the data).
        case data
        /// A block waiting inside for a unit (handoff, ping-pong, sync beside) got it (`value` 1) or waited 2 s in vain
        /// (0) (`subject` the block).
        case handoff
        /// The script is about to submit the context of a step made in one (`subject` the step).
        case contextCall
        /// The script's submission of a step's context returned (`subject` the step).
        case contextReturned
        /// A block read the class it runs at as it began (`subject` the block, `value` the class's rank).
        case qos
        /// A block read its specific value again as it ended (`subject` the block, `value` the value, -1 for none).
        case reread
        /// A perform of a once-object returned (`subject` the once, `value` the block that made it, -1 for the script).
        case performed
    }

    public let kind: Kind
    public let subject: Int
    public let value: Int64
    /// When it happened, on the monotonic clock (`Deadline`).
    public let time: UInt64

    public init(kind: Kind, subject: Int, value: Int64, time: UInt64) {
        self.kind = kind
        self.subject = subject
        self.value = value
        self.time = time
    }
}

/// Records a scenario's events from every thread under one pthread lock (ThreadSanitizer sees it), and lets the
/// script wait until every block the model owes has ended.
final class ScenarioRecorder: @unchecked Sendable {
    private let condition = Condition()
    private var events: [ScenarioEvent] = []
    private var owed: Set<Int>
    private var claimed: Set<Int> = []
    private var ended: Set<Int> = []
    /// Source handlers still owed data: how their merges combine, what their calls' data must come to, and what it
    /// came to so far.
    private var owedData: [Int: (merge: DataMerge, total: UInt, seen: UInt)] = [:]

    init(owed: Set<Int>) {
        self.owed = owed
        events.reserveCapacity(256)
    }

    func record(_ kind: ScenarioEvent.Kind, _ subject: Int, _ value: Int64 = 0) {
        let time = Deadline.now().nanoseconds
        condition.update {
            events.append(ScenarioEvent(kind: kind, subject: subject, value: value, time: time))
            if kind == .end {
                owed.remove(subject)
                ended.insert(subject)
            }
            if kind == .data, var entry = owedData[subject] {
                let data = UInt(truncatingIfNeeded: value)
                switch entry.merge {
                case .add: entry.seen &+= data
                case .or: entry.seen |= data
                case .replace: entry.seen = data
                }
                owedData[subject] = entry.seen == entry.total ? nil : entry
            }
        }
    }

    /// Whether block `id` has ended once, waiting for it until `deadline` at most.
    func waitEnded(_ id: Int, until deadline: Deadline) -> Bool {
        condition.wait(until: deadline) { ended.contains(id) }
    }

    /// True the first time it is asked for `id`, false after: a context's host makes its call once, however often
    /// an engine runs it.
    func claim(_ id: Int) -> Bool { condition.lock.withLock { claimed.insert(id).inserted } }

    /// Makes the run wait, when it settles, until the data of handler `handler`'s calls comes to `total`.
    func owe(data total: UInt, to handler: Int, merging merge: DataMerge) {
        condition.update { owedData[handler] = (merge, total, 0) }
    }

    /// Waits until every owed block but those of `later` ended and every source handler saw the data owed to it, or
    /// `deadline` passed; the blocks and handlers still owed.
    func settle(until deadline: Deadline, leaving later: Set<Int> = []) -> Set<Int> {
        _ = condition.wait(until: deadline) { owed.isSubset(of: later) && owedData.isEmpty }
        return condition.lock.withLock { owed.subtracting(later).union(owedData.keys) }
    }

    var trace: [ScenarioEvent] { condition.lock.withLock { events } }
}
