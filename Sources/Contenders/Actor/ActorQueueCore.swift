import ArenaContract

/// The actor behind a queue: it drains the queue's mailbox (`ActorMailbox`, consumed by this one task), so blocks
/// start in FIFO order by construction (a `Task { await actor.run(block) }` per submission would not be FIFO: actor
/// jobs are not ordered). The core is separate from the public `ActorQueue` so that releasing the queue finishes the
/// mailbox and lets the loop end, instead of the loop keeping the queue alive.
///
/// - Serial: each block runs synchronously inside the actor, one at a time.
/// - Concurrent: non-barrier blocks run on runner tasks, at most one per thread of the pool, each running ready
///   blocks in order (`ActorRunners`); a barrier waits for the running count to reach zero and runs inside the actor,
///   alone. While the loop is parked with nothing queued, a producer hands its block to the runners itself
///   (`ActorQueue.post`): the loop is a stage every block would pass through one at a time.
/// - With a target: the queue runs nothing itself. It hands each block to its target as a forwarded job and, if
///   serial, awaits it before the next; the target runs it as one of its own blocks, so a chain is as wide as its
///   narrowest link.
///
/// The loop's task holds the core (and so the control state: specific values, context, finalizer) after the public
/// queue is gone, until the last block ran; then the queue is gone too, and the loop hands the finalizer on.
actor ActorQueueCore {
    nonisolated let label: String
    nonisolated let kind: QueueKind
    /// The class given at creation; `nil` runs at the target's.
    nonisolated let qos: QoSClass?
    nonisolated let control: ActorQueueControl
    /// A concurrent queue's blocks ready to run, and the tasks that run them; nil on a serial queue.
    nonisolated let runners: ActorRunners?

    init(label: String, kind: QueueKind, qos: QoSClass?, control: ActorQueueControl) {
        self.label = label
        self.kind = kind
        self.qos = qos
        self.control = control
        runners = kind == .concurrent ? ActorRunners(width: ActorEngine.poolWidth) : nil
    }

    /// The queue's whole life: drains the mailbox, then, every block having run, submits the finalizer to the target
    /// (`global` when there is none). Only here does the queue end, so the finalizer is submitted once.
    func live(_ mailbox: ActorMailbox<ActorMail>, global: ActorQueue?) async {
        await drain(mailbox)
        control.finalize(onto: global)
    }

    /// The loop: runs until the mailbox is finished (the queue was released) and empty, and every block it started
    /// (on the pool or on its target) ran.
    func drain(_ mailbox: ActorMailbox<ActorMail>) async {
        switch kind {
        case .serial: await drainSerial(mailbox)  // awaits each block, forwarded ones included
        case .concurrent:
            await drainConcurrent(mailbox)  // blocks may still run on runners or on the target:
            await control.waitUntilIdle()  // the running count covers both
        }
    }

    private func drainSerial(_ mailbox: ActorMailbox<ActorMail>) async {
        while let mail = await mailbox.next() {
            await control.waitUntilRunnable()
            if case .retarget(let newTarget) = mail {
                control.setTarget(newTarget)
                continue
            }
            if let target = control.currentTarget {
                await forwardAndWait(mail, to: target)
            } else {
                Self.run(mail, in: self)
            }
        }
    }

    private func drainConcurrent(_ mailbox: ActorMailbox<ActorMail>) async {
        while let mail = await mailbox.next() {
            await control.waitUntilRunnable()
            if mail.isBarrier {
                await control.waitUntilIdle()
                if case .retarget(let newTarget) = mail {
                    control.setTarget(newTarget)
                } else if let target = control.currentTarget {
                    await forwardAndWait(mail, to: target)
                } else {
                    Self.run(mail, in: self)
                }
                continue
            }
            control.blockStarted()
            if let target = control.currentTarget {
                target.post(.forwarded(forwarded(mail, done: { [control] in control.blockFinished() })))
            } else {
                hand(mail)
            }
        }
    }

    /// Gives a block of this concurrent queue, counted started, to the runners, and starts one if fewer than the
    /// pool's width run. From the loop, or from a producer while the loop is parked (`ActorQueue.post`).
    nonisolated func hand(_ mail: ActorMail) {
        if runners!.hand(mail) { startRunner() }
    }

    /// A runner: a task that runs ready blocks in order until none is left, yielding to the pool every
    /// `ActorRunners.batch` blocks. Unstructured, since a producer may start it: the running count, which the loop's
    /// end waits on (`drain`), covers its blocks.
    private nonisolated func startRunner() {
        Task.detached { [self] in
            var ran = 0
            while let next = runners!.next() {
                Self.run(next, in: self)
                control.blockFinished()
                ran += 1
                if ran % ActorRunners.batch == 0 { await Task.yield() }
            }
        }
    }

    /// Hands `mail` to `target` and suspends (the actor is free meanwhile) until the target ran it.
    private func forwardAndWait(_ mail: ActorMail, to target: ActorQueue) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            target.post(.forwarded(forwarded(mail, done: { continuation.resume() })))
        }
    }

    /// `mail` as a job of the target: this queue joins the chain the target's thread will enter.
    private nonisolated func forwarded(_ mail: ActorMail, done: @escaping @Sendable () -> Void) -> ActorForwardedJob {
        switch mail {
        case .block(let block, _):
            return ActorForwardedJob(chain: [self], work: block, done: done)
        case .sync(let waiter):
            return ActorForwardedJob(chain: [self], work: { waiter.run() }, done: done)
        case .forwarded(let job):
            return ActorForwardedJob(
                chain: job.chain + [self], work: job.work,
                done: {
                    job.done(); done()
                })
        case .retarget:
            preconditionFailure("actor engine: a retarget is never forwarded")
        }
    }

    /// Runs `mail` on the calling thread as a block of `queue`, entering the queue (and the chain of a forwarded job).
    nonisolated static func run(_ mail: ActorMail, in queue: ActorQueueCore) {
        let context = ActorThreadContext.current
        switch mail {
        case .block(let block, _):
            context.within(queue) { block() }
        case .sync(let waiter):
            context.within(queue) { waiter.run() }
        case .forwarded(let job):
            context.within([queue] + job.chain.reversed()) { job.work() }
            job.done()
        case .retarget:
            break
        }
    }
}
