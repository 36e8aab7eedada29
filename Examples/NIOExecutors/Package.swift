// swift-tools-version: 6.2
import PackageDescription

// SwiftNIO's event loops as a contender (`nio`), in a package of its own so that NIO never becomes a dependency of
// DispatchArena itself. The contender brings only an executor layer: actors on NIO's own event-loop executor, tasks on a
// task executor over the same `MultiThreadedEventLoopGroup`; its GCD objects are the system engine's. Here the
// dependency on DispatchArena is the repository itself, by path.
let package = Package(
    name: "NIOExecutors",
    products: [
        .library(name: "NIOContender", targets: ["NIOContender"]),
        .executable(name: "nio-arena", targets: ["NIOArena"]),
        .executable(name: "nio-hop-probe", targets: ["NIOHopProbe"]),
    ],
    dependencies: [
        .package(name: "DispatchArena", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The contender: NIO's event-loop executor for actors, a task executor over the same group, and what the
        // layer needs beside them (plain blocks, queue-specific values, the pool's marker).
        .target(
            name: "NIOContender",
            dependencies: [
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Contenders", package: "DispatchArena"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // `nio-arena`: DispatchArena's whole command line with `nio` beside the built-in contenders.
        .executableTarget(
            name: "NIOArena",
            dependencies: ["NIOContender", .product(name: "ArenaCLI", package: "DispatchArena")],
            path: "Sources/nio-arena"
        ),
        // `nio-hop-probe`: actor-hop's trial, a fixed number of round trips in one process, for whole-process
        // profilers (strace, perf), and NIO's own count of its loops' ticks (README, "Where the time goes").
        .executableTarget(
            name: "NIOHopProbe",
            dependencies: [
                "NIOContender",
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
                .product(name: "Contenders", package: "DispatchArena"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/nio-hop-probe"
        ),
        .testTarget(
            name: "NIOContenderTests",
            dependencies: [
                "NIOContender",
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
                .product(name: "Conformance", package: "DispatchArena"),
                .product(name: "Harness", package: "DispatchArena"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
