/// An engine as plain data: its name, how it is built and what it lacks, read once from the engine (three property
/// reads). A parent process decides with it what a contender can run (which rules, which benchmark points) without
/// opening the engine, and `missing(_:)` is the one capability check every decision goes through.
public struct EngineProfile: Sendable, Codable, Hashable {
    /// The engine's registry name.
    public let name: String
    /// One sentence on how the engine is built.
    public let summary: String
    /// The capabilities the engine lacks, each with its reason.
    public let limits: [Capability: String]
    /// The departures from the contract documented as the engine's own (`Engine.deviations`).
    public let deviations: [KnownDeviation]

    /// The profile of `engine`.
    public init<E: Engine>(_ engine: E) {
        self.init(name: engine.name, summary: engine.summary, limits: engine.limits, deviations: engine.deviations)
    }

    /// A profile from its parts (a test's stand-in, or one read back from a report).
    public init(name: String, summary: String = "", limits: [Capability: String] = [:], deviations: [KnownDeviation] = []) {
        self.name = name
        self.summary = summary
        self.limits = limits
        self.deviations = deviations
    }

    /// What an engine lacks for something it was asked to run: the capability, and why (the engine's reason, or its
    /// layer's when the capability belongs to a layer the engine lacks).
    public struct Lack: Sendable, Equatable, CustomStringConvertible {
        public let capability: Capability
        public let reason: String

        /// "needs `capability`: `reason`", as results and reports say it.
        public var description: String { "needs \(capability.rawValue): \(reason)" }
    }

    /// Why the engine lacks `capability`, or `nil` when it has it. A capability of a layer the engine lacks is
    /// lacking too, for the layer's reason: a contender without a layer has none of its capabilities, whatever its
    /// `limits` say.
    public func lack(of capability: Capability) -> Lack? {
        if let reason = limits[capability] { return Lack(capability: capability, reason: reason) }
        if let layer = capability.layer, let reason = limits[layer] { return Lack(capability: layer, reason: reason) }
        return nil
    }

    /// The first of `requirements` the engine lacks, layers before the capabilities within them (so a contender
    /// without a layer is told that, not some detail of it), or `nil` when it has them all. The one capability check:
    /// the conformance runner, the benchmark plan, the lineup and the tests all ask it.
    public func missing<Requirements: Sequence>(_ requirements: Requirements) -> Lack? where Requirements.Element == Capability {
        let ordered = requirements.sorted { ($0.layer == nil ? 0 : 1, $0) < ($1.layer == nil ? 0 : 1, $1) }
        for capability in ordered {
            if let lack = lack(of: capability) { return lack }
        }
        return nil
    }

    /// Whether the engine has every one of `requirements`.
    public func has<Requirements: Sequence>(_ requirements: Requirements) -> Bool where Requirements.Element == Capability {
        missing(requirements) == nil
    }

    /// The capabilities the engine has, in declaration order.
    public var capabilities: [Capability] { Capability.allCases.filter { lack(of: $0) == nil } }
}
