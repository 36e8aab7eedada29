import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the server until `--seconds` have passed (SIGALRM, so the stop does not hang on the executor's timers), or
/// SIGTERM/SIGINT, then stops it gracefully. Returns the exit code.
enum ArenaServer {
    /// How long the graceful stop may take before the service group cancels the server, and how long cancellation may
    /// take before the service group gives up.
    static let gracefulStop = Duration.seconds(3)
    static let cancellation = Duration.seconds(2)
    /// The watchdog's margin past `--seconds`: whatever happens, the process is gone by then.
    static let watchdogMargin = 10

    static func run(_ settings: ServerSettings) async -> Int32 {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        var logger = Logger(label: "arena-server")
        logger.logLevel = settings.logLevel

        let shownHost = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        let app = Application(
            router: Routes.router(),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.port
                writeLine("listening \(shownHost):\(port)", to: STDOUT_FILENO)
            },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(
            services: [app],
            gracefulShutdownSignals: [.sigterm, .sigint, .sigalrm],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = Self.gracefulStop
        configuration.maximumCancellationDuration = Self.cancellation
        let group = ServiceGroup(configuration: configuration)

        Watchdog.start(after: settings.seconds + Self.watchdogMargin)
        alarm(UInt32(settings.seconds))
        do {
            try await group.run()
            return ServerExit.ok
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            writeLine("arena-server: port \(settings.port) on \(shownHost) is in use", to: STDERR_FILENO)
            return ServerExit.unavailable
        } catch {
            writeLine("arena-server: \(error)", to: STDERR_FILENO)
            return ServerExit.failure
        }
    }
}

/// A plain thread that ends the process if it is still there long after `--seconds`: it needs neither the global
/// executor nor Dispatch, so a stuck engine cannot keep the server alive.
enum Watchdog {
    static func start(after seconds: Int) {
        let payload = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        payload.initialize(to: seconds)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let seconds = argument!.assumingMemoryBound(to: Int.self).pointee
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            deadline.tv_sec += seconds
            // Sleeps to an absolute deadline, so signals that interrupt the sleep do not shorten or stretch it.
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) != 0 {}
            writeLine("arena-server: still running \(seconds)s after start; watchdog exits", to: STDERR_FILENO)
            _exit(ServerExit.failure)
        }, payload)
        if started == 0 { pthread_detach(thread) }
    }
}
