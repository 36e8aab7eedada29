/// The values of a choice parameter: a `String`-backed enum whose raw values are what benchmark names and CSV cells
/// show, in the order points list them (`allCases`), and whose `parameterName` names the parameter.
///
/// ```swift
/// public enum Mode: String, ParameterChoice {
///     case sync
///     case asyncWrite = "async-write"
///     public static let parameterName = "mode"
/// }
/// ```
///
/// A workload declares it with `.choice(Mode.self)`, builds its points with `Parameter(Mode.sync)`, and reads it in a
/// trial with `point.choice(Mode.self)`, switching over every case: a misspelled value never reaches a trial.
public protocol ParameterChoice: RawRepresentable, CaseIterable, Sendable where RawValue == String, AllCases: Sendable {
    /// The parameter's name: a segment of the benchmark name (`mode:sync`) and a CSV column.
    static var parameterName: String { get }
}

extension ParameterChoice {
    /// The value `point` gives this parameter, or `nil` when the point lacks it or gives a value not among the cases
    /// (a point read back from an older results folder). A linear search of the point's few parameters.
    public init?(_ point: Point) {
        guard let text = point[Self.parameterName] else { return nil }
        self.init(rawValue: text)
    }
}

/// One parameter a workload's points take, with its kind and the values a run measures: what `--point` checks a
/// selection against, what a child checks its point against, and what `arena list --workloads` shows.
public struct ParameterDeclaration: Sendable, Equatable {
    /// What kind of value the parameter takes.
    public enum Kind: String, Sendable, Equatable {
        /// One of a fixed set of words (`sync`, `async-write`), declared by a `ParameterChoice` enum.
        case choice
        /// A whole number: a thread count, a size (`threads:4`, `read_size:4096`).
        case integer
        /// A duration, written with its unit (`work:100ns`, `interval:1ms`; units `ns`, `us`, `ms`, `s`).
        case duration
    }

    /// The parameter's name, as benchmark names and CSV columns show it.
    public let name: String
    /// The kind of its values.
    public let kind: Kind
    /// The values a run measures, as names and CSV cells show them, in the order the points take them.
    public let values: [String]

    /// A parameter of `kind` with `values` as written in names; the typed forms below are the usual way to make one.
    public init(name: String, kind: Kind, values: [String]) {
        self.name = name
        self.kind = kind
        self.values = values
    }

    /// A choice parameter: every case of `type`, in case order, named `type.parameterName`.
    public static func choice<C: ParameterChoice>(_ type: C.Type) -> ParameterDeclaration {
        ParameterDeclaration(name: C.parameterName, kind: .choice, values: C.allCases.map(\.rawValue))
    }

    /// An integer parameter taking `values` (repeats dropped, order kept).
    public static func integer(_ name: String, _ values: [Int]) -> ParameterDeclaration {
        ParameterDeclaration(name: name, kind: .integer, values: unique(values.map(String.init)))
    }

    /// A duration parameter taking `values`, written as `Parameter(name, duration)` writes them (repeats dropped).
    public static func duration(_ name: String, _ values: [Duration]) -> ParameterDeclaration {
        ParameterDeclaration(name: name, kind: .duration, values: unique(values.map(Parameter.label)))
    }

    /// The parameters `points` take, in the order of their first appearance, each with its values in the order of
    /// their first appearance: integers where every value is one, choices otherwise. `Workload.parameters(_:)`'s
    /// default, for a workload that declares none.
    public static func derived(from points: [Point]) -> [ParameterDeclaration] {
        var names: [String] = []
        var values: [String: [String]] = [:]
        for point in points {
            for parameter in point.parameters {
                if values[parameter.name] == nil { names.append(parameter.name) }
                if values[parameter.name, default: []].contains(parameter.value) { continue }
                values[parameter.name, default: []].append(parameter.value)
            }
        }
        return names.map { name in
            let taken = values[name] ?? []
            return ParameterDeclaration(name: name, kind: taken.allSatisfy { Int($0) != nil } ? .integer : .choice, values: taken)
        }
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

extension Parameter {
    /// The choice `value`, under its type's parameter name: `Parameter(Mode.sync)` is `mode:sync`.
    public init<C: ParameterChoice>(_ value: C) { self.init(C.parameterName, value.rawValue) }

    /// A duration, written in the largest of `s`, `ms`, `us` and `ns` that holds it whole: `Parameter("work", .microseconds(1))`
    /// is `work:1us`, zero is `0ns`.
    public init(_ name: String, _ value: Duration) { self.init(name, Self.label(value)) }

    /// `value` as names and CSV cells write it: `0ns`, `100ns`, `1us`, `10ms`, `2s`.
    public static func label(_ value: Duration) -> String {
        let nanoseconds = value.nanosecondsClamped
        for (unit, scale) in durationUnits where nanoseconds % scale == 0 && nanoseconds != 0 {
            return "\(nanoseconds / scale)\(unit)"
        }
        return "\(nanoseconds)ns"
    }

    /// The duration `label` writes (`100ns`, `1us`, `10ms`, `2s`); `nil` for anything else.
    public static func duration(_ label: String) -> Duration? {
        for (unit, scale) in durationUnits where label.hasSuffix(unit) {
            guard let count = Int64(label.dropLast(unit.count)) else { continue }
            let (nanoseconds, overflow) = count.multipliedReportingOverflow(by: scale)
            return overflow ? nil : .nanoseconds(nanoseconds)
        }
        return nil
    }

    /// Duration units, largest first, with their nanoseconds.
    private static let durationUnits: [(String, Int64)] = [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)]
}

extension Point {
    /// The value of the choice parameter `type` declares, as its enum. Workloads read their own points, which are
    /// checked where they enter (`Workload.check(_:settings:)`), so a missing or undeclared value is a bug and traps.
    /// A linear search of the point's few parameters and a string match: read it once, before the timed loop.
    public func choice<C: ParameterChoice>(_ type: C.Type) -> C {
        guard let value = C(self) else {
            preconditionFailure("\(workload): no \(C.parameterName) among \(C.allCases.map(\.rawValue)) in \(parameterPath)")
        }
        return value
    }

    /// The value of the duration parameter `name` (`work:100ns`); a missing or malformed one is a bug and traps, as
    /// `integer(_:)`. Read it once, before the timed loop.
    public func duration(_ name: String) -> Duration {
        guard let text = self[name], let value = Parameter.duration(text) else {
            preconditionFailure("\(workload): no duration parameter '\(name)'")
        }
        return value
    }
}

/// Why a point is not one its workload declares: an unknown parameter, a value not declared, a parameter missing,
/// or a combination the workload does not measure. The message is one line, naming the workload and what it takes.
public struct UndeclaredPoint: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole explanation, one line.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension Workload {
    /// Throws unless `point` is one of `points(settings)`, saying first what is wrong with its parameters against
    /// `parameters(settings)` (an unknown name, a value not declared, one missing). Costs a call of each; for where a
    /// point enters (a child's request), never inside a trial.
    public func check(_ point: Point, settings: BenchSettings) throws(UndeclaredPoint) {
        guard point.workload == name else { throw UndeclaredPoint("a point of '\(point.workload)' is not one of \(name)'s") }
        let declared = parameters(settings)
        let names = declared.map(\.name)
        let takes = declared.isEmpty ? "no parameters" : "parameters " + names.joined(separator: ", ")
        for parameter in point.parameters {
            guard let declaration = declared.first(where: { $0.name == parameter.name }) else {
                throw UndeclaredPoint("\(name) has no parameter '\(parameter.name)' (it takes \(takes))")
            }
            guard declaration.values.contains(parameter.value) else {
                throw UndeclaredPoint(
                    "\(name)'s \(parameter.name) is one of \(declaration.values.joined(separator: ", ")), not '\(parameter.value)'")
            }
        }
        for missing in names where point[missing] == nil {
            throw UndeclaredPoint("\(name)'s point \(point.parameterPath) lacks \(missing) (it takes \(takes))")
        }
        let points = points(settings)
        guard points.contains(point) else {
            if let same = points.first(where: { $0.parameters == point.parameters }) {
                throw UndeclaredPoint("\(name)'s point \(point.parameterPath) runs \(same.threads) threads, not \(point.threads)")
            }
            throw UndeclaredPoint("\(point.parameterPath) is not one of \(name)'s points under these settings")
        }
    }
}
