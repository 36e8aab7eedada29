import ArenaContract

/// What reports say about an engine: its name, how it is built, what it can and cannot do.
public struct EngineDescription: Sendable, Codable {
    public let name: String
    public let summary: String
    public let capabilities: [String]
    /// Missing capabilities with the engine's reason.
    public let limits: [String: String]

    /// The description of the engine `profile` describes.
    public init(_ profile: EngineProfile) {
        name = profile.name
        summary = profile.summary
        capabilities = profile.capabilities.map(\.rawValue)
        limits = Dictionary(uniqueKeysWithValues: profile.limits.map { ($0.key.rawValue, $0.value) })
    }

    /// The description of `engine`.
    public init<E: Engine>(_ engine: E) { self.init(EngineProfile(engine)) }
}
