import ArenaContract
import Bench
import Contenders
import Dispatch

/// `protocol-cost`: what the engine protocol and the system engine's wrapper cost, on the system engine only. The same
/// single-threaded loop runs four ways: through the generic engine path as every workload calls it (`generic`, a
/// function generic over `E: Engine`, specialised), through the same function kept unspecialised (`witness`, every
/// call through witness tables, as an `any Engine` caller would pay), through the wrapper's concrete types
/// (`concrete`, `SystemQueue` called directly), and through `Dispatch` itself (`dispatch`).
///
/// A machine this noisy moves a single-threaded loop by 20% between processes, so the paths are paired: one trial
/// runs all four in ten rounds, in a rotating order, and each repetition reports their ratios. The headline,
/// `protocol_overhead_pct`, is generic against concrete (the protocol's cost); `wrapper_overhead_pct` is concrete
/// against dispatch (the wrapper's misuse bookkeeping and result carrying); `witness_overhead_pct` is what skipping
/// specialisation would cost. The operation is one `sync` of a counting block (`op:sync`), or one `async` of a
/// counting block with its share of the drain (`op:async`), on a serial queue. The answer checked: the blocks run
/// equal the operations. (This workload found that the wrapper once called the overlay's generic, rethrowing
/// `sync<T>`, ~450 ns dearer per call than the `() -> Void` overload it now uses.)
///
/// It lives here, beside the built-in engines, and not in `Bench`: it names the system engine's own types, and
/// `Bench` stands on the contract alone, so that an outside workload's package compiles no home engine.
/// `ArenaWorkloads` runs it after the workloads of `BuiltInWorkloads`.
public struct ProtocolCostWorkload: Workload {
    public let name = "protocol-cost"
    public let summary = "sync and async through the generic engine path, unspecialised, the concrete wrapper, and Dispatch, paired"
    public let headline = Headline.counter(name: "protocol_overhead_pct", unit: "%", lowerIsBetter: true)
    public let figure = PlotFigure.bundled("protocol-cost.gp")

    public init() {}

    /// Only the system engine has a concrete wrapper over Dispatch to compare with: true for its name alone (a string
    /// comparison; the engine value is a handle that starts nothing).
    public func measures(engine: String) -> Bool { engine == SystemEngine().name }

    /// The operation each path repeats.
    public enum Call: String, ParameterChoice {
        /// One `sync` of a counting block.
        case synchronous = "sync"
        /// One `async` of a counting block, with its share of the drain.
        case asynchronous = "async"
        public static let parameterName = "op"
    }

    /// op: sync or async.
    public func parameters(_ settings: BenchSettings) -> [ParameterDeclaration] { [.choice(Call.self)] }

    public func points(_ settings: BenchSettings) -> [Point] {
        Call.allCases.map { Point(workload: name, parameters: [Parameter($0)]) }
    }

    /// A few ms: a serial sync costs 150 to 300 ns by path, an async with its share of the drain 600 to 1,000 ns.
    public func initialOperations(_ point: Point) -> Int { 10_000 }

    @usableFromInline enum Path: CaseIterable { case generic, witness, concrete, dispatch }

    @inlinable
    public func trial<E: Engine>(
        _ point: Point, operations: Int, on engine: E,
        context: TrialContext
    ) throws(WorkloadError) -> Trial {
        let asynchronous =
            switch point.choice(Call.self) {
            case .synchronous: false
            case .asynchronous: true
            }
        let rounds = 10
        let share = max(1, operations / (rounds * Path.allCases.count))
        let counter = SharedCounter()
        let generic = engine.makeQueue(label: "protocol-cost.generic", kind: .serial)
        let witness = engine.makeQueue(label: "protocol-cost.witness", kind: .serial)
        let concrete: SystemQueue = SystemEngine().makeQueue(label: "protocol-cost.concrete", kind: .serial)
        let dispatch = DispatchQueue(label: "protocol-cost.dispatch")
        var nanoseconds: [Path: UInt64] = [:]
        var total = Stopwatch.Reading(wallNanoseconds: 0, cpuNanoseconds: 0)
        for round in 0..<rounds {
            for offset in 0..<Path.allCases.count {
                let path = Path.allCases[(round + offset) % Path.allCases.count]
                // The final `sync` of an async loop is its drain; it has no deadline, which is safe on the one engine
                // measured (libdispatch, the reference).
                let reading =
                    switch path {
                    case .generic: Self.generic(generic, asynchronous: asynchronous, operations: share, counter: counter)
                    case .witness: Self.witness(witness, asynchronous: asynchronous, operations: share, counter: counter)
                    case .concrete: Self.concrete(concrete, asynchronous: asynchronous, operations: share, counter: counter)
                    case .dispatch: Self.dispatch(dispatch, asynchronous: asynchronous, operations: share, counter: counter)
                    }
                nanoseconds[path, default: 0] += reading.wallNanoseconds
                total.wallNanoseconds += reading.wallNanoseconds
                total.cpuNanoseconds += reading.cpuNanoseconds
            }
        }
        // Each loop's last sync returned after every block, so the count is complete and visible here.
        try WorkloadError.check("the blocks run", counter.value, expected: share * rounds * Path.allCases.count)
        func perOperation(_ path: Path) -> Double { Double(nanoseconds[path] ?? 0) / Double(share * rounds) }
        func overhead(_ path: Path, over base: Path) -> Double { (perOperation(path) / perOperation(base) - 1) * 100 }
        return Trial(
            operations: share * rounds * Path.allCases.count, elapsed: total,
            counters: [
                "generic_ns": perOperation(.generic), "witness_ns": perOperation(.witness),
                "concrete_ns": perOperation(.concrete), "dispatch_ns": perOperation(.dispatch),
                "protocol_overhead_pct": overhead(.generic, over: .concrete),
                "witness_overhead_pct": overhead(.witness, over: .concrete),
                "wrapper_overhead_pct": overhead(.concrete, over: .dispatch),
            ])
    }

    /// The loop as every workload calls an engine: generic over the queue type, specialised where the caller knows it.
    /// Public, with `witness`, so that an executor author can pair both with a loop of their own on their concrete
    /// queue type (docs/EXTENDING.md shows how): a few ns of bookkeeping beside `operations` calls of the queue.
    @inline(never)
    @inlinable public static func generic<Q: EngineQueue>(_ queue: Q, asynchronous: Bool, operations: Int, counter: SharedCounter)
        -> Stopwatch.Reading
    {
        loop(queue, asynchronous: asynchronous, operations: operations, counter: counter)
    }

    /// The same loop, never specialised: each call goes through the queue type's witness table.
    @inline(never)
    @_semantics("optimize.sil.specialize.generic.never")
    @inlinable public static func witness<Q: EngineQueue>(_ queue: Q, asynchronous: Bool, operations: Int, counter: SharedCounter)
        -> Stopwatch.Reading
    {
        loop(queue, asynchronous: asynchronous, operations: operations, counter: counter)
    }

    /// The same loop on the concrete wrapper type: `SystemQueue` methods called directly.
    @inline(never)
    @inlinable static func concrete(_ queue: SystemQueue, asynchronous: Bool, operations: Int, counter: SharedCounter) -> Stopwatch.Reading
    {
        loop(queue, asynchronous: asynchronous, operations: operations, counter: counter)
    }

    /// The loop the three engine paths share; always inlined, so each path compiles it as that path calls the queue.
    @inline(__always)
    @inlinable static func loop<Q: EngineQueue>(_ queue: Q, asynchronous: Bool, operations: Int, counter: SharedCounter)
        -> Stopwatch.Reading
    {
        let watch = Stopwatch()
        if asynchronous {
            for _ in 0..<operations { queue.async { counter.value &+= 1 } }
            queue.sync {}
        } else {
            for _ in 0..<operations { queue.sync { counter.value &+= 1 } }
        }
        return watch.read()
    }

    /// The same loop on `Dispatch` itself, with no wrapper.
    @inline(never)
    @inlinable static func dispatch(_ queue: DispatchQueue, asynchronous: Bool, operations: Int, counter: SharedCounter)
        -> Stopwatch.Reading
    {
        let watch = Stopwatch()
        if asynchronous {
            for _ in 0..<operations { queue.async { counter.value &+= 1 } }
            queue.sync {}
        } else {
            for _ in 0..<operations { queue.sync { counter.value &+= 1 } }
        }
        return watch.read()
    }
}
