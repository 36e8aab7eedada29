// `arena-server`: top-level code runs on the main actor, so it only parses, installs NIO's takeover when asked (before
// any job reaches the global executor), and hands over to `ArenaServer.run`, which runs off the main actor.
import NIOCore
import NIOPosix

let options = ServerOptions.parseOrExit()  // usage errors: ArgumentParser's message, exit 64
let settings = options.validated()  // a bad value: one line on stderr, exit 64
if settings.nioTakeover, !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
    fail(
        "arena-server: --nio-takeover: NIO could not install its event loops as the global executor"
            + " (another executor hook is installed already, or this platform is not supported)",
        code: ServerExit.software
    )
}
exitProcess(await ArenaServer.run(settings))
