import ArenaContract
import Bench
import Contenders
import FoundationContender

/// The contenders of this package, in the order reports list them: the one list. `system` first (the reference for
/// GCD), the home engines, then `foundation` (Foundation's `OperationQueue`, the reference for operation queues) and
/// `swift` (Swift's default executors, the reference for tasks). Adding an engine is its module and one line here.
///
/// A visit rather than an array, so that an executor author's executable can compile its own workloads for each
/// built-in engine's concrete type (`ArenaMain.run(workloads:)`).
public struct BuiltInEngines: EngineSet {
    @inlinable public init() {}

    @inlinable
    public func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor) {
        visitor.visit(SystemEngine())
        visitor.visit(MutexEngine())
        visitor.visit(LockFreeEngine())
        visitor.visit(ActorEngine())
        visitor.visit(FoundationEngine())
        visitor.visit(SwiftDefaultEngine())
    }
}

extension Contender {
    /// The built-in contenders with the built-in workloads, each compiled for its engine here, once.
    public static let builtIn: [Contender] = {
        var maker = ContenderMaker(workloads: BuiltInWorkloads())
        BuiltInEngines().forEach(&maker)
        return maker.contenders
    }()
}
