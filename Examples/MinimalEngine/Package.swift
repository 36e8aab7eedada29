// swift-tools-version: 6.2
import PackageDescription

// An outside author's package, as docs/EXTENDING.md builds it: an engine in a module of its own (it needs only the
// contract), a workload in another (it needs the contract and the benchmark library), and a three-line executable that
// runs DispatchArena's command line with both. Here the dependency is the repository itself, by path; in your package
// it is `.package(url: "<the repository's URL>", branch: "main")`.
let package = Package(
    name: "MinimalEngine",
    products: [
        .library(name: "MinimalEngine", targets: ["MinimalEngine"]),
        .library(name: "ReadMostlyCache", targets: ["ReadMostlyCache"]),
        .executable(name: "minimal-arena", targets: ["MinimalArena"]),
    ],
    dependencies: [
        .package(name: "DispatchArena", path: "../..")
    ],
    targets: [
        // The engine: it needs only the contract (the protocols and the building blocks), none of the home engines.
        .target(name: "MinimalEngine", dependencies: [.product(name: "ArenaContract", package: "DispatchArena")]),
        // A workload of the user's own: a read-mostly cache behind four guards, measured on every contender.
        .target(
            name: "ReadMostlyCache",
            dependencies: [
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
            ]
        ),
        // `minimal-arena`: the whole `arena` command line with the minimal engine, one rule and the cache workload
        // beside the built-in ones.
        .executableTarget(
            name: "MinimalArena",
            dependencies: [
                "MinimalEngine", "ReadMostlyCache",
                .product(name: "ArenaCLI", package: "DispatchArena"),
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Conformance", package: "DispatchArena"),
                .product(name: "Harness", package: "DispatchArena"),
            ],
            path: "Sources/minimal-arena"
        ),
        .testTarget(
            name: "MinimalEngineTests",
            dependencies: [
                "MinimalEngine", "MinimalArena", "ReadMostlyCache",
                .product(name: "ArenaContract", package: "DispatchArena"),
                .product(name: "Bench", package: "DispatchArena"),
                .product(name: "Contenders", package: "DispatchArena"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
