/// The instructions and heap allocations one engine's path costs per operation: two runs under callgrind that differ
/// only in the number of operations, and their difference per extra operation.
///
/// `(high − low) / (highOperations − lowOperations)`: process start-up, the engine's setup, the warm-up, the
/// teardown and anything else both runs do once cancel, leaving what the extra operations cost, all threads
/// included. A plain value.
public struct InstructionCount: Sendable, Codable, Equatable {
    /// The engine's registry name.
    public let engine: String
    /// The path counted.
    public let path: InstructionPath
    /// Operations in the smaller run.
    public let lowOperations: Int
    /// Operations in the larger run.
    public let highOperations: Int
    /// Instructions of the whole smaller run; `nil` when it failed.
    public let lowInstructions: UInt64?
    /// Instructions of the whole larger run; `nil` when it failed.
    public let highInstructions: UInt64?
    /// Heap allocations of the whole smaller run; `nil` when it failed or the record predates their counting.
    public let lowAllocations: UInt64?
    /// Heap allocations of the whole larger run; `nil` when it failed or the record predates their counting.
    public let highAllocations: UInt64?
    /// Why there is no count (the first run that failed, in words); `nil` when both runs succeeded.
    public let failure: String?

    /// A count from the two runs' totals (`nil` for a run that failed, with `failure` saying why). A plain value.
    public init(
        engine: String, path: InstructionPath, lowOperations: Int, highOperations: Int,
        lowInstructions: UInt64?, highInstructions: UInt64?, lowAllocations: UInt64? = nil,
        highAllocations: UInt64? = nil, failure: String? = nil
    ) {
        self.engine = engine
        self.path = path
        self.lowOperations = lowOperations
        self.highOperations = highOperations
        self.lowInstructions = lowInstructions
        self.highInstructions = highInstructions
        self.lowAllocations = lowAllocations
        self.highAllocations = highAllocations
        self.failure = failure
    }

    /// Instructions per extra operation, or `nil` when a run failed (or, impossibly for a working engine, the larger
    /// run executed fewer instructions). Costs a subtraction and a division.
    public var perOperation: Double? {
        guard failure == nil, let low = lowInstructions, let high = highInstructions, high >= low,
            highOperations > lowOperations
        else { return nil }
        return Double(high - low) / Double(highOperations - lowOperations)
    }

    /// Heap allocations per extra operation, or `nil` when a run failed or none were counted. A path that allocates
    /// nothing per operation counts 0; one that grows a buffer now and then, a fraction. Costs a division.
    public var allocationsPerOperation: Double? {
        guard failure == nil, let low = lowAllocations, let high = highAllocations, highOperations > lowOperations
        else { return nil }
        return (Double(high) - Double(low)) / Double(highOperations - lowOperations)
    }

    /// Why there is no count, in words: the failed run's reason, else the one impossible case `perOperation` refuses.
    public var reasonForNoCount: String { failure ?? "the larger run executed fewer instructions" }

    enum CodingKeys: String, CodingKey {
        case engine, path, failure
        case lowOperations = "low_operations"
        case highOperations = "high_operations"
        case lowInstructions = "low_instructions"
        case highInstructions = "high_instructions"
        case perOperation = "instructions_per_operation"
        case lowAllocations = "low_allocations"
        case highAllocations = "high_allocations"
        case allocationsPerOperation = "allocations_per_operation"
    }

    /// Reads what `encode(to:)` wrote; the per-operation figures are computed again, not read (a record from before
    /// allocations were counted has none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        engine = try container.decode(String.self, forKey: .engine)
        path = try container.decode(InstructionPath.self, forKey: .path)
        lowOperations = try container.decode(Int.self, forKey: .lowOperations)
        highOperations = try container.decode(Int.self, forKey: .highOperations)
        lowInstructions = try container.decodeIfPresent(UInt64.self, forKey: .lowInstructions)
        highInstructions = try container.decodeIfPresent(UInt64.self, forKey: .highInstructions)
        lowAllocations = try container.decodeIfPresent(UInt64.self, forKey: .lowAllocations)
        highAllocations = try container.decodeIfPresent(UInt64.self, forKey: .highAllocations)
        failure = try container.decodeIfPresent(String.self, forKey: .failure)
    }

    /// Encodes the stored fields, `instructions_per_operation` and `allocations_per_operation` (null when there is
    /// none), so a reader of the JSON needs no arithmetic.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(engine, forKey: .engine)
        try container.encode(path, forKey: .path)
        try container.encode(lowOperations, forKey: .lowOperations)
        try container.encode(highOperations, forKey: .highOperations)
        try container.encode(lowInstructions, forKey: .lowInstructions)
        try container.encode(highInstructions, forKey: .highInstructions)
        try container.encode(failure, forKey: .failure)
        try container.encode(perOperation, forKey: .perOperation)
        try container.encode(lowAllocations, forKey: .lowAllocations)
        try container.encode(highAllocations, forKey: .highAllocations)
        try container.encode(allocationsPerOperation, forKey: .allocationsPerOperation)
    }
}
