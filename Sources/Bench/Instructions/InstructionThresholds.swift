/// The most instructions and heap allocations per operation each engine's path may cost: the gate CI keeps on the hot
/// paths (`arena instructions --check FILE`), as swift-nio's allocation-counter tests keep theirs.
///
/// The file is committed with the code it limits, one line per path and engine, `#` starting a comment:
///
///     # path            engine    instructions  allocations
///     sync              lockfree  160           0
///
/// A count above its line's figure is a regression, named with the path, the engine, the count and the threshold
/// (`violations(in:)`); a cell the file has no line for is not checked. Instructions repeat within 1% under
/// `arena instructions` as root (`InstructionTable.realTime`), so a line leaves a margin over what was measured
/// rather than the run-to-run spread of a timing. A plain value; parsing costs one pass over the text.
public struct InstructionThresholds: Sendable, Equatable {
    /// One line: the most `path` on `engine` may cost per operation.
    public struct Limit: Sendable, Equatable {
        /// The path limited.
        public let path: InstructionPath
        /// The engine's registry name.
        public let engine: String
        /// The most instructions per operation.
        public let instructions: Double
        /// The most heap allocations per operation.
        public let allocations: Double

        /// A limit of `instructions` and `allocations` per operation on `path` of `engine`.
        public init(path: InstructionPath, engine: String, instructions: Double, allocations: Double) {
            self.path = path
            self.engine = engine
            self.instructions = instructions
            self.allocations = allocations
        }
    }

    /// The lines, in the file's order.
    public let limits: [Limit]

    /// Parses `text`; a line that is not `path engine instructions allocations` (a known path, two non-negative
    /// numbers), or a second line for the same path and engine, throws naming the line.
    public init(parsing text: String) throws(ThresholdsError) {
        var limits: [Limit] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            let number = index + 1
            guard fields.count == 4 else {
                throw ThresholdsError(line: number, "wants 4 fields (path engine instructions allocations), has \(fields.count)")
            }
            guard let path = InstructionPath(rawValue: String(fields[0])) else {
                throw ThresholdsError(line: number, "unknown path '\(fields[0])'")
            }
            guard let instructions = Double(fields[2]), instructions >= 0, let allocations = Double(fields[3]), allocations >= 0
            else { throw ThresholdsError(line: number, "the thresholds must be non-negative numbers, not '\(fields[2])' '\(fields[3])'") }
            let engine = String(fields[1])
            if limits.contains(where: { $0.path == path && $0.engine == engine }) {
                throw ThresholdsError(line: number, "a second line for \(path.rawValue) on \(engine)")
            }
            limits.append(Limit(path: path, engine: engine, instructions: instructions, allocations: allocations))
        }
        self.limits = limits
    }

    /// One line per regression of `table` against these limits, naming the path, the engine, the count and the
    /// threshold; a limited cell the table measured without a count is one too. Empty when every limited cell holds.
    public func violations(in table: InstructionTable) -> [String] {
        var found: [String] = []
        for limit in limits {
            guard let count = table.count(limit.path, on: limit.engine) else { continue }
            let cell = "\(limit.path.rawValue) on \(limit.engine)"
            guard let instructions = count.perOperation, let allocations = count.allocationsPerOperation else {
                found.append(
                    "\(cell): no count (\(count.failure ?? "no allocations counted")), threshold \(Self.figure(limit.instructions)) instructions"
                )
                continue
            }
            if instructions > limit.instructions {
                found.append(
                    "\(cell): \(Figures.fixed(instructions, 1)) instructions per operation, over its threshold of "
                        + Self.figure(limit.instructions))
            }
            if allocations > limit.allocations {
                found.append(
                    "\(cell): \(Figures.fixed(allocations, 2)) heap allocations per operation, over its threshold of "
                        + Self.figure(limit.allocations))
            }
        }
        return found
    }

    /// A threshold as the file would write it: no decimals when whole.
    static func figure(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A thresholds file that does not parse: the line and what is wrong with it.
public struct ThresholdsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, from 1.
    public let line: Int
    /// What is wrong, in words.
    public let reason: String

    /// An error at `line` saying `reason`.
    public init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}
