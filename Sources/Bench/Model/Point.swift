/// One named parameter of a point, such as `threads:4` or `work:100ns`.
public struct Parameter: Sendable, Codable, Hashable {
    /// The parameter's name; it becomes a CSV column and a segment of the benchmark name.
    public let name: String
    /// The value as written in names and CSV cells.
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public init(_ name: String, _ value: Int) { self.init(name, String(value)) }
}

/// One configuration of a workload: what `arena bench` measures as a unit, on each engine.
///
/// Points are plain data, so a parent process can hand one to a child (as JSON) and read back its result.
public struct Point: Sendable, Codable, Hashable {
    /// The workload's registry name.
    public let workload: String
    /// The parameters in the order names and CSV columns list them.
    public let parameters: [Parameter]
    /// How many threads the workload drives (Google Benchmark's `threads` field); 1 when not a thread count.
    public let threads: Int

    public init(workload: String, parameters: [Parameter], threads: Int = 1) {
        self.workload = workload
        self.parameters = parameters
        self.threads = threads
    }

    /// The value of parameter `name`, if the point has it.
    public subscript(name: String) -> String? { parameters.first { $0.name == name }?.value }

    /// The integer value of parameter `name`; workloads read their own points, so a missing value is a bug.
    public func integer(_ name: String) -> Int {
        guard let text = self[name], let value = Int(text) else { preconditionFailure("\(workload): no integer parameter '\(name)'") }
        return value
    }

    /// `name:value/…`, the parameter part of a benchmark name.
    public var parameterPath: String { parameters.map { "\($0.name):\($0.value)" }.joined(separator: "/") }

    /// The Google Benchmark name of this point on `engine`: `<workload>/<engine>/<name>:<value>/…`.
    public func benchmarkName(engine: String) -> String {
        parameters.isEmpty ? "\(workload)/\(engine)" : "\(workload)/\(engine)/\(parameterPath)"
    }
}
