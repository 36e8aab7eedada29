import ArenaContract

/// Swift's default executors, the reference for tasks and the baseline for actors: the `swift` contender, a
/// `LayerContender` bringing only its executor layer (`SwiftDefaultExecutors`: Swift's global concurrent executor for
/// tasks, default actors for actors).
///
/// Its column in the conformance matrix is about executors only: as a layer contender it lacks `dispatch-objects` and
/// `operation-queues` (its GCD is the system engine's, checked in that column), and it lacks `serial-executors`, since
/// a default actor's executor is the runtime's own. On Linux the global concurrent executor is libdispatch's
/// root-queue pool, the same threads the system engine's global queue runs on.
public typealias SwiftDefaultEngine = LayerContender<SystemEngine.Operations, SwiftDefaultExecutors>

extension LayerContender where Operations == SystemEngine.Operations, Executors == SwiftDefaultExecutors {
    /// The `swift` contender.
    public init() {
        self.init(
            name: "swift",
            summary:
                "Swift's default executors: the global concurrent executor for tasks and default actors, the reference for tasks; its GCD is the system engine's.",
            executors: SwiftDefaultExecutors(),
            limits: [
                .serialExecutors: """
                a default actor runs on the runtime's own executor, which is no object one can make, hand to another \
                actor or submit a plain block to (an actor without an `unownedExecutor` of its own has no public \
                executor value); the serial-executor rules' reference is the system engine's Dispatch queue behind the \
                adapter, and the actor workloads run default actors here
                """
            ],
            deviations: [
                KnownDeviation(
                    .rule("global-executor.deadline-entry-point"),
                    finding: """
                        docs/FINDINGS.md §13: Swift 6.3's default global executor takes the instant given to \
                        swift_task_enqueueGlobalWithDeadline for a delay from now, so a job due in 20 ms of a clock \
                        that started hours ago waits hours
                        """)
            ])
    }
}
