import ArenaContract
import Glibc
@_exported import HomeEngines

/// One call at the top of `main` that makes one of this package's engines Swift Concurrency's global executor, by
/// name: every task and default actor of the program then runs on it (`GlobalExecutorTakeover`).
///
/// ```swift
/// // main.swift
/// import ArenaTakeover
/// ArenaTakeover.installOrExit(engineNamed: "lockfree")
/// ```
///
/// The preloadable library (`ArenaGlobalExecutor`, which `arena exec` puts before an unmodified program) makes the same
/// call from the environment (`installFromEnvironment()`).
public enum ArenaTakeover {
    /// The environment variable naming the engine the preloaded library installs.
    public static let engineVariable = "ARENA_EXECUTOR"
    /// The environment variable that, set to 1, makes the engine's main queue the main actor's executor too.
    public static let mainVariable = "ARENA_EXECUTOR_MAIN"

    /// The engines one can name, in `arena list`'s order.
    public static var engineNames: [String] {
        var names = Names()
        BuiltInEngines.shared.forEach(&names)
        return names.names
    }

    /// Whether the engine called `name` is Swift's default executor already (its executor layer's pool is: `swift`),
    /// so that installing it changes nothing.
    public static func isDefault(engineNamed name: String) -> Bool {
        var finder = DefaultFinder(name: name)
        BuiltInEngines.shared.forEach(&finder)
        return finder.isDefault
    }

    /// Installs the engine called `name` (`system`, `mutex`, `lockfree`; `swift` installs nothing: Swift's default
    /// executor is the global executor already) and, with `main`, its main queue as the main actor's executor, which
    /// the program must then hand its main thread (an `async` main does). Throws, having installed nothing, for an
    /// unknown name (`cannotServe` with the names there are), an engine that cannot serve, or a hook taken already.
    public static func install(engineNamed name: String, main: Bool = false) throws(TakeoverRefusal) {
        var installer = Installer(name: name, main: main)
        BuiltInEngines.shared.forEach(&installer)
        guard let result = installer.result else {
            throw .cannotServe(contender: name, reason: "no such engine; the engines are \(engineNames.joined(separator: ", "))")
        }
        try result.get()
    }

    /// As `install`, and on a refusal, one line on standard error naming it and the process's end with status 70
    /// (`EX_SOFTWARE`), before the program started anything.
    public static func installOrExit(engineNamed name: String, main: Bool = false) {
        do { try install(engineNamed: name, main: main) } catch { exitNamingRefusal(error) }
    }

    /// Installs the engine `ARENA_EXECUTOR` names, with its main queue where `ARENA_EXECUTOR_MAIN` is 1; nothing where
    /// the variable is unset or empty. A refusal ends the process as `installOrExit` does.
    public static func installFromEnvironment() {
        guard let name = getenv(engineVariable).map({ String(cString: $0) }), !name.isEmpty else { return }
        let main = getenv(mainVariable).map { String(cString: $0) } == "1"
        installOrExit(engineNamed: name, main: main)
    }

    /// Writes `arena-takeover: REFUSAL` on standard error and ends the process with status 70.
    static func exitNamingRefusal(_ refusal: TakeoverRefusal) -> Never {
        let line = "arena-takeover: \(refusal)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        _exit(70)
    }

    private struct Names: EngineVisitor {
        var names: [String] = []
        mutating func visit<E: Engine>(_ engine: E) { names.append(engine.name) }
    }

    private struct DefaultFinder: EngineVisitor {
        let name: String
        var isDefault = false
        mutating func visit<E: Engine>(_ engine: E) { if engine.name == name { isDefault = engine.executors.poolIsDefault } }
    }

    private struct Installer: EngineVisitor {
        let name: String
        let main: Bool
        var result: Result<Void, TakeoverRefusal>?

        mutating func visit<E: Engine>(_ engine: E) {
            guard result == nil, engine.name == name else { return }
            do { try GlobalExecutorTakeover.install(engine, main: main); result = .success(()) } catch {
                result = .failure(error)
            }
        }
    }
}
