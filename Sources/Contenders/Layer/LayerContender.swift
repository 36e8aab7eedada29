import ArenaContract

/// A contender made of the layers its author brings (an executor layer, an operation-queue layer, or both) with every
/// GCD object borrowed from the system engine (libdispatch): the shortest honest declaration of an outside executor
/// or operation queue, with nothing of the `Engine` family to implement.
///
/// ```swift
/// ArenaMain.run(engines: [LayerContender(name: "threads", summary: "…", executors: ThreadExecutors())])
/// ```
///
/// Its limits follow from what it brings: it lacks `dispatch-objects` (its GCD is the system engine's, which the
/// `system` column checks) and each layer it does not bring, so the rules and workloads of those layers are not
/// checked on it (`-` in the matrix), and every rule of the layers it brings runs; an executor layer without
/// co-located task executors (`ExecutorLayer.colocatedExecutor(for:)` left to its default) lacks
/// `colocated-executors`, so `actor-hop` leaves out its co-located caller. The `limits` given to `init` add
/// what it lacks within its own layers (`serial-executors`, `remove-dependency`), each with its reason; a reason given
/// there for a layer replaces the derived one. A layer it does not bring is the system engine's default layer, there
/// only because the protocol names one: nothing checks or measures it.
///
/// A reference among them (`foundation`, `swift`) also declares the departures from the contract documented as its
/// own (`deviations`), each with its finding.
///
/// A cheap value: the system engine's handle, the layers, two strings, the limits and the deviations; copying it
/// retains them.
public struct LayerContender<Operations: OperationLayer, Executors: ExecutorLayer>: GCDBorrower {
    /// The system engine: every GCD object and call of this contender is its.
    public let lender = SystemEngine()
    public let name: String
    public let summary: String
    /// The operation-queue layer: the author's, or the system engine's unchecked default.
    public let operations: Operations
    /// The executor layer: the author's, or the system engine's unchecked default.
    public let executors: Executors
    /// Derived from the layers brought, with the author's limits over them: computed once, in `init`.
    public let limits: [Capability: String]
    /// The departures from the contract documented as this contender's own (a reference's races).
    public let deviations: [KnownDeviation]

    /// A contender bringing both layers; `limits` are what it lacks within them, `deviations` what is documented as
    /// its own.
    public init(
        name: String, summary: String, operations: Operations, executors: Executors, limits: [Capability: String] = [:],
        deviations: [KnownDeviation] = []
    ) {
        self.init(
            name: name, summary: summary, operations: (operations, true), executors: (executors, true), limits: limits,
            deviations: deviations)
    }

    private init(
        name: String, summary: String, operations: (layer: Operations, brought: Bool), executors: (layer: Executors, brought: Bool),
        limits: [Capability: String], deviations: [KnownDeviation]
    ) {
        self.name = name
        self.summary = summary
        self.deviations = deviations
        self.operations = operations.layer
        self.executors = executors.layer
        let brought = [operations.brought ? "an operation-queue layer" : nil, executors.brought ? "an executor layer" : nil]
        var derived: [Capability: String] = [:]
        derived[.dispatchObjects] = """
            \(name) brings \(brought.compactMap { $0 }.joined(separator: " and ")) of its own; its queues, groups, \
            semaphores and sources are the system engine's (libdispatch), which the system column checks
            """
        if !operations.brought {
            derived[.operationQueues] = """
                \(name) brings no operation-queue layer; one over its GCD would be the system engine's, which the \
                system column checks
                """
        }
        if !executors.brought {
            derived[.executors] = """
                \(name) brings no executor layer; its executors would be the system engine's, which the system column \
                checks
                """
        } else {
            if Executors.ColocatedExecutor.self == NoColocatedExecutor.self {
                derived[.colocatedExecutors] = """
                    the executor layer of \(name) makes no task executor beside its serial executors (its \
                    colocatedExecutor(for:) is the default, nil)
                    """
            }
            if Executors.GlobalExecutor.self == NoGlobalExecutor.self && !executors.layer.poolIsDefault {
                derived[.globalExecutor] = """
                    the executor layer of \(name) installs no global executor (its makeGlobalExecutor() is the \
                    default, nil)
                    """
            }
        }
        self.limits = derived.merging(limits) { _, given in given }
    }
}

extension LayerContender where Operations == SystemEngine.Operations {
    /// A contender bringing only an executor layer: the executor rules and workloads run on it, the GCD and
    /// operation-queue ones do not. `limits` are what it lacks within the layer (`serial-executors`), `deviations`
    /// what is documented as its own.
    public init(
        name: String, summary: String, executors: Executors, limits: [Capability: String] = [:], deviations: [KnownDeviation] = []
    ) {
        let unchecked = SystemEngine().operations
        self.init(
            name: name, summary: summary, operations: (unchecked, false), executors: (executors, true), limits: limits,
            deviations: deviations)
    }
}

extension LayerContender where Executors == SystemEngine.Executors {
    /// A contender bringing only an operation-queue layer: the operation-queue rules and workloads run on it, the GCD
    /// and executor ones do not. `limits` are what it lacks within the layer (`remove-dependency`), `deviations` what
    /// is documented as its own.
    public init(
        name: String, summary: String, operations: Operations, limits: [Capability: String] = [:], deviations: [KnownDeviation] = []
    ) {
        let unchecked = SystemEngine().executors
        self.init(
            name: name, summary: summary, operations: (operations, true), executors: (unchecked, false), limits: limits,
            deviations: deviations)
    }
}
