import ArenaContract

/// The trials of a set of workloads compiled for one engine type, by workload name: what a contender measures with.
///
/// Make one with `Measurings(engine, workloads)` in a module that knows the engine's concrete type: the initializer
/// is inlinable and visits the workloads at their concrete types, so every trial is specialised for the pair there.
/// Measuring a point then costs a dictionary lookup and one closure call, and nothing in the timed region goes
/// through an existential.
public struct Measurings: Sendable {
    /// A session on one point of the named workload, with the runner's settings and spinner.
    public typealias Measure = @Sendable (Point, PointRunner) -> PointSession

    @usableFromInline var table: [String: Measure]

    /// No workloads.
    public init() { table = [:] }

    /// The trials of `workloads` on `engine`, each compiled for both concrete types.
    @inlinable
    public init<E: Engine, Source: WorkloadSet>(_ engine: E, _ workloads: Source) {
        var visitor = MeasuringVisitor(engine: engine)
        workloads.forEach(&visitor)
        table = visitor.table
    }

    /// The names of the workloads measured, in no order.
    public var names: Set<String> { Set(table.keys) }

    /// These measurings and `more`; a workload in both is measured as `more` has it.
    public func merging(_ more: Measurings) -> Measurings {
        var merged = self
        merged.table.merge(more.table) { _, new in new }
        return merged
    }

    /// A session on `point` (of the workload it names) with `runner`'s settings; `nil` when this set has no such
    /// workload.
    public func session(_ point: Point, with runner: PointRunner) -> PointSession? {
        table[point.workload].map { $0(point, runner) }
    }

    /// Measures `point` (of the workload it names) with `runner`, start to end; `nil` when this set has no such
    /// workload.
    public func measure(_ point: Point, with runner: PointRunner) -> PointResult? {
        session(point, with: runner).map(runner.run)
    }
}

/// Builds the table: one closure per workload, each calling the runner with both types fixed.
@usableFromInline
struct MeasuringVisitor<E: Engine>: WorkloadVisitor {
    @usableFromInline let engine: E
    @usableFromInline var table: [String: Measurings.Measure] = [:]

    @inlinable
    init(engine: E) { self.engine = engine }

    @inlinable
    mutating func visit<W: Workload>(_ workload: W) {
        let engine = engine
        table[workload.name] = { point, runner in runner.session(point, of: workload, on: engine) }
    }
}
