import ArenaContract
import Harness
import Synchronization

/// `op-graph`: a graph of operations with dependencies on one operation queue of the contender's operation layer
/// (`Engine.operations`), built, added and run to its end per round: a layered graph (W operations per layer, D
/// layers, each operation depending on two of the layer before) and a chain (each depending on the one before).
///
/// An operation is one round; the headline is operations per second. The answer checked: every operation ran once,
/// and none started before every one of its dependencies had finished (each checks its dependencies' finished
/// flags as it starts); a sink operation depending on the last layer opens the latch the round waits on.
public struct OperationGraphWorkload: Workload {
    public let name = "op-graph"
    public let summary = "a layered dependency graph (W wide, D deep) and a chain of operations, built, added and run per round"
    public let headline = Headline.throughput(unit: "operations/s")
    public let figure = PlotFigure.bundled("op-graph.gp")
    public var requirements: Set<Capability> { [.operationQueues] }

    /// The graph's shape; the trial builds either from its width and depth alone.
    public enum Shape: String, ParameterChoice {
        /// W operations per layer, D layers, each depending on two of the layer before.
        case layered
        /// Width 1: each operation depends on the one before.
        case chain
        public static let parameterName = "shape"
    }

    public init() {}

    /// shape, width and depth: the layered graph's and the chain's.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] {
        let (width, depth, chain) = Self.sizes(settings)
        return [.choice(Shape.self), .integer("width", [width, 1]), .integer("depth", [depth, chain])]
    }

    /// shape:layered (width × depth) and shape:chain (width 1, depth = length).
    public func points(_ settings: BenchSettings) -> [Point] {
        let (width, depth, chain) = Self.sizes(settings)
        return Shape.allCases.map { shape in
            switch shape {
            case .layered:
                Point(workload: name, parameters: [Parameter(shape), Parameter("width", width), Parameter("depth", depth)])
            case .chain:
                Point(workload: name, parameters: [Parameter(shape), Parameter("width", 1), Parameter("depth", chain)])
            }
        }
    }

    /// The layered graph's width and depth, and the chain's length, under `settings`.
    static func sizes(_ settings: BenchSettings) -> (width: Int, depth: Int, chain: Int) {
        settings.quick ? (8, 8, 100) : (16, 32, 1_000)
    }

    public func initialOperations(_ point: Point) -> Int { 1 }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let width = point.integer("width")
        let depth = point.integer("depth")
        let layer = engine.operations
        let queue = layer.makeQueue(label: "op-graph")
        let watch = Stopwatch()
        for round in 0..<operations {
            let tally = GraphTally(count: width * depth)
            let sinkRan = Latch()
            var previous: [E.Operations.Operation] = []
            for level in 0..<depth {
                var current: [E.Operations.Operation] = []
                current.reserveCapacity(width)
                for index in 0..<width {
                    let node = level * width + index
                    // Two of the layer before (one in a chain): index and its right neighbour, wrapping.
                    let parents = level == 0 ? [] : Array(Set([index, (index + 1) % width])).map { (level - 1) * width + $0 }
                    let operation = layer.makeBlockOperation(label: "op-graph") { tally.run(node, after: parents) }
                    for parent in parents { operation.addDependency(previous[parent - (level - 1) * width]) }
                    current.append(operation)
                }
                queue.addOperations(current, waitUntilFinished: false)
                previous = current
            }
            let sink = layer.makeBlockOperation(label: "op-graph.sink") { sinkRan.countDown() }
            for operation in previous { sink.addDependency(operation) }
            queue.addOperation(sink)
            guard sinkRan.wait(until: context.deadline) else {
                throw Self.stalled(round: round, ran: tally.ran, of: width * depth, sink: sink, sinkRan: sinkRan, on: queue, layer)
            }
            try WorkloadError.check("the operations run in round \(round)", tally.ran, expected: width * depth)
            try WorkloadError.check("operations started before a dependency finished in round \(round)", tally.early, expected: 0)
        }
        let elapsed = watch.read()
        return Trial(operations: operations, items: operations * width * depth, elapsed: elapsed)
    }
}

extension OperationGraphWorkload {
    /// How long a stalled round's sink is given once another operation was added to its queue.
    public static let kickWait: Duration = .seconds(2)

    /// The error of a round whose sink did not run by the deadline, saying where it stopped. When every operation
    /// ran and the sink reports ready, not executing and not finished, an empty operation is added to the queue (a
    /// kick: adding makes a queue look at its operations again) and the sink given `kickWait` more: a sink that runs
    /// then was ready and not started, `Symptom.readyOperationNotStarted`, the queue's loss rather than the graph's.
    @inlinable
    static func stalled<Layer: OperationLayer>(
        round: Int, ran: Int, of count: Int, sink: Layer.Operation, sinkRan: Latch, on queue: Layer.Queue, _ layer: Layer
    ) -> WorkloadError {
        let state = """
            \(ran) of \(count) operations ran; the sink reports isReady \(sink.isReady), isExecuting \(sink.isExecuting), \
            isFinished \(sink.isFinished); operationCount \(queue.operationCount)
            """
        guard ran == count, sink.isReady, !sink.isExecuting, !sink.isFinished else {
            return WorkloadError("timed out waiting for round \(round): \(state)", timedOut: true)
        }
        queue.addOperation(layer.makeBlockOperation(label: "op-graph.kick") {})
        guard sinkRan.wait(kickWait) else {
            return WorkloadError(
                "timed out waiting for round \(round): \(state); an operation added after it did not start the sink either",
                timedOut: true)
        }
        return WorkloadError(
            """
            timed out waiting for round \(round): \(state); the sink ran once another operation was added to the \
            queue: the queue held a ready operation and did not start it
            """, timedOut: true, symptom: .readyOperationNotStarted)
    }
}

/// The finished flag of every operation of one round, and counts of those run and of those that started early.
@usableFromInline final class GraphTally: @unchecked Sendable {
    @usableFromInline let finished: UnsafeMutablePointer<Atomic<Bool>>
    @usableFromInline let count: Int
    @usableFromInline let ranCount = Atomic<Int>(0)
    @usableFromInline let earlyCount = Atomic<Int>(0)

    @inlinable init(count: Int) {
        self.count = count
        finished = .allocate(capacity: count)
        for index in 0..<count { (finished + index).initialize(to: Atomic(false)) }
    }

    deinit {
        finished.deinitialize(count: count)
        finished.deallocate()
    }

    /// Operation `node` runs: each parent must have finished (acquire pairs with the parent's release).
    @inlinable func run(_ node: Int, after parents: [Int]) {
        for parent in parents where !finished[parent].load(ordering: .acquiring) {
            earlyCount.wrappingAdd(1, ordering: .relaxed)
        }
        ranCount.wrappingAdd(1, ordering: .relaxed)
        finished[node].store(true, ordering: .releasing)
    }

    @inlinable var ran: Int { ranCount.load(ordering: .relaxed) }
    @inlinable var early: Int { earlyCount.load(ordering: .relaxed) }
}
