import ArenaContract

/// Something done with each workload of a set, at the workload's concrete type (Swift has no generic closures): a
/// visitor that holds an engine of a concrete type and measures each workload on it compiles every trial for both
/// types, which is how every benchmark number measures the engine rather than the protocol's witness tables.
public protocol WorkloadVisitor {
    mutating func visit<W: Workload>(_ workload: W)
}

/// Workloads that can be visited at their concrete types: the built-in ones (`BuiltInWorkloads`), a user's own
/// (an array of one workload type, or `Workloads(A(), B())` for several), or two sets one after the other.
///
/// `forEach` is inlinable wherever it is implemented, so a call with a visitor of a concrete type, in the module that
/// names the engine and the workloads (an executor author's executable, or this package for its own), specialises
/// every visit there.
public protocol WorkloadSet: Sendable {
    /// Calls `visitor` with each workload, in order.
    func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor)
}

extension WorkloadSet {
    /// The workloads as existentials, in order: for names, summaries and points, not for measuring. Visits once.
    public var workloads: [any Workload] {
        var collector = Collector()
        forEach(&collector)
        return collector.workloads
    }
}

/// Gathers what a set visits, as existentials.
private struct Collector: WorkloadVisitor {
    var workloads: [any Workload] = []
    mutating func visit<W: Workload>(_ workload: W) { workloads.append(workload) }
}

/// An array of one workload type is a set of them, in order.
extension Array: WorkloadSet where Element: Workload {
    @inlinable
    public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {
        for workload in self { visitor.visit(workload) }
    }
}

/// Workloads of several types, in order: `Workloads(CacheWorkload(), LogWorkload())`.
public struct Workloads<each W: Workload>: WorkloadSet {
    @usableFromInline let members: (repeat each W)

    @inlinable
    public init(_ members: repeat each W) { self.members = (repeat each members) }

    @inlinable
    public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {
        for member in repeat each members { visitor.visit(member) }
    }
}

/// One set of workloads followed by another.
public struct JoinedWorkloads<First: WorkloadSet, Second: WorkloadSet>: WorkloadSet {
    @usableFromInline let first: First
    @usableFromInline let second: Second

    @inlinable
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {
        first.forEach(&visitor)
        second.forEach(&visitor)
    }
}

/// No workloads: what a user who brings only engines or rules brings.
public struct NoWorkloads: WorkloadSet {
    @inlinable public init() {}
    @inlinable public func forEach<Visitor: WorkloadVisitor>(_ visitor: inout Visitor) {}
}
