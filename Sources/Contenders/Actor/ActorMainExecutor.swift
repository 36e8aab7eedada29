import ArenaContract

/// The actor engine's main loop as a Swift executor (SE-0417): every job it is given runs on the thread in
/// `dispatchMain()`, one at a time, in the order given, through a `MainLoop` (a pthread mutex, which
/// ThreadSanitizer sees).
///
/// The main queue's drain task prefers this executor, and so its whole life runs here: the mailbox loop, the
/// waits for resumption, and, isolated to the queue's actor (a default actor, which follows its task's executor
/// preference), every block, sync hand-off and forwarded job of the main queue. That is how `@MainActor` code is
/// bound to the main thread, except that the preference is the task's, not the actor type's: every queue's core is
/// one actor type, and a custom `unownedExecutor` on it would take the runtime's default actor away from all queues.
final class ActorMainExecutor: TaskExecutor, @unchecked Sendable {
    let loop = MainLoop(name: "actor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
