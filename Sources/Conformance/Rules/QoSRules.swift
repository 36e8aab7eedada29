import ArenaContract
import Harness

/// Quality of service: the class each block runs at, and the order classes run in under load.
enum QoSRules: RuleFamily {
    static let concept = Concept.qos
    static let rules: [any ConformanceRule.Type] = [
        QoSGlobalClasses.self, QoSUserInteractive.self, QoSQueueClass.self, QoSInheritTarget.self, QoSItemInherit.self,
        QoSItemEnforce.self, QoSPriorityScheduling.self,
    ]

    /// The class `engine` reports from inside a block submitted to `queue`, or from inside `item` submitted there.
    static func observedClass<E: Engine>(_ engine: E, on queue: E.Queue, item: (qos: QoSClass, flags: WorkItemFlags)? = nil) throws
        -> QoSClass
    {
        let seen = Recorder<QoSClass>()
        let ran = Latch()
        let block: @Sendable () -> Void = {
            seen.append(engine.currentQoS)
            ran.countDown()
        }
        if let item {
            queue.async(engine.makeWorkItem(label: "arena.qos.item", qos: item.qos, flags: item.flags, block))
        } else {
            queue.async(block)
        }
        try expectOpens(ran, "the block on queue '\(queue.label)'")
        return seen.elements[0]
    }

    /// Fails unless a block on `queue` (or `item` there) runs at `expected`; `what` names the case.
    static func expectClass<E: Engine>(
        _ engine: E, _ expected: QoSClass, on queue: E.Queue,
        item: (qos: QoSClass, flags: WorkItemFlags)? = nil, _ what: String
    ) throws {
        let observed = try observedClass(engine, on: queue, item: item)
        try expect(observed == expected, .wrongPlace, "\(what) ran at \(observed.rawValue), not \(expected.rawValue)")
    }
}

enum QoSGlobalClasses: BehaviourRule {
    static let id = "qos.global-classes"
    static let title = "Each global queue, background to user-initiated, runs its blocks at its class; the default one is the global queue."
    static let source = """
        queue.h (dispatch_get_global_queue: 'the well-known global concurrent queue of a given quality of service \
        class'); qos.h (the classes); [objc.io #2] ("Priorities": the global queues by priority)
        """

    static let forbidden: [Outcome] = [.missing, .wrongValue, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        try expect(engine.globalQueue(qos: .default) === engine.globalQueue, .wrongValue, "globalQueue(qos: .default) is not globalQueue")
        try expect(engine.currentQoS == .default, .wrongPlace, "a plain thread reads \(engine.currentQoS.rawValue), not default")
        for qos in [QoSClass.background, .utility, .default, .userInitiated] {
            try QoSRules.expectClass(engine, qos, on: engine.globalQueue(qos: qos), "a block on the \(qos.rawValue) global queue")
        }
    }
}

enum QoSUserInteractive: BehaviourRule {
    static let id = "qos.user-interactive"
    static let title = "User-interactive is a class of its own: its global queue and a queue created with it run blocks at it."
    static let source = "qos.h (QOS_CLASS_USER_INTERACTIVE, above QOS_CLASS_USER_INITIATED); queue.h (dispatch_get_global_queue)"
    static let needs: Set<Capability> = [.userInteractiveClass]

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        try QoSRules.expectClass(
            engine, .userInteractive, on: engine.globalQueue(qos: .userInteractive),
            "a block on the user-interactive global queue")
        let queue = engine.makeQueue(
            label: "arena.qos.interactive", kind: .serial, qos: .userInteractive, startsInactive: false, target: nil)
        try QoSRules.expectClass(engine, .userInteractive, on: queue, "a block on a user-interactive serial queue")
    }
}

enum QoSQueueClass: BehaviourRule {
    static let id = "qos.queue-class"
    static let title = "A queue created with a class (serial or concurrent, active or activated later) runs its blocks at it."
    static let source = """
        dispatch_queue_attr_make_with_qos_class(3) ('the QOS class ... applied to blocks submitted to the queue'); \
        queue.h; DispatchQueue(label:qos:)
        """

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        for qos in [QoSClass.background, .utility, .userInitiated] {
            for kind in [QueueKind.serial, .concurrent] {
                let queue = engine.makeQueue(
                    label: "arena.qos.\(qos.rawValue).\(kind.rawValue)", kind: kind, qos: qos,
                    startsInactive: false, target: nil)
                try QoSRules.expectClass(engine, qos, on: queue, "a block on a \(kind.rawValue) \(qos.rawValue) queue")
            }
        }
        let inactive = engine.makeQueue(label: "arena.qos.inactive", kind: .serial, qos: .utility, startsInactive: true, target: nil)
        inactive.activate()
        try QoSRules.expectClass(engine, .utility, on: inactive, "a block on a utility queue created inactive")
    }
}

enum QoSInheritTarget: BehaviourRule {
    static let id = "qos.inherit-target"
    static let title = "A queue without a class runs its blocks at its target's: a global queue, a queue with a class, two links up."
    static let source = """
        queue.h (dispatch_queue_attr_make_with_qos_class: a queue without a QOS class 'inherits' its target's); \
        [objc.io #2] ("You change the priority of your own queue by setting its target queue")
        """

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let onGlobal = engine.makeQueue(
            label: "arena.qos.on-utility-global", kind: .serial, startsInactive: false,
            target: engine.globalQueue(qos: .utility))
        try QoSRules.expectClass(engine, .utility, on: onGlobal, "a block on a queue targeting the utility global queue")
        let background = engine.makeQueue(
            label: "arena.qos.background", kind: .serial, qos: .background, startsInactive: false, target: nil)
        let serialChild = engine.makeQueue(label: "arena.qos.child", kind: .serial, startsInactive: false, target: background)
        try QoSRules.expectClass(engine, .background, on: serialChild, "a block on a queue targeting a background queue")
        let initiated = engine.makeQueue(
            label: "arena.qos.initiated", kind: .concurrent, qos: .userInitiated, startsInactive: false, target: nil)
        let middle = engine.makeQueue(label: "arena.qos.middle", kind: .concurrent, startsInactive: false, target: initiated)
        let grandchild = engine.makeQueue(label: "arena.qos.grandchild", kind: .serial, startsInactive: false, target: middle)
        try QoSRules.expectClass(engine, .userInitiated, on: grandchild, "a block two links below a user-initiated queue")
        let retargeted = engine.makeQueue(label: "arena.qos.retargeted", kind: .serial, startsInactive: true, target: nil)
        retargeted.setTarget(engine.globalQueue(qos: .utility))
        retargeted.activate()
        try QoSRules.expectClass(engine, .utility, on: retargeted, "a block on a queue given the utility global queue before activation")
        try QoSRules.expectClass(
            engine, .default, on: engine.makeQueue(label: "arena.qos.plain"), "a block on a queue with no class nor target")
    }
}

enum QoSItemInherit: BehaviourRule {
    static let id = "qos.item-inherit"
    static let title = "A work item not flagged to enforce its class runs at the class of the queue it is submitted to."
    static let source = """
        block.h (DISPATCH_BLOCK_INHERIT_QOS_CLASS: 'prefer the QOS class assigned to the queue over the QOS class \
        assigned to the block'; the default for asynchronous execution); DispatchWorkItem(qos:flags:)
        """

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let utility = engine.makeQueue(label: "arena.qos.utility", kind: .serial, qos: .utility, startsInactive: false, target: nil)
        try QoSRules.expectClass(
            engine, .utility, on: utility, item: (.userInitiated, [.inheritQoS]),
            "a user-initiated item flagged inheritQoS on a utility queue")
        try QoSRules.expectClass(
            engine, .utility, on: utility, item: (.userInitiated, []),
            "a user-initiated item without flags on a utility queue")
        try QoSRules.expectClass(
            engine, .utility, on: engine.globalQueue(qos: .utility), item: (.background, []),
            "a background item on the utility global queue")
    }
}

enum QoSItemEnforce: BehaviourRule {
    static let id = "qos.item-enforce"
    static let title = "A work item's own class applies when it enforces it (never lowering the queue's), and on a queue without one."
    static let source = """
        block.h (DISPATCH_BLOCK_ENFORCE_QOS_CLASS: 'prefer the QOS class assigned to the block ... as long as doing so \
        will not result in a lower QOS class'; DISPATCH_BLOCK_INHERIT_QOS_CLASS: the block's class is used 'if the \
        queue ... does not have an assigned QOS class')
        """
    static let needs: Set<Capability> = [.workItemQoS]

    static let forbidden: [Outcome] = [.missing, .wrongPlace]

    static func check<E: Engine>(_ engine: E) throws {
        let utility = engine.makeQueue(label: "arena.qos.utility", kind: .serial, qos: .utility, startsInactive: false, target: nil)
        try QoSRules.expectClass(
            engine, .userInitiated, on: utility, item: (.userInitiated, [.enforceQoS]),
            "a user-initiated item enforcing its class on a utility queue")
        try QoSRules.expectClass(
            engine, .utility, on: utility, item: (.background, [.enforceQoS]),
            "a background item enforcing its class on a utility queue")
        try QoSRules.expectClass(
            engine, .utility, on: engine.makeQueue(label: "arena.qos.plain"), item: (.utility, []),
            "a utility item on a queue with no class")
    }
}

enum QoSPriorityScheduling: BehaviourRule {
    static let id = "qos.priority-scheduling"
    static let title =
        "With the pool flooded by CPU-bound blocks in five bands, one queue per class, at half done each higher band has completed at least as many as each lower, give or take the blocks that started before the last band was in."
    static let source = """
        libdispatch tests dispatch_priority.c (bands of CPU-bound blocks, one queue per priority, a histogram at half \
        done); [objc.io #2] ("Priorities")
        """
    static let needs: Set<Capability> = [.priorityScheduling]

    /// Blocks per band, and how long each keeps its CPU: 5 x 40 x 2 ms of CPU, about 0.2 s on two cores.
    static let perBand = 40
    static let work: Duration = .milliseconds(2)

    static let forbidden: [Outcome] = [.missing, .reordered]

    static func check<E: Engine>(_ engine: E) throws {
        let bands = QoSClass.allCases
        let done = IndexCounters(bands.count)
        let finished = Counter()
        let half = bands.count * perBand / 2
        let snapshot = Recorder<[Int]>()
        let all = Latch(bands.count * perBand)
        let flooded = Latch()
        let early = Counter()
        // Each band waits in an inactive concurrent queue of its class until every block is in, so the flood starts
        // at once however slowly this thread submits (it may be preempted under --stress). Activated least urgent
        // first: an engine that runs work in the order it arrived completes the low bands first.
        let queues = bands.map { qos in
            engine.makeQueue(label: "arena.qos.band.\(qos.rawValue)", kind: .concurrent, qos: qos, startsInactive: true, target: nil)
        }
        for (band, queue) in queues.enumerated() {
            for _ in 0..<perBand {
                queue.async {
                    if !flooded.isOpen { early.add() }
                    Timing.spin(work)
                    done.hit(band)
                    if finished.add() == half { snapshot.append(bands.indices.map(done.hits)) }
                    all.countDown()
                }
            }
        }
        for queue in queues { queue.activate() }
        flooded.countDown()
        try expectOpens(all, within: .seconds(30), "every block")
        let counts = snapshot.elements[0]
        // Blocks that started before the last band was in may finish first whatever their band: as many as the
        // engine had threads free then (more than one per CPU when an earlier check grew its pool), so counted.
        let slack = early.value
        let histogram = zip(bands, counts).map { "\($0.rawValue) \($1)" }.joined(separator: ", ")
        for lower in bands.indices {
            for higher in bands.indices where higher > lower {
                try expect(
                    counts[higher] + slack >= counts[lower], .reordered,
                    "at half done (\(half) of \(bands.count * perBand)), \(histogram): \(bands[higher].rawValue) behind \(bands[lower].rawValue) by more than the \(slack) blocks started before the last band was in"
                )
            }
        }
    }
}
