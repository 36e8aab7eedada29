import ArenaContract

/// Which states of the contract's objects the catalog's rules drive, in four tables: what a program can change × the
/// moment it changes it, each object × its place in a target chain, each blocking or scheduling call × the place it
/// is made from, and each parameter × its edge values.
///
/// Each cell names the rules whose checks drive that state and check what must happen there, or says why it has none.
/// `CatalogReport.markdown()` renders `builtIn` into docs/RULES.md, and a test keeps every rule id named here in the
/// catalog and every table's rows and columns those of issue 39.
public struct StateMatrix: Sendable {
    /// One table: its rows, each with a cell for every column.
    public struct Table: Sendable {
        /// A short name for the table ("a" to "d"), used in its heading.
        public let id: String
        /// The heading: what the rows and the columns are.
        public let title: String
        /// What a row is (the first column's heading).
        public let rowHeading: String
        /// What each column is, left to right.
        public let columns: [String]
        /// One sentence on what the columns mean for objects they fit less plainly.
        public let reading: String
        /// The rows, in order; each has as many cells as there are columns.
        public let rows: [Row]
    }

    /// A row of a table: the thing it is about and a cell per column.
    public struct Row: Sendable {
        /// The thing the row is about: a mutable property, an object, a call or a parameter.
        public let name: String
        /// One cell per column of the table.
        public let cells: [Cell]

        init(_ name: String, _ cells: [Cell]) {
            self.name = name
            self.cells = cells
        }
    }

    /// One cell: the rules that drive the state and check it, or the reason none does; never both.
    public struct Cell: Sendable, Hashable {
        /// Ids of rules in `Catalog.builtIn` whose checks drive this state and check what must happen there.
        public let rules: [String]
        /// A short remark on how the rules reach the state, where their ids do not say it.
        public let note: String?
        /// Why the cell has no rule; nil when it has rules.
        public let reason: Reason?

        /// A cell covered by `rules`, with an optional remark on how they reach it.
        static func rules(_ ids: String..., note: String? = nil) -> Cell { Cell(rules: ids, note: note, reason: nil) }
        /// An empty cell, with its reason.
        static func empty(_ reason: Reason) -> Cell { Cell(rules: [], note: nil, reason: reason) }
        /// An empty cell that no rule covers yet; `missing` says what a rule would have to do.
        static func gap(_ missing: String) -> Cell { .empty(.gap(missing)) }
        /// An empty cell the scenario generator (`arena explore`) drives.
        static var scenarios: Cell { .empty(.scenarios) }
        /// An empty cell whose state the contract forbids, and why.
        static func notAllowed(_ why: String) -> Cell { .empty(.notAllowed(why)) }
        /// An empty cell whose state does not exist for the row's object, and why.
        static func notApplicable(_ why: String) -> Cell { .empty(.notApplicable(why)) }
        /// An empty cell whose state is misuse, which the misuse rule `rule` checks: the process stops with a message.
        static func misuse(_ rule: String, _ what: String) -> Cell { .empty(.misuse(rule: rule, what)) }
    }

    /// Why a cell names no rule.
    public enum Reason: Sendable, Hashable {
        /// The state is misuse: the misuse rule `rule` drives it (the process must stop with a message); the text
        /// says which part of the cell it covers.
        case misuse(rule: String, String)
        /// The contract forbids the state; the text says why.
        case notAllowed(String)
        /// The state does not exist for the row's object (a column that does not fit it); the text says why.
        case notApplicable(String)
        /// The reference engine (libdispatch on Linux) lacks the capability the state needs.
        case missingOnLinux(Capability, String)
        /// No rule drives the state, but the scenario generator (`arena explore`) does, checking each random
        /// program against a model.
        case scenarios
        /// No rule drives the state yet; the text says what such a rule would do.
        case gap(String)

        /// The kind of reason, as the tables show it.
        public var kind: String {
            switch self {
            case .misuse: "misuse"
            case .notAllowed: "not allowed"
            case .notApplicable: "n/a"
            case .missingOnLinux: "Linux"
            case .scenarios: "scenarios"
            case .gap: "gap"
            }
        }

        /// The reason in words, as the notes under each table give it.
        public var text: String {
            switch self {
            case .misuse(let rule, let what): "misuse: `\(rule)` covers it (\(what))"
            case .notAllowed(let why): "not allowed by the contract: \(why)"
            case .notApplicable(let why): "does not apply: \(why)"
            case .missingOnLinux(let capability, let why): "Linux: \(capability.rawValue) missing on the reference (\(why))"
            case .scenarios: "scenarios (arena explore): no rule drives it; the scenario generator does"
            case .gap(let missing): "gap: no rule yet (\(missing))"
            }
        }
    }

    /// The tables, in order: (a) mutable things × moments, (b) objects × target-chain positions, (c) calls × call
    /// sites, (d) parameters × edge values.
    public let tables: [Table]

    /// Every rule id a cell names, misuse reasons included.
    public var ruleIDs: Set<String> {
        var ids: Set<String> = []
        for table in tables {
            for row in table.rows {
                for cell in row.cells {
                    ids.formUnion(cell.rules)
                    if case .misuse(let rule, _) = cell.reason { ids.insert(rule) }
                }
            }
        }
        return ids
    }

    /// The matrix of the built-in catalog.
    public static let builtIn = StateMatrix(tables: [moments, chains, callSites, edges])
}

// MARK: - (a) What a program can change, at each moment of the object's life

extension StateMatrix {
    /// The columns of table (a).
    public static let momentColumns = ["before activation", "while work waits", "while a block runs", "after cancel or finish"]

    private static let noClassSetter =
        "a queue's class is fixed when it is made; only a new target changes the class its blocks run at (target row)"

    static let moments = Table(
        id: "a", title: "Mutable things × moments", rowHeading: "What changes", columns: momentColumns,
        reading: """
            *Before activation*: created inactive and not yet activated (an operation: not yet on a queue; an operation \
            queue: nothing added yet). *While work waits*: blocks, fires, merges or operations queued and not started. \
            *While a block runs*: one of the object's blocks (handler, operation, job) is running. *After cancel or \
            finish*: a source cancelled, an operation finished or cancelled, a queue whose blocks all finished.
            """,
        rows: [
            Row(
                "queue: target",
                [
                    .rules("target.set-while-inactive", "qos.inherit-target"),
                    .rules("target.change-between-blocks", note: "not on the reference, which lacks retarget-active-queues"),
                    .rules(
                        "target.change-between-blocks", "target.change-while-running",
                        note: "not on the reference, which lacks retarget-active-queues"),
                    .gap("retarget a drained active queue; it needs retarget-active-queues, which the reference lacks"),
                ]),
            Row(
                "queue: activation",
                [
                    .rules("qos.queue-class", "qos.inherit-target"),
                    .rules("inactive.start", "target.set-while-inactive", "qos.priority-scheduling"),
                    .gap("activate again while one of its blocks runs"),
                    .rules("inactive.start", note: "a second activate after its blocks ran does nothing"),
                ]),
            Row(
                "queue: suspension",
                [
                    .scenarios,
                    .rules("suspend.counted", "concurrent.start-order", "suspend.through-target", "context.suspension-delays"),
                    .rules("suspend.no-new-starts"),
                    .scenarios,
                ]),
            Row(
                "queue: QoS",
                [
                    .rules("qos.queue-class", "qos.inherit-target"),
                    .notAllowed(noClassSetter),
                    .notAllowed(noClassSetter),
                    .notAllowed(noClassSetter),
                ]),
            Row(
                "queue: specific values",
                [
                    .scenarios,
                    .gap("set or replace a value while blocks that read it wait"),
                    .gap("set a value from a block of the queue, or while one runs"),
                    .rules("specific.own-queue", "specific.inherited"),
                ]),
            Row(
                "source: handlers",
                [
                    .rules("source.registration-first", "source.cancel", "source.registration-not-if-cancelled"),
                    .rules("timer.cancel", note: "the cancel handler is set on an active, firing timer"),
                    .gap("replace the event handler from inside the handler, or while it runs"),
                    .gap("set a handler after cancel"),
                ]),
            Row(
                "source: activation",
                [
                    .rules("source.add-coalesces", "timer.not-early"),
                    .rules("source.inactive", "source.registration-first"),
                    .gap("activate again while a handler runs"),
                    .rules("source.registration-not-if-cancelled"),
                ]),
            Row(
                "source: cancellation",
                [
                    .rules("source.registration-not-if-cancelled"),
                    .rules("source.cancel", note: "data pending at the cancel is never delivered"),
                    .rules("source.cancel", "timer.cancel"),
                    .gap("cancel a cancelled source again"),
                ]),
            Row(
                "timer: schedule",
                [
                    .rules("timer.not-early", "timer.one-shot", "timer.repeat"),
                    .rules("timer.reschedule"),
                    .rules("timer.reschedule", note: "rescheduled from inside its handler"),
                    .gap("schedule a cancelled timer"),
                ]),
            Row(
                "timer: leeway",
                [
                    .rules("timer.leeway"),
                    .gap("change the leeway of a scheduled timer"),
                    .gap("change the leeway from inside the handler"),
                    .gap("change the leeway of a cancelled timer"),
                ]),
            Row(
                "operation queue: width",
                [
                    .rules("op.max-concurrent", "op.serial-readiness", "op.priority"),
                    .gap("change maxConcurrentOperationCount while operations wait"),
                    .gap("change maxConcurrentOperationCount while an operation runs"),
                    .rules("op.max-concurrent", note: "set on a drained queue"),
                ]),
            Row(
                "operation queue: suspension",
                [
                    .rules("op.priority", "op.operations-list", "op.remove-dependency"),
                    .rules("op.priority-change", "op.dependency-cycle"),
                    .rules("op.suspend"),
                    .rules("op.priority", "op.operations-list", note: "suspended again once drained"),
                ]),
            Row(
                "operation queue: underlying queue",
                [
                    .rules("op.underlying-queue"),
                    .misuse("op.underlying-queue-busy", "set while an operation waits"),
                    .notAllowed("it must not change while operations are in the queue; no misuse rule sets it while one runs"),
                    .rules("op.underlying-queue", note: "set back to nil once drained"),
                ]),
            Row(
                "operation: priority",
                [
                    .rules("op.priority"),
                    .rules("op.priority-change"),
                    .gap("change the priority of a running operation"),
                    .gap("change the priority of a finished operation"),
                ]),
            Row(
                "operation: dependencies",
                [
                    .rules("op.dependency", "op.dependency-across-queues", "op.dependency-cycle", "op.dependency-on-finished"),
                    .rules("op.remove-dependency"),
                    .gap("add or remove a dependency of a running operation"),
                    .rules("op.cancel-ignores-dependencies", note: "cancelled with a dependency unfinished, it finishes"),
                ]),
            Row(
                "executor: jobs",
                [
                    .notApplicable("an executor has no inactive state: its first job runs like any other"),
                    .rules("executor.serial-fifo"),
                    .rules("executor.serial-exclusive", note: "jobs of other tasks enqueued while one runs"),
                    .rules("executor.cancellation", note: "jobs of cancelled tasks resume on the task executor"),
                ]),
        ])
}

// MARK: - (b) Each object at each place in a target chain

extension StateMatrix {
    /// The columns of table (b).
    public static let chainColumns = [
        "leaf, active", "leaf, inactive", "middle, active", "middle, inactive", "root, active", "root, inactive",
    ]

    private static let fixedRoot = "the main queue and the global queues are always active, and their target cannot be changed"
    private static let notATarget = "only a queue can be a target: nothing targets a source"
    private static let noOperationQueueTarget = "no call makes a queue target an operation queue"

    static let chains = Table(
        id: "b", title: "Objects × target-chain positions", rowHeading: "Object", columns: chainColumns,
        reading: """
            *Leaf*: nothing targets it (a lone queue is a leaf); *middle*: it targets a queue and is targeted; *root*: \
            it is targeted, and its own target is a global queue (or it is one). *Inactive*: created inactive and not \
            yet activated.
            """,
        rows: [
            Row(
                "serial queue",
                [
                    .rules("serial.fifo", "target.serializes", "specific.inherited", "suspend.through-target"),
                    .rules("inactive.start", "target.set-while-inactive", "qos.queue-class"),
                    .rules("suspend.through-target"),
                    .scenarios,
                    .rules("target.serializes", "target.width", "specific.inherited", "suspend.through-target"),
                    .scenarios,
                ]),
            Row(
                "concurrent queue",
                [
                    .rules("concurrent.parallel", "target.serializes", "target.width", "main.target"),
                    .rules("inactive.start", "target.set-while-inactive", "qos.priority-scheduling"),
                    .rules("target.width", "specific.inherited", "suspend.through-target", "qos.inherit-target"),
                    .scenarios,
                    .rules("target.width", "suspend.through-target", "qos.inherit-target"),
                    .scenarios,
                ]),
            Row(
                "global queue",
                [
                    .rules("global.concurrent", "qos.global-classes"),
                    .notAllowed(fixedRoot),
                    .notAllowed(fixedRoot),
                    .notAllowed(fixedRoot),
                    .rules("qos.inherit-target"),
                    .notAllowed(fixedRoot),
                ]),
            Row(
                "main queue",
                [
                    .rules("main.thread", "main.async-from-many-threads"),
                    .notAllowed(fixedRoot),
                    .notAllowed(fixedRoot),
                    .notAllowed(fixedRoot),
                    .rules("main.target"),
                    .notAllowed(fixedRoot),
                ]),
            Row(
                "source",
                [
                    .rules("source.on-target", "source.handler-not-reentrant"),
                    .rules("source.inactive", "source.registration-not-if-cancelled"),
                    .notApplicable(notATarget),
                    .notApplicable(notATarget),
                    .notApplicable(notATarget),
                    .notApplicable(notATarget),
                ]),
            Row(
                "operation queue (on an underlying queue)",
                [
                    .rules("op.underlying-queue"),
                    .notApplicable("an operation queue has no inactive state (its suspension is in table a)"),
                    .notApplicable(noOperationQueueTarget),
                    .notApplicable(noOperationQueueTarget),
                    .notApplicable(noOperationQueueTarget),
                    .notApplicable(noOperationQueueTarget),
                ]),
        ])
}

// MARK: - (c) Each call, from each place it can be made

extension StateMatrix {
    /// The columns of table (c).
    public static let callSiteColumns = [
        "plain thread", "block of the same queue", "block of a queue targeting it", "block of an unrelated queue",
        "executor job", "nested sync",
    ]

    private static let noBlockingInTasks =
        "a task must not block its thread waiting for other work (Swift concurrency's forward-progress contract, SE-0296)"
    private static let applyHasNoQueue = "apply (concurrentPerform) is made on no queue of the program's"

    static let callSites = Table(
        id: "c", title: "Calls × call sites", rowHeading: "Call", columns: callSiteColumns,
        reading: """
            For a call made on no queue (a wait, apply, currentSpecific), *the same queue* is the queue that runs the \
            awaited work or holds the value. *Executor job*: a task or actor method running on the engine's executors. \
            *Nested sync*: inside the block of a sync made from a block.
            """,
        rows: [
            Row(
                "async",
                [
                    .rules("serial.fifo", "serial.exclusive", "target.serializes"),
                    .gap("async onto its own queue from one of its blocks"),
                    .scenarios,
                    .rules("group.multi-queue", "main.hand-off"),
                    .gap("async onto a queue from a task"),
                    .gap("async from inside a sync block"),
                ]),
            Row(
                "sync",
                [
                    .rules("sync.result", "sync.after-earlier", "barrier.sync"),
                    .rules("sync.reentrant-concurrent", "sync.on-own-queue", "main.sync-on-self"),
                    .misuse("sync.on-own-queue-through-target", "onto a serial target; a concurrent one has no rule"),
                    .rules("sync.on-other-queue-from-block", "main.sync-from-background"),
                    .gap("sync onto a queue from a task"),
                    .rules("sync.on-other-queue-from-block", "sync.reentrant-concurrent"),
                ]),
            Row(
                "barrierAsync",
                [
                    .rules("barrier.after-earlier", "barrier.before-later", "barrier.alone", "barrier.later-concurrent"),
                    .gap("a barrier submitted from a block of its own queue"),
                    .gap("a barrier onto the target from a block of a queue targeting it"),
                    .gap("a barrier submitted from a block of another queue"),
                    .gap("a barrier submitted from a task"),
                    .gap("a barrier submitted inside a sync block"),
                ]),
            Row(
                "barrierSync",
                [
                    .rules("barrier.sync", "barrier.on-serial", "sync.result"),
                    .notAllowed("the barrier waits for the caller's own block: a deadlock, which no misuse rule drives"),
                    .notAllowed("on the target, the barrier waits for the caller's block, which runs through it; no misuse rule"),
                    .gap("a barrier sync from a block of another queue"),
                    .gap("a barrier sync from a task"),
                    .gap("a barrier sync inside a sync block"),
                ]),
            Row(
                "asyncAfter",
                [
                    .rules("after.not-early", "after.zero", "workitem.after-cancelled"),
                    .gap("asyncAfter onto its own queue from one of its blocks"),
                    .gap("asyncAfter onto the target from a block of a queue targeting it"),
                    .gap("asyncAfter from a block of another queue"),
                    .gap("asyncAfter from a task"),
                    .gap("asyncAfter inside a sync block"),
                ]),
            Row(
                "apply",
                [
                    .rules("apply.every-index", "apply.parallel", "apply.busy-pool"),
                    .notApplicable(applyHasNoQueue),
                    .notApplicable(applyHasNoQueue),
                    .rules("apply.from-serial"),
                    .gap("apply from a task"),
                    .gap("apply inside a sync block"),
                ]),
            Row(
                "group wait",
                [
                    .rules("group.wait", "group.many-waiters", "group.notify-next-round"),
                    .gap("wait in a block of a queue that runs the group's blocks"),
                    .gap("wait in a block of a queue targeting the one that runs the group's blocks"),
                    .gap("wait in a block of another queue"),
                    .notAllowed(noBlockingInTasks),
                    .gap("wait inside a sync block"),
                ]),
            Row(
                "semaphore wait",
                [
                    .rules("semaphore.count", "semaphore.timeout", "semaphore.signal-wakes"),
                    .gap("wait in a block of the queue whose block signals"),
                    .gap("wait in a block of a queue targeting the signaller's"),
                    .scenarios,
                    .notAllowed(noBlockingInTasks),
                    .gap("wait inside a sync block"),
                ]),
            Row(
                "work item wait",
                [
                    .rules("workitem.wait", "workitem.cancel-before", "workitem.cancel-during"),
                    .gap("wait in a block of the item's queue"),
                    .gap("wait in a block of a queue targeting the item's"),
                    .gap("wait in a block of another queue"),
                    .notAllowed(noBlockingInTasks),
                    .gap("wait inside a sync block"),
                ]),
            Row(
                "operation wait (waitUntilFinished, waitUntilAllOperationsAreFinished)",
                [
                    .rules("op.wait-until-finished", "op.wait-all", "op.wait-deadline", "op.add-waiting"),
                    .gap("wait in an operation of the same queue; on the whole queue it would wait for itself"),
                    .notApplicable(noOperationQueueTarget),
                    .gap("wait in a block or an operation of another queue"),
                    .notAllowed(noBlockingInTasks),
                    .gap("wait inside a sync block"),
                ]),
            Row(
                "suspend, resume",
                [
                    .rules("suspend.no-new-starts", "suspend.counted", "suspend.through-target"),
                    .gap("suspend or resume a queue from one of its blocks"),
                    .gap("suspend or resume the target from a block of a queue targeting it"),
                    .rules("context.suspension-delays", note: "resumed from a block of another queue"),
                    .gap("suspend or resume from a task"),
                    .gap("suspend or resume inside a sync block"),
                ]),
            Row(
                "currentSpecific",
                [
                    .rules("specific.own-queue"),
                    .rules("specific.own-queue", "source.on-target"),
                    .rules("specific.inherited", "target.set-while-inactive", "target.change-between-blocks"),
                    .rules("specific.own-queue"),
                    .rules("executor.actor-on-queue", "executor.sleep", "executor.colocated"),
                    .gap("read inside a sync block onto another queue"),
                ]),
        ])
}

// MARK: - (d) Each parameter at its edge values

extension StateMatrix {
    /// The columns of table (d).
    public static let edgeColumns = [
        "deadline past", "deadline now", "deadline far", "zero", "one", "empty", "nil", "repeating with leeway",
    ]

    /// The kinds of parameter, each with the edge values (columns of table d) it takes.
    private enum Kind {
        case deadline, count, collection, optional, interval, leeway

        var columns: Set<String> {
            switch self {
            case .deadline: ["deadline past", "deadline now", "deadline far"]
            case .count: ["zero", "one"]
            case .collection: ["empty"]
            case .optional: ["nil"]
            case .interval: ["nil", "repeating with leeway"]
            case .leeway: ["zero", "one", "repeating with leeway"]
            }
        }

        var notTaken: Cell {
            switch self {
            case .deadline: .notApplicable("a deadline takes past, now and far only")
            case .count: .notApplicable("a count takes zero and one only")
            case .collection: .notApplicable("a collection's edge is empty")
            case .optional: .notApplicable("an optional's edge is nil")
            case .interval: .notApplicable("a repeat interval is nil (once) or repeats")
            case .leeway: .notApplicable("a leeway is a duration: zero, the least, or on a repeating timer")
            }
        }
    }

    /// A row of table (d): `cells` gives the edge values `kind` takes, by column; every other column does not apply.
    private static func parameter(_ name: String, _ kind: Kind, _ cells: [String: Cell]) -> Row {
        precondition(Set(cells.keys) == kind.columns, "\(name): cells for \(cells.keys.sorted()), expected \(kind.columns.sorted())")
        return Row(name, edgeColumns.map { cells[$0] ?? kind.notTaken })
    }

    static let edges = Table(
        id: "d", title: "Parameters × edge values", rowHeading: "Parameter", columns: edgeColumns,
        reading: """
            *Deadline far*: one the check never reaches (the distant future). *One*: the least non-zero value. A \
            parameter takes only the edge values of its kind; the other columns do not apply.
            """,
        rows: [
            parameter(
                "asyncAfter deadline", .deadline,
                [
                    "deadline past": .rules("after.zero"), "deadline now": .rules("after.zero"),
                    "deadline far": .gap("schedule a block in the distant future: it must never run"),
                ]),
            parameter(
                "group wait deadline", .deadline,
                [
                    "deadline past": .gap("wait with a past deadline"), "deadline now": .rules("group.wait"),
                    "deadline far": .gap("wait with a deadline in the distant future"),
                ]),
            parameter(
                "semaphore wait deadline", .deadline,
                [
                    "deadline past": .gap("wait with a past deadline"),
                    "deadline now": .rules("semaphore.timeout", "semaphore.timeout-races-signal"),
                    "deadline far": .gap("wait with a deadline in the distant future"),
                ]),
            parameter(
                "work item wait deadline", .deadline,
                [
                    "deadline past": .gap("wait with a past deadline"), "deadline now": .gap("wait with the deadline now"),
                    "deadline far": .rules(
                        "workitem.double-wait", note: "its first wait, far, must return once the item ran; the second is misuse"),
                ]),
            parameter(
                "timer start deadline", .deadline,
                [
                    "deadline past": .rules("timer.past-start"),
                    "deadline now": .rules("timer.cancel", "timer.one-shot"),
                    "deadline far": .rules("timer.reschedule", note: "30 s ahead, then brought forward"),
                ]),
            parameter(
                "operation wait deadline", .deadline,
                [
                    "deadline past": .gap("wait with a past deadline"), "deadline now": .rules("op.wait-deadline"),
                    "deadline far": .gap("wait with a deadline in the distant future"),
                ]),
            parameter("apply iterations", .count, ["zero": .rules("apply.zero"), "one": .rules("apply.every-index")]),
            parameter(
                "semaphore value", .count,
                ["zero": .rules("semaphore.timeout", "semaphore.signal-wakes", "semaphore.negative"), "one": .rules("semaphore.count")]),
            parameter(
                "maxConcurrentOperationCount", .count,
                [
                    "zero": .gap("width 0"),
                    "one": .rules("op.max-concurrent", "op.serial-readiness", "op.priority"),
                ]),
            parameter(
                "source merge value", .count,
                ["zero": .rules("source.zero-merge"), "one": .rules("source.zero-merge", "source.handler-not-reentrant")]),
            parameter(
                "data range length", .count,
                ["zero": .rules("data.copy-across-regions"), "one": .rules("data.copy-across-regions")]),
            parameter("group (its members)", .collection, ["empty": .rules("group.notify-empty", "group.wait")]),
            parameter("data buffer", .collection, ["empty": .rules("data.enumerate")]),
            parameter(
                "operation queue (its operations)", .collection,
                ["empty": .rules("op.wait-all", "op.barrier-after-earlier", "op.operations-list")]),
            parameter("queue target", .optional, ["nil": .rules("qos.inherit-target")]),
            parameter("queue class", .optional, ["nil": .rules("qos.inherit-target", "qos.item-enforce")]),
            parameter(
                "specific value", .optional,
                ["nil": .rules("specific.own-queue", "specific.inherited", "specific.destructor-on-replace")]),
            parameter("queue context", .optional, ["nil": .rules("context.finalizer-needs-context")]),
            parameter("source handler", .optional, ["nil": .gap("set a handler to nil")]),
            parameter("underlyingQueue", .optional, ["nil": .rules("op.underlying-queue")]),
            parameter(
                "timer repeat interval", .interval,
                [
                    "nil": .rules("timer.one-shot"),
                    "repeating with leeway": .gap("every repeating timer of the catalog has leeway zero"),
                ]),
            parameter(
                "timer leeway", .leeway,
                [
                    "zero": .rules("timer.leeway"), "one": .rules("timer.leeway", note: "1 ms"),
                    "repeating with leeway": .gap("every repeating timer of the catalog has leeway zero"),
                ]),
        ])
}
