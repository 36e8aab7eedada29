/// Which points a run keeps (`arena bench --point NAME:VALUE`, repeatable): a point is kept when, for every name
/// given, its parameter of that name has one of the values given for it. Several values of one name are
/// alternatives; different names must all hold; a point without the parameter is not kept. No condition keeps every
/// point.
public struct PointSelection: Sendable, Equatable, CustomStringConvertible {
    /// One name and the values it may have, in the order given.
    public struct Condition: Sendable, Equatable {
        /// The parameter's name (`mode`).
        public let name: String
        /// The values it may have, any one of them (`sync`, `async-write`).
        public let values: [String]
    }

    /// The conditions, one per name, in the order the names were first given.
    public let conditions: [Condition]

    /// Every point.
    public static let all = PointSelection(conditions: [])

    private init(conditions: [Condition]) { self.conditions = conditions }

    /// The selection `NAME:VALUE` items make, as benchmark names write a parameter (`mode:sync`); throws for an item
    /// without a colon, or with an empty name or value.
    public init(parsing items: [String]) throws(UndeclaredPoint) {
        var conditions: [Condition] = []
        for item in items {
            guard let colon = item.firstIndex(of: ":"), colon != item.startIndex, item.index(after: colon) != item.endIndex
            else {
                throw UndeclaredPoint("--point wants NAME:VALUE, as benchmark names write a parameter (mode:sync); not '\(item)'")
            }
            let name = String(item[..<colon]), value = String(item[item.index(after: colon)...])
            if let index = conditions.firstIndex(where: { $0.name == name }) {
                let values = conditions[index].values
                if !values.contains(value) { conditions[index] = Condition(name: name, values: values + [value]) }
            } else {
                conditions.append(Condition(name: name, values: [value]))
            }
        }
        self.conditions = conditions
    }

    /// Whether `point` meets every condition. Costs a search of the point's parameters per condition.
    public func keeps(_ point: Point) -> Bool {
        conditions.allSatisfy { condition in point[condition.name].map(condition.values.contains) ?? false }
    }

    /// Throws unless every name is a parameter that one of `workloads` declares under `settings`, every value is one
    /// that a workload declaring the name takes, and the selection keeps some point of theirs. The message is one
    /// line naming the workloads and the parameters or values they take.
    public func check(against workloads: [any Workload], settings: BenchSettings) throws(UndeclaredPoint) {
        guard !conditions.isEmpty else { return }
        let declared = workloads.map { ($0.name, $0.parameters(settings)) }
        for condition in conditions {
            let having = declared.compactMap { name, parameters in
                parameters.first { $0.name == condition.name }.map { (workload: name, declaration: $0) }
            }
            guard !having.isEmpty else {
                let known = declared.filter { !$0.1.isEmpty }
                    .map { name, parameters in "\(name) takes \(parameters.map(\.name).joined(separator: ", "))" }
                let list = known.isEmpty ? "none of them takes a parameter" : known.joined(separator: "; ")
                throw UndeclaredPoint(
                    "--point \(condition.name):\(condition.values[0]): no chosen workload has a parameter '\(condition.name)' (\(list))")
            }
            let run = settings.quick ? " in a quick run" : ""
            for value in condition.values where !having.contains(where: { $0.declaration.values.contains(value) }) {
                let takes = having.map { "\($0.workload) takes \($0.declaration.values.joined(separator: ", "))\(run)" }
                throw UndeclaredPoint(
                    "--point \(condition.name):\(value): no chosen workload declares that value of \(condition.name) (\(takes.joined(separator: "; ")))"
                )
            }
        }
        guard workloads.contains(where: { $0.points(settings).contains(where: keeps) }) else {
            throw UndeclaredPoint(
                "--point \(self): no point of \(workloads.map(\.name).joined(separator: ", ")) has all of these")
        }
    }

    /// The items, name by name: `mode:sync, mode:async-write, threads:4`.
    public var description: String {
        conditions.flatMap { condition in condition.values.map { "\(condition.name):\($0)" } }.joined(separator: ", ")
    }
}
