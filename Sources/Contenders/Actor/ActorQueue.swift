import ArenaContract
import Synchronization

/// A serial or concurrent queue of the actor engine: a mailbox (`ActorMailbox`, safe to post to from any thread) in
/// front of an `ActorQueueCore` that drains it. The global queue has no mailbox: each block becomes a task.
///
/// Releasing the queue finishes the mailbox; the core's task outlives it until every block ran, and only then hands
/// the finalizer to the target (`ActorQueueCore.live`).
///
/// The main queue is a serial queue whose drain task starts only with `dispatchMain()` (`startDraining(on:)`) and
/// prefers the main executor, so its blocks run on the main-loop thread; it is never released.
public final class ActorQueue: EngineQueue, @unchecked Sendable {
    public typealias WorkItem = ActorWorkItem

    public let label: String
    public let kind: QueueKind
    let core: ActorQueueCore
    let control: ActorQueueControl
    @usableFromInline let isGlobal: Bool
    /// The main queue: its blocks run on the main-loop thread only, so a sync never runs inline.
    let isMain: Bool
    private let mailbox: ActorMailbox<ActorMail>?

    /// `global` receives the finalizer when the queue has no target; nil only for the global queue itself. The main
    /// queue (`isMain`) waits for `startDraining(on:)` to start its drain task.
    init(
        label: String, kind: QueueKind, qos: QoSClass?, startsInactive: Bool, target: ActorQueue?, global: ActorQueue?,
        isGlobal: Bool = false, isMain: Bool = false
    ) {
        self.label = label
        self.kind = kind
        self.isGlobal = isGlobal
        self.isMain = isMain
        control = ActorQueueControl(target: target, startsInactive: startsInactive, ignoresSuspension: isGlobal)
        let core = ActorQueueCore(label: label, kind: kind, qos: qos, control: control)
        self.core = core
        if isGlobal {
            mailbox = nil
        } else {
            let mailbox = ActorMailbox<ActorMail>()
            self.mailbox = mailbox
            if !isMain { Task.detached { await core.live(mailbox, global: global) } }
        }
    }

    /// Starts the main queue's drain task, once, on `executor`: the task prefers it, so the loop and the core's actor
    /// (a default actor follows its task's preference) run there, and with them every block of the queue. The main
    /// queue is never released, so the loop never ends and there is no finalizer to hand on.
    func startDraining(on executor: any TaskExecutor) {
        guard let mailbox else { return }
        Task.detached(executorPreference: executor) { [core] in await core.drain(mailbox) }
    }

    deinit {
        if control.suspensionCount > 0 && !isGlobal { misuse("released while suspended: queue '\(label)'") }
        if control.isInactive { misuse("released while inactive: queue '\(label)'") }
        mailbox?.finish()  // the loop drains what is left, then ends
    }

    /// Puts `mail` in the mailbox (a queue targeting this one forwards through here too). On a concurrent queue a
    /// block that is no barrier skips the mailbox while the loop is parked with nothing queued and the queue may
    /// start blocks with no target: counted started, it goes straight to the runners, as the loop would send it,
    /// without waking the loop (a stage every block would otherwise pass through one at a time; libdispatch's
    /// concurrent queue likewise sends a block straight to its root queue when nothing waits before it). The count
    /// comes before the last look at the mailbox, and a barrier's poster closes the mailbox before the loop reads the
    /// count, so either the barrier waits for this block or this block sees the mailbox closed and queues behind it
    /// (models/actor-handoff.pml). An atomic add and two loads, then the runners' lock.
    func post(_ mail: ActorMail) {
        if let mailbox {
            if core.runners != nil && !mail.isBarrier && mailbox.isOpen {
                if core.control.startsOwnBlock() {
                    if mailbox.isOpen { return core.hand(mail) }
                    core.control.blockFinished()
                }
            }
            mailbox.post(mail)
        } else {
            // The global queue: every block is a task of its own.
            Task.detached { [core] in ActorQueueCore.run(mail, in: core) }
        }
    }

    public func async(_ block: @escaping @Sendable () -> Void) { post(.block(block, barrier: false)) }

    public func barrierAsync(_ block: @escaping @Sendable () -> Void) { post(.block(block, barrier: !isGlobal)) }

    /// An item flagged `.barrier` is posted as `barrierAsync` posts its block (a plain block on the global queue).
    public func async(_ item: ActorWorkItem) { post(.block({ item.perform() }, barrier: item.isBarrier && !isGlobal)) }

    public func asyncAfter(deadline: Deadline, _ block: @escaping @Sendable () -> Void) {
        after(deadline) { [self] in async(block) }
    }

    public func asyncAfter(deadline: Deadline, _ item: ActorWorkItem) {
        after(deadline) { [self] in async(item) }
    }

    /// Calls `submit` once `deadline` passed, from a task sleeping until then. A deadline already passed submits now,
    /// in order with what the caller submits next.
    private func after(_ deadline: Deadline, _ submit: @escaping @Sendable () -> Void) {
        guard deadline > .now() else { return submit() }
        Task.detached {
            await ActorClock.sleep(until: deadline)
            submit()
        }
    }

    // MARK: sync

    /// The generic entry points are `@inlinable` shells, specialised where they are called, around non-generic
    /// cores: a block that runs inline is called directly, with no relay and no generic metadata looked up per call.
    @inlinable
    public func sync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: false, block) }

    @inlinable
    public func barrierSync<T>(_ block: () throws -> T) rethrows -> T { try sync(barrier: !isGlobal, block) }

    /// Both: inline when the caller may run the block in the queue's place (`enterSync`), else through the mailbox.
    @inlinable
    func sync<T>(barrier: Bool, _ block: () throws -> T) rethrows -> T {
        if let held = enterSync(barrier: barrier) {
            defer { leaveSync(held) }
            return try block()
        }
        return try relaySync(block, through: { waitInQueue($0, barrier: barrier) }, rescue: { throw $0 })
    }

    /// What a caller running inline holds: the thread's context (unretained: the thread keeps it alive), with the
    /// queue entered, and whether it borrowed the actor's turn (every queue but the global one).
    @usableFromInline
    struct HeldTurn {
        let context: Unmanaged<ActorThreadContext>
        let borrowed: Bool
    }

    /// Enters the queue for a caller that may run the block on its own thread: on the global queue always; elsewhere
    /// when it can borrow the actor's turn (`borrowTurn`), and otherwise, after diagnosing a sync onto the caller's own
    /// queue, nil: the caller waits for the actor to run the block (`waitInQueue`).
    @usableFromInline
    func enterSync(barrier: Bool) -> HeldTurn? {
        let held = ActorThreadContext.borrowed
        return held._withUnsafeGuaranteedRef { context -> HeldTurn? in
            let borrowed = !isGlobal
            if borrowed {
                guard let mailbox, borrowTurn(mailbox, barrier: barrier) else {
                    // Diagnosed only here: the actor is not parked, or a block of the queue runs, while the caller's
                    // thread runs a block of it, so the turn cannot be borrowed then.
                    if (barrier || kind == .serial) && context.drains(core) {
                        misuse("\(barrier ? "barrier sync" : "sync") called from a block already running on queue '\(label)' (deadlock)")
                    }
                    return nil
                }
            }
            context.push(core)
            return HeldTurn(context: held, borrowed: borrowed)
        }
    }

    /// Leaves the queue and gives back the actor's turn, waking it for what was posted meanwhile.
    @usableFromInline
    func leaveSync(_ held: HeldTurn) {
        held.context._withUnsafeGuaranteedRef { $0.pop() }
        if held.borrowed { mailbox?.returnTurn() }
    }

    /// The caller's thread waits (a synchronous API cannot suspend) while the queue's actor runs the block in its
    /// turn.
    @usableFromInline
    func waitInQueue(_ body: () -> Void, barrier: Bool) {
        withoutActuallyEscaping(body) { body in
            let waiter = ActorSyncWaiter(isBarrier: barrier, body: body)
            post(.sync(waiter))
            waiter.waitUntilDone()
        }
    }

    /// The fast path of a sync from outside the queue (as libdispatch's, and the lock-free engine's): when the
    /// queue is serial (or the call a barrier), idle, runnable and has no target, the caller takes the consumer's
    /// turn and runs the block on its own thread: two lock round trips and a third on return, instead of a task hop
    /// and a futex wait. The consumer stays parked meanwhile and is woken on return if work came.
    private func borrowTurn(_ mailbox: ActorMailbox<ActorMail>, barrier: Bool) -> Bool {
        guard !isMain && (kind == .serial || barrier) && mailbox.borrowTurn() else { return false }
        // With the turn held no block can start, so a concurrent queue found idle stays so for the barrier.
        if control.runsOwnBlocksNow(needsIdle: kind == .concurrent) { return true }
        mailbox.returnTurn()
        return false
    }

    // MARK: Control

    public func setTarget(_ target: ActorQueue) {
        if isGlobal { misuse("setTarget on the global queue '\(label)'") }
        if target === self { misuse("setTarget would make a cycle: queue '\(label)' would target itself") }
        if control.isInactive { return control.setTarget(target) }
        post(.retarget(target))
    }

    public func suspend() { control.suspend() }

    public func resume() {
        if !control.resume() { misuse("over-resume: resume() without a matching suspend() on queue '\(label)'") }
    }

    public func activate() { control.activate() }

    public func setSpecific<Value>(_ key: SpecificKey<Value>, _ value: Value?) {
        control.setSpecific(ObjectIdentifier(key), value)
    }

    public func getSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        control.specific(ObjectIdentifier(key)) as? Value
    }

    // MARK: Context and finalizer

    public var context: QueueContext? {
        get { control.context }
        set { control.setContext(newValue) }
    }

    public func setFinalizer(_ finalizer: (@Sendable (QueueContext) -> Void)?) { control.setFinalizer(finalizer) }
}

extension ActorQueueCore {
    /// The class of this queue or of the nearest queue above it that has one.
    nonisolated var inheritedQoS: QoSClass? { qos ?? control.currentTarget?.core.inheritedQoS }

    /// The value for `key` on this queue or the nearest queue above it.
    nonisolated func inheritedSpecific<Value>(_ key: SpecificKey<Value>) -> Value? {
        if let value = control.specific(ObjectIdentifier(key)) { return value as? Value }
        return control.currentTarget?.core.inheritedSpecific(key)
    }
}
