import NIOCore  // NIOSingletons
import NIOPosix  // its unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Called by the library's ELF constructor (CNIOTakeoverConstructor) on the main thread, before the host's `main`:
/// installs NIO's singleton `MultiThreadedEventLoopGroup` as Swift Concurrency's global executor. NIO answers false
/// when the runtime's `swift_task_enqueueGlobal_hook` is already set (someone else took over first) or cannot be found
/// with `dlsym`; then the host is stopped with exit status 70 (EX_SOFTWARE) rather than run on an executor it was not
/// meant to run on.
@_cdecl("nio_takeover_preload_install")
public func nioTakeoverPreloadInstall() {
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        say(
            "NIOTakeoverPreload: NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()"
                + " returned false (swift_task_enqueueGlobal_hook already set, or not found)"
        )
        _exit(70)
    }
    if getenv("NIO_TAKEOVER_PRELOAD_VERBOSE") != nil {
        say("NIOTakeoverPreload: NIO's singleton event loop group is Swift Concurrency's global executor (pid \(getpid()))")
    }
}

/// One line on standard error, written at once (no stdio buffer: the failure path leaves with `_exit`).
private func say(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
