// swift-tools-version: 6.2
import PackageDescription

// `arena-server`: a small Hummingbird 2 server to see what swapping Swift Concurrency's global executor does under load.
// It depends on nothing from DispatchArena: the engine under test comes from outside the binary (`arena exec --engine
// NAME -- arena-server ...` preloads it), or from NIO's own takeover (`--nio-takeover`). Dependencies, each for a reason:
// - hummingbird: the HTTP server. Its default traits (swift-configuration support, full Foundation) are switched off:
//   the server uses neither, and the first build is shorter without them.
// - swift-nio: `NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()` and `IOError`
//   (a port in use).
// - swift-service-lifecycle: the service group that stops the server after `--seconds`, or on SIGTERM/SIGINT.
// - swift-log: logs on stderr (stdout carries the `listening HOST:PORT` line), quiet by default.
// - swift-argument-parser: the command line, as in the root package.
let package = Package(
    name: "HummingbirdServer",
    products: [
        .executable(name: "arena-server", targets: ["ArenaServer"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "ArenaServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
