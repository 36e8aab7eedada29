import ArenaContract
import ArenaTakeover
import ArgumentParser
import Glibc

/// `arena exec --engine NAME -- COMMAND [ARGUMENTS...]`: runs an unmodified program with a built-in engine as Swift
/// Concurrency's global executor. It puts the preloadable library (`libArenaGlobalExecutor.so`, built beside this
/// executable) before the program (`LD_PRELOAD`) and names the engine in `ARENA_EXECUTOR`; the library's constructor
/// installs it before the program's `main` (`ArenaTakeover.installFromEnvironment`). `swift` runs the program as it is:
/// Swift's default executor is the global executor already. Every process the program starts inherits both variables,
/// and runs on the engine too. An unknown engine, one that cannot serve or a missing library is one line and exit 64
/// (69 for the library), and nothing is started; otherwise this process becomes the program (`execvp`) and its exit
/// status is the program's.
struct ExecCommand: LineupCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a program with an engine as Swift Concurrency's global executor.",
        discussion: """
            Every task and default actor of the program, and of the processes it starts, runs on the engine. With \
            --main the engine's main queue is the main actor's executor too, for a program that hands its main thread \
            to it (an async main does); without it the main actor stays on the platform's main executor. Run a built \
            program directly ('arena exec --engine mutex -- .build/debug/MyPackageTests.xctest'), not through \
            'swift test', whose own build would run on the engine too.
            """)

    @Option(help: "The engine ('list --engines' names them; swift runs the program as it is).")
    var engine: String

    @Flag(help: "Make the engine's main queue the main actor's executor too.")
    var main = false

    @Argument(parsing: .postTerminator, help: "The program and its arguments, after '--'.")
    var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("exec needs a program to run, after '--'") }
    }

    func run(on lineup: Lineup) throws {
        guard let contender = lineup.contender(named: engine) else {
            throw ValidationError("unknown engine '\(engine)' (known: \(lineup.names.joined(separator: ", ")))")
        }
        if let lack = contender.profile.lack(of: .globalExecutor) {
            throw ValidationError("\(engine) cannot serve as Swift's global executor: \(lack.reason)")
        }
        var environment: [(String, String)] = []
        if !ArenaTakeover.isDefault(engineNamed: engine) {
            guard ArenaTakeover.engineNames.contains(engine) else {
                throw ValidationError(
                    "\(engine) is not a built-in engine, which is all the preloaded library knows: install it in the program itself (GlobalExecutorTakeover.install)"
                )
            }
            let library = Self.libraryPath
            guard access(library, R_OK) == 0 else {
                writeError("\(Program.name): \(library) is missing: build it with 'swift build --product ArenaGlobalExecutor'")
                throw ExitCode(69)
            }
            let preload = getenv("LD_PRELOAD").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            environment = [
                ("LD_PRELOAD", preload.map { library + ":" + $0 } ?? library),
                (ArenaTakeover.engineVariable, engine),
                (ArenaTakeover.mainVariable, main ? "1" : "0"),
            ]
        }
        for (name, value) in environment { setenv(name, value, 1) }
        let arguments = command.map { strdup($0) } + [nil]
        execvp(command[0], arguments)
        writeError("\(Program.name): cannot run '\(command[0])': \(String(cString: strerror(errno)))")
        throw ExitCode(errno == ENOENT ? 127 : 126)
    }

    /// The preloadable library beside this executable: SwiftPM builds both into the same folder.
    static var libraryPath: String {
        let folder = (Program.executablePath ?? "").split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return folder.joined(separator: "/") + "/libArenaGlobalExecutor.so"
    }
}
