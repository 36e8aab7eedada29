/// Something done with each engine of a set, at the engine's concrete type (Swift has no generic closures).
public protocol EngineVisitor {
    mutating func visit<E: Engine>(_ engine: E)
}

/// Engines that can be visited at their concrete types: the built-in ones (`BuiltInEngines`), a user's own (an
/// array of one engine type, or `Engines(A(), B())` for several). `forEach` is inlinable wherever it is implemented,
/// so a visitor of a concrete type specialises every visit in the module that calls it.
public protocol EngineSet: Sendable {
    /// Calls `visitor` with each engine, in order.
    func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor)
}

/// An array of one engine type is a set of them, in order.
extension Array: EngineSet where Element: Engine {
    @inlinable
    public func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor) {
        for engine in self { visitor.visit(engine) }
    }
}

/// Engines of several types, in order: `Engines(MyEngine(), MyOtherEngine())`.
public struct Engines<each E: Engine>: EngineSet {
    @usableFromInline let members: (repeat each E)

    @inlinable
    public init(_ members: repeat each E) { self.members = (repeat each members) }

    @inlinable
    public func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor) {
        for member in repeat each members { visitor.visit(member) }
    }
}

/// No engines: what a user who brings only workloads or rules brings.
public struct NoEngines: EngineSet {
    @inlinable public init() {}
    @inlinable public func forEach<Visitor: EngineVisitor>(_ visitor: inout Visitor) {}
}
