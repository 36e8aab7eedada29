import ArenaContract

/// What reports say about an engine: its name, how it is built, what it can and cannot do.
public struct EngineDescription: Sendable, Codable {
    public let name: String
    public let summary: String
    public let capabilities: [String]
    /// Missing capabilities with the engine's reason.
    public let limits: [String: String]

    public init<E: Engine>(_ engine: E) {
        name = engine.name
        summary = engine.summary
        capabilities = engine.capabilities.map(\.rawValue)
        limits = Dictionary(uniqueKeysWithValues: engine.limits.map { ($0.key.rawValue, $0.value) })
    }
}
