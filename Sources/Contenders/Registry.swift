/// The engines known by name. This is the one place where engines are existential (`any Engine`); callers open the
/// value once and drive it generically.
public enum EngineRegistry {
    /// Every registered engine, in the order reports list them (`system` first: it is the reference).
    public static let all: [any Engine] = [SystemEngine(), MutexEngine(), LockFreeEngine(), ActorEngine()]

    /// The registered names, in order.
    public static var names: [String] { all.map(\.name) }

    /// The engine called `name`, if any.
    public static func engine(named name: String) -> (any Engine)? {
        all.first { $0.name == name }
    }
}
