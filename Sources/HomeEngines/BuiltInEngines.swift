import ArenaContract
import Contenders
import FoundationContender

/// The contenders of this package, in the order reports list them: the one list. `system` first (the reference for
/// GCD), the home engines, then `foundation` (Foundation's `OperationQueue`, the reference for operation queues) and
/// `swift` (Swift's default executors, the reference for tasks); `references` gives those roles. Adding an engine is its module and one line here.
///
/// A visit rather than an array, so that an executor author's executable can compile its own workloads for each
/// built-in engine's concrete type (`ArenaMain.run(workloads:)`). There is one set (`shared`): every contender made
/// from it, and every workload compiled for it later, runs on the same engine values, so one contender never
/// holds two runtimes.
public struct BuiltInEngines: EngineSet {
    public let system = SystemEngine()
    public let mutex = MutexEngine()
    public let lockFree = LockFreeEngine()
    public let actor = ActorEngine()
    public let foundation = FoundationEngine()
    public let swift = SwiftDefaultEngine()

    private init() {}

    /// The built-in engines, made once per process (engine values are handles; no thread starts until one is used).
    public static let shared = BuiltInEngines()

    @inlinable
    public func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor) {
        visitor.visit(system)
        visitor.visit(mutex)
        visitor.visit(lockFree)
        visitor.visit(actor)
        visitor.visit(foundation)
        visitor.visit(swift)
    }
}

extension BuiltInEngines {
    /// The reference of each layer, by engine name: libdispatch for GCD (and for serial executors, which stand on its
    /// queues), Foundation's `OperationQueue` for operation queues, Swift's default executors for tasks. The
    /// implementation that decides a layer's rules, and the one every ratio of the layer's workloads is taken against.
    public var references: [Capability: String] {
        [.dispatchObjects: system.name, .operationQueues: foundation.name, .executors: swift.name]
    }
}
