import ArenaContract
import Bench
import Contenders
import FoundationContender

/// The contenders of this package, in the order reports list them: the one list. `system` first (the reference for
/// GCD), the home engines, then `foundation` (Foundation's `OperationQueue`, the reference for operation queues) and
/// `swift` (Swift's default executors, the reference for tasks). Adding an engine is its module and one line here.
///
/// A visit rather than an array, so that an executor author's executable can compile its own workloads for each
/// built-in engine's concrete type (`ArenaMain.run(workloads:)`). There is one set (`shared`): every contender made
/// from it, and every workload compiled for it later, runs on the same engine values, so one contender never
/// holds two runtimes.
public struct BuiltInEngines: EngineSet {
    @usableFromInline let system = SystemEngine()
    @usableFromInline let mutex = MutexEngine()
    @usableFromInline let lockFree = LockFreeEngine()
    @usableFromInline let actor = ActorEngine()
    @usableFromInline let foundation = FoundationEngine()
    @usableFromInline let swift = SwiftDefaultEngine()

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

extension Contender {
    /// The built-in contenders with the built-in workloads (`ArenaWorkloads`), each compiled for its engine here, once.
    public static let builtIn: [Contender] = {
        var maker = ContenderMaker(workloads: ArenaWorkloads())
        BuiltInEngines.shared.forEach(&maker)
        return maker.contenders
    }()
}
