import Contenders
import Dispatch

/// `protocol-cost`: what the engine protocol and the system engine's wrapper cost, on the system engine only. The same
/// single-threaded loop runs three ways: through the generic engine path (`path:generic`, a function generic over
/// `E: Engine` calling `E.Queue`), through the wrapper's concrete types (`path:concrete`, `SystemQueue` called
/// directly), and through `Dispatch` itself (`path:dispatch`, a `DispatchQueue`).
///
/// Generic against concrete is the protocol's cost; concrete against dispatch is the wrapper's (its misuse
/// bookkeeping, and the overlay's generic, rethrowing `sync<T>` it calls where the plain loop gets the overlay's
/// `() -> Void` overload). The operation is one `sync` of a counting block (`op:sync`), or one `async` of a counting block
/// with the final drain (`op:async`), on a serial queue; the headline is wall time per operation. The answer checked:
/// the blocks run equal the operations.
public struct ProtocolCostWorkload: Workload {
    public let name = "protocol-cost"
    public let summary = "sync and async through the generic engine path, the system engine's concrete types, and Dispatch"
    public let headline = Headline.timePerOperation

    public init() {}

    /// Only the system engine has a concrete wrapper over Dispatch to compare with.
    public func measures(engine: String) -> Bool { engine == "system" }

    public func points(_ settings: BenchSettings) -> [Point] {
        ["sync", "async"].flatMap { op in
            ["generic", "concrete", "dispatch"].map { path in
                Point(workload: name, parameters: [Parameter("op", op), Parameter("path", path)])
            }
        }
    }

    /// A few ms: on this 2-core Linux machine a serial sync costs 250 to 700 ns by path, an async with its share of
    /// the drain 600 to 800 ns (measured, release build).
    public func initialOperations(_ point: Point) -> Int { 10_000 }

    public func trial<E: Engine>(_ point: Point, operations: Int, on engine: E,
                                 context: TrialContext) throws(WorkloadError) -> Trial {
        let asynchronous = point["op"] == "async"
        let counter = SharedCounter()
        // Each path makes its queue before its clock starts. The final `sync` of the async loops is their drain; it
        // has no deadline, which is safe on the one engine measured (libdispatch, the reference).
        let elapsed = switch point["path"] {
        case "generic": Self.generic(engine, asynchronous: asynchronous, operations: operations, counter: counter)
        case "concrete": Self.concrete(SystemEngine(), asynchronous: asynchronous, operations: operations, counter: counter)
        default: Self.dispatch(asynchronous: asynchronous, operations: operations, counter: counter)
        }
        // The last sync returned after every block, so the count is complete and visible here.
        try WorkloadError.check("the blocks run", counter.value, expected: operations)
        return Trial(operations: operations, elapsed: elapsed)
    }

    /// The loop as every workload calls an engine: generic over `E`, each call through `E.Queue`. Not inlined, so it
    /// stays the generic function the report means, whatever the caller knows about `E`.
    @inline(never)
    static func generic<E: Engine>(_ engine: E, asynchronous: Bool, operations: Int, counter: SharedCounter) -> Stopwatch.Reading {
        let queue = engine.makeQueue(label: "protocol-cost.generic", kind: .serial)
        let watch = Stopwatch()
        if asynchronous {
            for _ in 0..<operations { queue.async { counter.value &+= 1 } }
            queue.sync {}
        } else {
            for _ in 0..<operations { queue.sync { counter.value &+= 1 } }
        }
        return watch.read()
    }

    /// The same loop on the concrete wrapper types: `SystemQueue` methods called directly.
    @inline(never)
    static func concrete(_ engine: SystemEngine, asynchronous: Bool, operations: Int, counter: SharedCounter) -> Stopwatch.Reading {
        let queue: SystemQueue = engine.makeQueue(label: "protocol-cost.concrete", kind: .serial)
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
    static func dispatch(asynchronous: Bool, operations: Int, counter: SharedCounter) -> Stopwatch.Reading {
        let queue = DispatchQueue(label: "protocol-cost.dispatch")
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
